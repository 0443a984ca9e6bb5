"""The API's front door and its problem pages: ``/api/v1/`` says where things
are, and every problem ``type`` a response can carry resolves to a description."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from rest_framework.test import APIClient

from games.engine.messages import RULE_MESSAGES
from tests.support.api import codes_raised_in_product_code

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]


def test_the_index_links_to_what_a_client_starts_from():
    response = APIClient().get("/api/v1/")
    assert response.status_code == 200
    links = response.json()["links"]
    assert set(links) >= {"games", "me", "tokens", "problems", "schema", "docs"}
    for name in ("schema", "problems"):
        assert APIClient().get(links[name]).status_code == 200, name


@pytest.mark.parametrize("code", sorted(codes_raised_in_product_code() | {c for c, _, _ in RULE_MESSAGES.values()}))
def test_every_code_the_api_answers_with_has_a_page(code):
    json_body = APIClient().get(f"/api/v1/problems/{code}").json()
    assert json_body["code"] == code
    assert json_body["description"]
    page = APIClient().get(f"/api/v1/problems/{code}", HTTP_ACCEPT="text/html")
    assert page.status_code == 200
    assert page["Content-Type"].startswith("text/html")
    assert f"<code>{code}</code>" in page.content.decode()


def test_a_problem_type_in_a_real_response_resolves(client_for, alice):
    problem = client_for(alice).get("/api/v1/games/not-a-game").json()
    assert problem["type"] == "/api/v1/problems/game_not_found"
    assert APIClient().get(problem["type"]).json()["status"] == 404


def test_an_unknown_code_is_a_404_in_either_form():
    assert APIClient().get("/api/v1/problems/nope").json()["code"] == "not_found"
    page = APIClient().get("/api/v1/problems/nope", HTTP_ACCEPT="text/html")
    assert page.status_code == 404
    assert "No such problem" in page.content.decode()


def documented_codes() -> dict[str, int]:
    """The codes docs/api.md's table of errors lists, with the status of their row."""
    text = (ROOT / "docs" / "api.md").read_text()
    table = text[text.index("| status | codes |") :].split("\n\n")[0]
    rows = [line.split("|", 2)[1:] for line in table.splitlines()[2:]]
    # A code is the first word in backticks of each comma-separated item (what follows in
    # parentheses names the problem's fields).
    items = [(int(status), item) for status, codes in rows for item in re.split(r",|;", codes.split("|")[0])]
    return {found[1]: status for status, item in items if (found := re.match(r"\s*(?:[\w' ]+: )?`(\w+)`", item))}


def test_the_docs_table_of_errors_lists_every_code_a_client_can_get_with_its_status():
    problems = APIClient().get("/api/v1/problems/").json()["problems"]
    registered = {problem["code"]: problem["status"] for problem in problems}
    documented = documented_codes()
    assert {code: status for code, status in registered.items() if documented.get(code) != status} == {}

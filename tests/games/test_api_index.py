"""The API's front door and its problem pages: ``/api/v1/`` says where things
are, and every problem ``type`` a response can carry resolves to a description."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from rest_framework.test import APIClient

from games.engine.messages import RULE_MESSAGES

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]
# How product code names a problem's code: a service error, a DRF error's own
# code, or a problem body written out.
RAISED = (
    re.compile(r'(?:Game|Problem)Error\(\s*"([a-z_]+)"'),
    re.compile(r'\bcode="([a-z_]+)"'),
    re.compile(r'(?:problem(?:_response)?|InputRefused)\(\s*\d+,\s*"([a-z_]+)"'),
)


def codes_raised_in_product_code() -> set[str]:
    codes: set[str] = set()
    for app in ("games", "accounts", "notifications", "ratings", "webhooks", "streams", "manhattan_site"):
        for source in (ROOT / app).rglob("*.py"):
            text = source.read_text()
            for pattern in RAISED:
                codes.update(pattern.findall(text))
    return codes


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

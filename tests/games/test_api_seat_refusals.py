"""Each way the seats of a new game can fail it answers its own code, so a client
reading ``code`` can tell them apart (and a page can word each): ``bad_seats`` is
the number of seats alone. Through the API, as a client meets them; nothing is created."""

from __future__ import annotations

from typing import Any

import pytest

from games.engine.bots import SEAT_BOTS
from games.models import Game
from tests.support.api import API, assert_problem

pytestmark = pytest.mark.django_db

ME = {"kind": "me"}
BOB = {"kind": "invite", "email": "bob@example.com"}


@pytest.mark.parametrize(
    ("players", "seats", "code", "details"),
    [
        pytest.param(3, [ME, BOB], "bad_seats", {}, id="too-few-seats"),
        pytest.param(2, [ME, ME], "creator_seated_twice", {}, id="creator-twice"),
        pytest.param(2, [ME, {"kind": "invite", "email": "ALICE@example.com"}], "creator_invited", {}, id="self"),
        pytest.param(
            3,
            [ME, BOB, {"kind": "invite", "email": "Bob@Example.com"}],
            "duplicate_invitee",
            {"email": "bob@example.com"},
            id="invitee-twice",
        ),
        pytest.param(
            2, [ME, {"kind": "invite", "email": "carol@[10.0.0.1]"}], "no_mail_domain", {"field": "email"}, id="ip"
        ),
        pytest.param(
            2, [ME, {"kind": "bot", "bot": "deep-blue"}], "unknown_bot", {"choices": list(SEAT_BOTS)}, id="no-such-bot"
        ),
    ],
)
def test_each_refusal_of_the_seats_has_its_own_code(api, alice, players, seats, code, details: dict[str, Any]):
    response = api(alice).post(f"{API}/games", {"options": {"players": players}, "seats": seats}, format="json")
    problem = assert_problem(response, 422, code)
    assert problem["type"] == f"{API}/problems/{code}"
    assert {key: problem.get(key) for key in details} == details
    assert not Game.objects.exists()


@pytest.mark.parametrize("code", ["creator_seated_twice", "creator_invited", "duplicate_invitee", "no_mail_domain"])
def test_each_seat_code_has_its_problem_page(client, code):
    response = client.get(f"{API}/problems/{code}", HTTP_ACCEPT="application/json")
    assert response.status_code == 200
    assert response.json()["status"] == 422


def test_the_schema_names_each_seat_code(client):
    response = client.get(f"{API}/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    seats = response.json()["components"]["schemas"]["CreateGameRequest"]["properties"]["seats"]
    for code in ("bad_seats", "creator_seated_twice", "creator_invited", "duplicate_invitee", "no_mail_domain"):
        assert f"`{code}`" in seats["description"], code

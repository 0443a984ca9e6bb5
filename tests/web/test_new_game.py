"""The "new game" page."""

from __future__ import annotations

import pytest

from games.models import Game
from notifications.models import Kind, Notification

pytestmark = pytest.mark.django_db


def test_a_game_with_an_invitee_and_bots_is_created(client, alice):
    client.force_login(alice)
    response = client.post(
        "/games/new/",
        {"players": "3", "seat_2": "invite", "email_2": "bob@example.com", "seat_3": "greedy", "timeout": "72"},
    )
    game = Game.objects.get(creator=alice)
    assert response.status_code == 302
    assert response["Location"] == f"/games/{game.public_id}/"
    seats = list(game.seats.order_by("index"))
    assert [(s.user, s.invited_email, s.bot) for s in seats] == [
        (alice, "", ""),
        (None, "bob@example.com", ""),
        (None, "", "greedy"),
    ]
    assert game.timeout_hours == 72
    assert Notification.objects.filter(kind=Kind.INVITATION, email="bob@example.com").exists()


def test_an_invite_without_an_address_is_refused(client, alice):
    client.force_login(alice)
    response = client.post("/games/new/", {"players": "2", "seat_2": "invite", "email_2": ""})
    assert response.status_code == 400
    assert not Game.objects.exists()


def test_never_timing_out(client, alice):
    client.force_login(alice)
    client.post("/games/new/", {"players": "2", "seat_2": "random", "timeout": ""})
    assert Game.objects.get().timeout_hours is None


def test_the_page_needs_a_signed_in_player(client):
    assert client.get("/games/new/").status_code == 302

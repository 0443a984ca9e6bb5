"""An operator closes a person's account from the admin (*Users*, "Close the selected
accounts…"): it asks first, then does what the person's own "Close my account" does
(the bot takes their seats, the address is gone) and writes it in the history."""

from __future__ import annotations

import pytest
from django.contrib.admin.models import LogEntry
from django.test import Client

from accounts.closing import closed_address
from accounts.models import User
from games.models import Game
from tests.factories import two_player_game

pytestmark = pytest.mark.django_db


def close(admin: Client, *users: User, confirmed: bool) -> str:
    data: dict[str, object] = {"action": "close_accounts", "_selected_action": [u.pk for u in users]}
    if confirmed:
        data["confirmed"] = "yes"
    response = admin.post("/admin/accounts/user/", data, follow=True)
    assert response.status_code == 200
    return str(response.content.decode())


def test_an_operator_closes_an_account_after_confirming(admin, operator, alice, bob):
    game: Game = two_player_game(alice, bob)
    address = alice.email

    asked = close(admin, alice, confirmed=False)
    assert address in asked
    assert 'name="confirmed"' in asked
    alice.refresh_from_db()
    assert alice.closed is None

    done = close(admin, alice, confirmed=True)
    assert "1 account(s) closed" in done
    alice.refresh_from_db()
    assert alice.closed is not None
    assert alice.email == closed_address(alice)
    assert not alice.is_active
    seat = game.seats.get(user=alice)
    assert seat.absent_since is not None, "the bot plays her seat"
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE, "the game goes on"
    [logged] = LogEntry.objects.filter(user=operator)
    assert logged.object_id == str(alice.pk)
    listing = admin.get("/admin/accounts/user/", {"closed__isnull": "False"}).content.decode()
    assert closed_address(alice) in listing
    assert bob.email not in listing


def test_operators_accounts_are_not_closed_here(admin, operator, make_user):
    other = make_user("colleague@example.com", is_staff=True)
    page = close(admin, operator, other, confirmed=True)
    assert "0 account(s) closed" in page
    for user in (operator, other):
        user.refresh_from_db()
        assert user.closed is None

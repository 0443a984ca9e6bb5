"""Staff who may only look: every admin action that changes something needs the
change permission of its model. Django offers an action to anyone who can open
the change list, so a view-only staff member could abandon games, hide messages,
revoke tokens or turn people into bots until each action asked for "change"."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.admin.models import LogEntry
from django.contrib.auth.models import Permission
from django.test import Client

from accounts.models import ApiToken, User
from accounts.services import create_api_token
from games.models import Game
from games.services import open_games
from games.talk import services as talk
from games.talk.models import TableMessage
from notifications.models import Kind, Notification
from tests.factories import two_player_game, webhook_delivery
from webhooks.models import Delivery, Endpoint

pytestmark = pytest.mark.django_db


@pytest.fixture
def looker(make_user: Callable[..., User]) -> Client:
    """A staff member allowed to view everything and to change nothing."""
    staff = make_user("looker@example.com", is_staff=True)
    staff.user_permissions.add(*Permission.objects.filter(codename__startswith="view_"))
    client = Client()
    client.force_login(staff)
    return client


def run(client: Client, changelist: str, action: str, pk: Any) -> Any:
    return client.post(changelist, {"action": action, "_selected_action": [pk]}, follow=True)


def test_a_looker_sees_the_game_but_cannot_abandon_it(looker, alice, bob):
    game = two_player_game(alice, bob)
    assert looker.get("/admin/games/game/").status_code == 200
    assert looker.get(f"/admin/games/game/{game.pk}/change/").status_code == 200
    assert 'value="abandon"' not in looker.get("/admin/games/game/").content.decode()
    run(looker, "/admin/games/game/", "abandon", game.pk)
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE
    assert looker.post(f"/admin/games/game/{game.pk}/undo/", {"reason": "because"}).status_code == 403


def test_a_looker_cannot_run_the_lobby_actions(looker, alice):
    game = open_games.open_game(creator=alice, players=3)
    run(looker, "/admin/games/opengame/", "unlist", game.pk)
    run(looker, "/admin/games/opengame/", "fill_with_bots_now", game.pk)
    game.refresh_from_db()
    assert game.listed
    assert game.status == Game.Status.LOBBY


def test_a_looker_cannot_hide_a_message(looker, alice, bob):
    game = two_player_game(alice, bob)
    message = talk.post_message(game.public_id, alice, "hello", via="web")
    run(looker, "/admin/talk/tablemessage/", "hide_messages", message.pk)
    assert TableMessage.objects.get(pk=message.pk).hidden_at is None


def test_a_looker_cannot_make_bots_or_revoke_tokens(looker, alice):
    token = create_api_token(user=alice, name="mine", scope="read").token
    run(looker, "/admin/accounts/user/", "make_bot_accounts", alice.pk)
    run(looker, "/admin/accounts/apitoken/", "revoke", token.pk)
    alice.refresh_from_db()
    assert not alice.is_bot
    assert not ApiToken.objects.get(pk=token.pk).revoked


def test_a_looker_cannot_send_a_test_event(looker, alice):
    endpoint = Endpoint.objects.create(owner=alice, url="https://hooks.example/in", secret="s")
    run(looker, "/admin/webhooks/endpoint/", "send_test_event", endpoint.pk)
    assert not Delivery.objects.filter(endpoint=endpoint).exists()
    assert not LogEntry.objects.exists()


def test_a_looker_cannot_send_a_failed_email_or_delivery_again(looker, alice):
    email = Notification.objects.create(kind=Kind.YOUR_TURN, key="k", email=alice.email, status="failed")
    endpoint = Endpoint.objects.create(owner=alice, url="https://hooks.example/in", secret="s")
    failed = webhook_delivery(endpoint)
    Delivery.objects.filter(pk=failed.pk).update(status=Delivery.Status.FAILED)
    run(looker, "/admin/notifications/notification/", "send_again", email.pk)
    run(looker, "/admin/webhooks/delivery/", "send_again", failed.pk)
    assert Notification.objects.get(pk=email.pk).status == Notification.Status.FAILED
    assert Delivery.objects.get(pk=failed.pk).status == Delivery.Status.FAILED

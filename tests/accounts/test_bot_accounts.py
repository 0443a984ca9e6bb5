"""Bot accounts: flagged by an operator or on request, invited to seats,
playing through the API only, shown as bots everywhere, never sent email."""

from __future__ import annotations

import pytest
from celery import current_app
from django.core import mail
from django.test import Client
from rest_framework.test import APIClient

from games import services
from notifications import outbox
from notifications.models import Notification

pytestmark = pytest.mark.django_db


@pytest.fixture
def robot(make_user):
    return make_user("robot@example.com", display_name="Robo", is_bot=True)


def test_an_account_becomes_a_bot_on_request(client_for, make_user):
    user = make_user("later-a-bot@example.com")
    client = client_for(user)
    response = client.post("/api/v1/me/bot")
    assert response.status_code == 200
    assert response.json()["is_bot"] is True
    user.refresh_from_db()
    assert user.is_bot
    assert client.get("/api/v1/me").json()["name"] == "BOT later-a-bot"


def test_an_operator_account_is_never_a_bot(client_for, make_user):
    staff = make_user("op@example.com", is_staff=True)
    response = client_for(staff).post("/api/v1/me/bot")
    assert response.status_code == 403
    staff.refresh_from_db()
    assert not staff.is_bot


def test_an_operator_flags_bots_in_the_admin(make_user):
    root = make_user("root@example.com", is_staff=True, is_superuser=True, password="pw-for-the-admin")
    target = make_user("script@example.com")
    admin = Client()
    assert admin.login(email=root.email, password="pw-for-the-admin")
    response = admin.post(
        "/admin/accounts/user/", {"action": "make_bot_accounts", "_selected_action": [target.pk]}, follow=True
    )
    assert response.status_code == 200
    target.refresh_from_db()
    assert target.is_bot
    assert "Bot account" in admin.get("/admin/accounts/user/").content.decode()  # the list filter


def test_the_admin_action_leaves_operators_accounts_alone(make_user):
    """Operator accounts are never bots (docs/api.md), whoever selects them."""
    root = make_user("root@example.com", is_staff=True, is_superuser=True)
    colleague = make_user("colleague@example.com", is_staff=True)
    target = make_user("script@example.com")
    admin = Client()
    admin.force_login(root)
    response = admin.post(
        "/admin/accounts/user/",
        {"action": "make_bot_accounts", "_selected_action": [root.pk, colleague.pk, target.pk]},
        follow=True,
    )
    assert "1 account(s) are now bot accounts." in response.content.decode()
    for user, bot in ((root, False), (colleague, False), (target, True)):
        user.refresh_from_db()
        assert user.is_bot is bot, user.email


def test_pages_refuse_a_bot_politely_but_the_api_serves_it(robot):
    browser = Client()
    browser.force_login(robot)
    page = browser.get("/games/")
    assert page.status_code == 403
    assert 'data-testid="bot-refused"' in page.content.decode()
    assert browser.get("/oauth/device/").status_code == 403
    assert browser.get("/api/v1/games").status_code == 200


def test_a_bot_is_invited_joins_and_is_marked_as_a_bot(alice, robot, client_for):
    game = services.create_game(
        creator=alice,
        options={"players": 2},
        seats=[services.SeatSpec("me"), services.SeatSpec("invite", email=robot.email)],
    )
    bot_api = client_for(robot)
    listed = bot_api.get("/api/v1/games").json()
    assert [g["id"] for g in listed] == [str(game.public_id)]
    joined = bot_api.post(f"/api/v1/games/{game.public_id}/join", {}, format="json")
    assert joined.status_code == 200, joined.content
    seat = joined.json()["seats"][1]
    assert seat["bot_account"] is True
    assert seat["player"] == "BOT Robo"
    assert joined.json()["seats"][0]["bot_account"] is False

    game.refresh_from_db()  # the last join dealt the game
    browser = Client()
    browser.force_login(alice)
    assert "BOT Robo" in browser.get(f"/games/{game.public_id}/").content.decode()


def test_a_bot_account_is_never_sent_email(alice, robot, monkeypatch):
    monkeypatch.setattr(current_app, "send_task", lambda *args, **kwargs: None)  # delivered below, by hand
    game = services.create_game(
        creator=alice,
        options={"players": 2},
        seats=[services.SeatSpec("me"), services.SeatSpec("invite", email=robot.email)],
    )
    services.join_game(game=game, user=robot)
    game.refresh_from_db()  # the last join dealt the game
    mine = Notification.objects.filter(user=robot)
    assert mine.exists()  # the invitation and "game started" were written...
    for notification in Notification.objects.all():
        outbox.deliver(notification.pk)
    assert {n.status for n in mine} == {Notification.Status.SKIPPED}  # ...and never sent
    assert mail.outbox, "alice's emails still go out"
    assert all(robot.email not in message.to for message in mail.outbox)


def test_a_bot_plays_through_the_api_with_a_token(robot, alice, client_for):
    game = services.create_game(
        creator=alice,
        options={"players": 2, "start_player": 1},
        seats=[services.SeatSpec("me"), services.SeatSpec("invite", email=robot.email)],
    )
    services.join_game(game=game, user=robot)
    game.refresh_from_db()  # the last join dealt the game
    api: APIClient = client_for(robot)
    legal = api.get(f"/api/v1/games/{game.public_id}/legal-actions").json()
    assert legal["my_turn"] is True
    choice = legal["selection"]
    action = {"type": "select", "pieces": _pieces(choice["reserve"], choice["count"])}
    moved = api.post(
        f"/api/v1/games/{game.public_id}/actions",
        {"action": action, "expected_version": legal["version"]},
        format="json",
    )
    assert moved.status_code == 200, moved.content


def _pieces(reserve: dict[str, int], count: int) -> list[int]:
    sizes = [int(size) for size, n in sorted(reserve.items()) for _ in range(n)]
    return sizes[:count]

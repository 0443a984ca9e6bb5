"""Presence: while a player has the game page open and visible, no turn email
or reminder is sent to them for that game; when they leave, the rules resume."""

from __future__ import annotations

from datetime import timedelta

import pytest
from asgiref.sync import async_to_sync
from django.test import AsyncClient, Client
from django.utils import timezone

from games.models import Game, Presence
from notifications import outbox, reminders
from notifications.models import Kind, Notification
from tests.factories import act, greedy_move

pytestmark = pytest.mark.django_db

HOUR = timedelta(hours=1)


def page_of(user) -> Client:
    client = Client(enforce_csrf_checks=False)
    client.force_login(user)
    return client


def beat(client: Client, game: Game, state: str = "visible") -> int:
    return client.post(f"/games/{game.public_id}/presence/", {"state": state}).status_code


def turn_emails(game: Game, user) -> list[Notification]:
    """The turn emails sent to ``user``, once everything pending has been delivered
    (as the worker does on commit of each move)."""
    for pk in Notification.objects.filter(status=Notification.Status.PENDING).values_list("pk", flat=True):
        outbox.deliver(pk)
    mails = Notification.objects.filter(game=game, kind=Kind.YOUR_TURN, user=user, status=Notification.Status.SENT)
    return list(mails)


def play_to_turn_of(game: Game, user) -> None:
    """Others play until it is ``user``'s turn (at least one move)."""
    act(game, greedy_move(game))
    while game.seats.get(index=game.to_act_seat).user != user:
        act(game, greedy_move(game))


def test_no_turn_email_while_the_page_is_open_and_one_after_leaving(started_game, alice, bob):
    bobs_page = page_of(bob)
    assert beat(bobs_page, started_game) == 204
    play_to_turn_of(started_game, bob)
    assert turn_emails(started_game, bob) == []

    turn_emails(started_game, bob)  # delivered (skipped) while he watched
    act(started_game, greedy_move(started_game))  # bob moves (through the services) ...
    assert beat(bobs_page, started_game, "hidden") == 204  # ... and leaves the page
    play_to_turn_of(started_game, bob)
    assert len(turn_emails(started_game, bob)) == 1


def test_a_heartbeat_older_than_two_minutes_is_no_presence(started_game, bob):
    beat(page_of(bob), started_game)
    Presence.objects.filter(user=bob).update(seen=timezone.now() - timedelta(seconds=121))
    play_to_turn_of(started_game, bob)
    assert len(turn_emails(started_game, bob)) == 1


def test_reminders_wait_while_the_player_watches_and_come_once_they_leave(started_game, alice):
    game = Game.objects.get(pk=started_game.pk)
    assert game.to_act_seat == 0  # alice's turn
    start = game.turn_since
    page = page_of(alice)
    beat(page, game)
    Presence.objects.filter(user=alice).update(seen=start + 24 * HOUR)  # she is on the page when it falls due
    assert reminders.send_due_reminders(now=start + 24 * HOUR) == 0
    assert not Notification.objects.filter(game=game, kind=Kind.REMINDER).exists()
    beat(page, game, "hidden")
    assert reminders.send_due_reminders(now=start + (24 + 48) * HOUR) == 1
    reminder = Notification.objects.get(game=game, kind=Kind.REMINDER)
    assert outbox.deliver(reminder.pk) is True


def test_a_reminder_written_before_the_player_came_is_not_sent_while_they_watch(started_game, alice):
    game = Game.objects.get(pk=started_game.pk)
    assert reminders.send_due_reminders(now=game.turn_since + 24 * HOUR) == 1
    beat(page_of(alice), game)
    reminder = Notification.objects.get(game=game, kind=Kind.REMINDER)
    assert outbox.deliver(reminder.pk) is False
    reminder.refresh_from_db()
    assert reminder.status == Notification.Status.SKIPPED


def test_only_players_send_heartbeats(started_game, stranger):
    assert beat(page_of(stranger), started_game) == 404  # a private game is not there for a stranger
    Game.objects.filter(pk=started_game.pk).update(public=True)
    assert beat(page_of(stranger), started_game) == 403
    assert not Presence.objects.exists()


def test_the_heartbeat_needs_a_signed_in_post(client, started_game, bob):
    # Signed out: to sign in, private or public (an unknown id answers the same).
    assert client.post(f"/games/{started_game.public_id}/presence/").status_code == 302
    Game.objects.filter(pk=started_game.pk).update(public=True)
    assert client.post(f"/games/{started_game.public_id}/presence/").status_code == 302  # to sign in
    client.force_login(bob)
    assert client.get(f"/games/{started_game.public_id}/presence/").status_code == 405


def test_the_game_page_follows_its_stream_and_beats(started_game, bob):
    page = page_of(bob).get(f"/games/{started_game.public_id}/")
    html = page.content.decode()
    assert f'data-presence="/games/{started_game.public_id}/presence/"' in html
    assert 'id="live-script"' in html
    assert f'nonce="{page.wsgi_request.csp_nonce}"' in html  # type: ignore[attr-defined]
    # Served by WSGI there is no stream to follow (it would answer 503): the page is reloaded.
    assert 'data-stream=""' in html


@pytest.mark.django_db(transaction=True)
def test_served_by_asgi_the_page_names_its_stream(started_game, bob):
    client = AsyncClient()
    client.force_login(bob)
    page = async_to_sync(client.get)(f"/games/{started_game.public_id}/")
    assert f'data-stream="/api/v1/games/{started_game.public_id}/stream"' in page.content.decode()

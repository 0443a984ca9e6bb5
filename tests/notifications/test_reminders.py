"""The reminder sweep, with time travel: first reminder, escalation, timeout
and the bot's move, vacation, and overlapping sweeps."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from games.models import Game, GameEvent
from notifications import services
from notifications.models import Kind, Notification

pytestmark = pytest.mark.django_db

HOUR = timedelta(hours=1)


def reminders(game: Game) -> list[Notification]:
    return list(Notification.objects.filter(game=game, kind=Kind.REMINDER).order_by("created"))


def test_a_new_turn_sets_the_reminder_clock(started_game):
    game = Game.objects.get(pk=started_game.pk)
    assert game.to_act_seat == 0
    assert game.next_reminder_at == game.turn_since + 24 * HOUR
    assert game.timeout_at == game.turn_since + 7 * 24 * HOUR


def test_first_reminder_after_24_hours_then_every_48_with_escalation(started_game):
    start = started_game.turn_since
    assert services.send_due_reminders(now=start + 23 * HOUR) == 0
    assert services.send_due_reminders(now=start + 24 * HOUR) == 1
    assert services.send_due_reminders(now=start + 25 * HOUR) == 0  # not again before 48 h more
    assert services.send_due_reminders(now=start + (24 + 48) * HOUR) == 1
    assert services.send_due_reminders(now=start + (24 + 96) * HOUR) == 1
    sent = reminders(started_game)
    assert [n.context["level"] for n in sent] == [1, 2, 3]
    assert {n.seat for n in sent} == {0}
    assert len({n.key for n in sent}) == 3


def test_overlapping_sweeps_remind_once(started_game):
    game = Game.objects.get(pk=started_game.pk)
    due = game.next_reminder_at
    assert due is not None
    now = due + HOUR
    # Two sweeps both read the game as due at ``due``; only the first claims it.
    assert services.remind(game.pk, due, now) is True
    assert services.remind(game.pk, due, now) is False
    assert len(reminders(started_game)) == 1


def test_a_move_resets_the_clock(started_game, alice, client_for):
    client = client_for(alice)
    legal = client.get(f"/api/v1/games/{started_game.public_id}/legal-actions").json()
    pieces = [int(s) for s, n in legal["selection"]["reserve"].items() for _ in range(n)][:4]
    moved = client.post(
        f"/api/v1/games/{started_game.public_id}/actions",
        {"action": {"type": "select", "pieces": pieces}, "expected_version": legal["version"]},
        format="json",
    )
    assert moved.status_code == 200
    game = Game.objects.get(pk=started_game.pk)
    assert game.reminders_sent == 0
    assert game.next_reminder_at > started_game.turn_since


def test_timeout_lets_the_greedy_bot_move_and_tells_the_player(started_game):
    start = started_game.turn_since
    events_before = GameEvent.objects.filter(game=started_game).count()
    assert services.time_out_absent_players(now=start + 7 * 24 * HOUR - HOUR) == 0
    assert services.time_out_absent_players(now=start + 7 * 24 * HOUR) == 1
    game = Game.objects.get(pk=started_game.pk)
    moved = GameEvent.objects.filter(game=game, seq__gt=events_before)
    assert moved.first().type == "pieces_selected"
    assert moved.first().seat == 0
    told = Notification.objects.get(game=game, kind=Kind.TIMEOUT)
    assert told.seat == 0
    # The same timeout is not played twice by a second sweep.
    assert services.time_out_absent_players(now=start + 7 * 24 * HOUR) == 0


def test_a_game_without_timeout_never_times_out(started_game):
    Game.objects.filter(pk=started_game.pk).update(timeout_hours=None, timeout_at=None)
    assert services.time_out_absent_players(now=timezone.now() + 365 * 24 * HOUR) == 0


def test_vacation_pauses_reminders_and_timeouts(started_game, alice):
    start = started_game.turn_since
    back = timezone.now() + 10 * 24 * HOUR
    services.set_vacation(user=alice, until=back)
    assert services.send_due_reminders(now=start + 24 * HOUR) == 0
    game = Game.objects.get(pk=started_game.pk)
    assert game.next_reminder_at == back
    assert game.timeout_at == back + 7 * 24 * HOUR
    assert services.time_out_absent_players(now=start + 7 * 24 * HOUR) == 0
    assert reminders(started_game) == []


def test_vacation_is_at_most_30_days(alice):
    preference = services.set_vacation(user=alice, until=timezone.now() + 90 * 24 * HOUR)
    assert preference.vacation_until <= timezone.now() + 30 * 24 * HOUR


def test_bot_turns_are_not_reminded(bot_game):
    from games import services as games

    games.play_bot_turns(game_id=bot_game.public_id)
    game = Game.objects.get(pk=bot_game.pk)
    assert game.to_act_seat == 0  # back to alice: the only human
    assert game.next_reminder_at is not None
    Game.objects.filter(pk=game.pk).update(to_act_seat=1)
    from notifications.services import schedule_turn

    game.refresh_from_db()
    schedule_turn(game, timezone.now())
    assert game.next_reminder_at is None

"""The reminder sweep, with time travel: first reminder, escalation, timeout
and the bot's move, vacation, and overlapping sweeps."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from games.models import Game, GameEvent
from notifications import reminders
from notifications.models import Kind, Notification, TurnClock
from tests.notifications.helpers import greedy_move

pytestmark = pytest.mark.django_db

HOUR = timedelta(hours=1)


def reminders_of(game: Game) -> list[Notification]:
    return list(Notification.objects.filter(game=game, kind=Kind.REMINDER).order_by("created"))


def test_a_new_turn_sets_the_reminder_clock(started_game):
    game = Game.objects.get(pk=started_game.pk)
    clock = TurnClock.objects.get(game=game)
    assert (game.to_act_seat, clock.seat, clock.version) == (0, 0, game.version)
    assert clock.next_reminder_at == game.turn_since + 24 * HOUR
    assert clock.timeout_at == game.turn_since + 7 * 24 * HOUR


def test_first_reminder_after_24_hours_then_every_48_with_escalation(started_game):
    start = started_game.turn_since
    assert reminders.send_due_reminders(now=start + 23 * HOUR) == 0
    assert reminders.send_due_reminders(now=start + 24 * HOUR) == 1
    assert reminders.send_due_reminders(now=start + 25 * HOUR) == 0  # not again before 48 h more
    assert reminders.send_due_reminders(now=start + (24 + 48) * HOUR) == 1
    assert reminders.send_due_reminders(now=start + (24 + 96) * HOUR) == 1
    sent = reminders_of(started_game)
    assert [n.context["level"] for n in sent] == [1, 2, 3]
    assert {n.seat for n in sent} == {0}
    assert len({n.key for n in sent}) == 3


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
    clock = TurnClock.objects.get(game=started_game)
    assert clock.reminders_sent == 0
    assert clock.next_reminder_at > started_game.turn_since


def test_timeout_lets_the_greedy_bot_move_and_tells_the_player(started_game):
    start = started_game.turn_since
    events_before = GameEvent.objects.filter(game=started_game).count()
    assert reminders.time_out_absent_players(now=start + 7 * 24 * HOUR - HOUR) == 0
    assert reminders.time_out_absent_players(now=start + 7 * 24 * HOUR) == 0  # a warning first
    grace = reminders.warning_grace(7 * 24)
    assert reminders.time_out_absent_players(now=start + 7 * 24 * HOUR + grace - HOUR) == 0
    assert reminders.time_out_absent_players(now=start + 7 * 24 * HOUR + grace) == 1
    game = Game.objects.get(pk=started_game.pk)
    moved = GameEvent.objects.filter(game=game, seq__gt=events_before)
    assert moved.first().type == "pieces_selected"
    assert moved.first().seat == 0
    told = Notification.objects.get(game=game, kind=Kind.TIMEOUT)
    assert told.seat == 0
    # The same timeout is not played twice by a second sweep.
    assert reminders.time_out_absent_players(now=start + 7 * 24 * HOUR + grace) == 0


def test_a_game_without_timeout_never_times_out(started_game):
    TurnClock.objects.filter(game=started_game).update(timeout_at=None)
    assert reminders.time_out_absent_players(now=timezone.now() + 365 * 24 * HOUR) == 0


def test_vacation_pauses_reminders_and_timeouts(started_game, alice):
    start = started_game.turn_since
    back = timezone.now() + 10 * 24 * HOUR
    reminders.set_vacation(user=alice, until=back)
    assert reminders.send_due_reminders(now=start + 24 * HOUR) == 0
    clock = TurnClock.objects.get(game=started_game)
    assert clock.next_reminder_at == back
    assert clock.timeout_at == back + 7 * 24 * HOUR
    assert reminders.time_out_absent_players(now=start + 7 * 24 * HOUR) == 0
    assert reminders_of(started_game) == []


def test_vacation_is_at_most_30_days(alice):
    preference = reminders.set_vacation(user=alice, until=timezone.now() + 90 * 24 * HOUR)
    assert preference.vacation_until <= timezone.now() + 30 * 24 * HOUR


def test_bot_turns_are_not_reminded(bot_game):
    from games import services as games

    assert TurnClock.objects.get(game=bot_game).seat == 0  # alice, the only person, starts
    client_moves = GameEvent.objects.filter(game=bot_game).count()
    games.submit_action(
        game_id=bot_game.public_id,
        user=bot_game.creator,
        action=greedy_move(bot_game),
        expected_version=bot_game.version,
    )
    assert GameEvent.objects.filter(game=bot_game).count() > client_moves
    clock = TurnClock.objects.get(game=bot_game)
    assert clock.seat is None, "a bot is to move: nobody to remind"
    assert clock.next_reminder_at is None
    assert clock.timeout_at is None
    games.play_bot_turns(game_id=bot_game.public_id)
    assert TurnClock.objects.get(game=bot_game).seat == 0  # back to alice

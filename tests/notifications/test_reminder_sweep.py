"""The chunked reminder sweep: many games claimed per transaction, each once,
even with two sweeps at the same time; delivery published after commit in
batches, with the outbox sweep as the safety net."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from django.db import transaction
from django.utils import timezone

from accounts.models import User
from games.models import Game
from notifications import outbox, reminders
from notifications.models import Kind, Notification, Preference, TurnClock
from notifications.tasks import deliver_notifications
from tests.factories import two_player_game
from tests.support.concurrency import race

HOUR = timedelta(hours=1)


def start_games(alice: User, bob: User, count: int) -> list[Game]:
    """``count`` two-player games between alice (to act) and bob, dealt now."""
    return [two_player_game(alice, bob) for _ in range(count)]


def all_due(games_: list[Game]) -> datetime:
    """A time at which every game's first reminder is due."""
    due = TurnClock.objects.filter(game__in=games_).values_list("next_reminder_at", flat=True)
    return max(at for at in due if at is not None) + HOUR


def reminders_by_game() -> dict[int, int]:
    counts: dict[int, int] = {}
    for game_id in Notification.objects.filter(kind=Kind.REMINDER).values_list("game_id", flat=True):
        counts[game_id] = counts.get(game_id, 0) + 1
    return counts


@pytest.mark.django_db
def test_the_sweep_claims_due_games_in_chunks_each_once(alice, bob, monkeypatch):
    monkeypatch.setattr(reminders, "REMINDER_CHUNK", 2)
    started = start_games(alice, bob, 5)
    now = all_due(started)

    assert reminders.send_due_reminders(now=now) == 5
    assert reminders.send_due_reminders(now=now) == 0, "a claimed game is no longer due"
    assert reminders_by_game() == {g.pk: 1 for g in started}
    for game in Game.objects.filter(pk__in=[g.pk for g in started]):
        clock = TurnClock.objects.get(game=game)
        assert clock.reminders_sent == 1
        assert clock.next_reminder_at == now + timedelta(hours=game.reminder_every_hours)
        reminder = Notification.objects.get(game=game, kind=Kind.REMINDER)
        assert (reminder.seat, reminder.email, reminder.user) == (0, alice.email, alice)
        assert reminder.key == f"{game.pk}:0:{game.version}:{Kind.REMINDER}:1"
        assert reminder.context == {
            "seq": game.version,
            "level": 1,
            "since": game.turn_since.isoformat(),
            "timeout_at": (game.turn_since + timedelta(hours=game.timeout_hours)).isoformat(),
        }


@pytest.mark.django_db
def test_the_sweep_stops_at_its_limit_and_the_next_one_goes_on(alice, bob, monkeypatch):
    monkeypatch.setattr(reminders, "REMINDER_CHUNK", 2)
    started = start_games(alice, bob, 5)
    now = all_due(started)

    assert reminders.send_due_reminders(now=now, limit=3) == 3
    assert reminders.send_due_reminders(now=now, limit=3) == 2
    assert reminders_by_game() == {g.pk: 1 for g in started}


@pytest.mark.django_db
def test_the_sweep_runs_a_fixed_number_of_queries_however_many_are_due(
    alice, bob, monkeypatch, django_assert_max_num_queries
):
    monkeypatch.setattr(reminders, "REMINDER_CHUNK", 1000)
    started = start_games(alice, bob, 6)
    Preference.objects.create(user=alice)
    now = all_due(started)
    # The locking read, who of them is on the game page, the UPDATE of the clocks,
    # the INSERT of the reminders, the read of their ids, and the transaction's
    # savepoint or BEGIN/COMMIT.
    with django_assert_max_num_queries(8):
        assert reminders.send_due_reminders(now=now) == 6


@pytest.mark.django_db
def test_delivery_is_published_after_commit_in_batches(
    alice, bob, monkeypatch, django_capture_on_commit_callbacks, broker
):
    monkeypatch.setattr(outbox.EMAIL_OUTBOX, "batch", 2)
    started = start_games(alice, bob, 5)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        assert reminders.send_due_reminders(now=all_due(started)) == 5
    assert broker.published == [], "nothing is published before the claim commits"
    for callback in callbacks:
        callback()
    assert [len(batch) for batch in broker.published] == [2, 2, 1]
    written = set(Notification.objects.filter(kind=Kind.REMINDER).values_list("pk", flat=True))
    assert {pk for batch in broker.published for pk in batch} == written


@pytest.mark.django_db
def test_broker_down_the_outbox_sweep_still_delivers_the_reminders(
    alice, bob, django_capture_on_commit_callbacks, mailoutbox, broker
):
    broker.is_down = True
    started = start_games(alice, bob, 3)
    outbox.sweep_outbox()  # the invitations and "game started" emails
    mailoutbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        assert reminders.send_due_reminders(now=all_due(started)) == 3
    assert Notification.objects.filter(kind=Kind.REMINDER, status=Notification.Status.PENDING).count() == 3
    assert outbox.sweep_outbox() == 3
    assert len(mailoutbox) == 3
    assert all("a reminder, it is your turn" in m.body.split("\n", 1)[0] for m in mailoutbox)


@pytest.mark.django_db
def test_the_batch_task_delivers_each_once(alice, bob, mailoutbox):
    started = start_games(alice, bob, 2)
    reminders.send_due_reminders(now=all_due(started))
    pks = list(Notification.objects.filter(kind=Kind.REMINDER).values_list("pk", flat=True))
    assert deliver_notifications(pks) == 2
    assert deliver_notifications(pks) == 0, "a redelivered batch sends nothing again"
    assert len(mailoutbox) == 2


@pytest.mark.django_db
def test_vacation_and_reminders_in_one_chunk(alice, bob, started_game):
    """A player on vacation is not reminded, the others in the same chunk are."""
    carol = User.objects.create_user(email="carol@example.com", display_name="carol")
    other = two_player_game(carol, bob)
    back = timezone.now() + 10 * 24 * HOUR
    reminders.set_vacation(user=alice, until=back)
    now = all_due([started_game, other])

    assert reminders.send_due_reminders(now=now) == 1
    assert list(reminders_by_game()) == [other.pk]
    paused = TurnClock.objects.get(game=started_game)
    assert (paused.next_reminder_at, paused.timeout_at, paused.reminders_sent) == (back, back + 7 * 24 * HOUR, 0)


@pytest.mark.django_db
def test_a_game_with_nobody_to_remind_has_its_clock_cleared(started_game):
    """Not reachable through the services (start_turn clears the clock
    first), but a due clock with no player to remind must not stay due."""
    now = all_due([started_game])
    TurnClock.objects.filter(game=started_game).update(seat=None, user=None)
    assert reminders.send_due_reminders(now=now) == 0
    assert TurnClock.objects.get(game=started_game).next_reminder_at is None
    assert reminders_by_game() == {}


@pytest.mark.django_db
def test_reminders_for_players_without_game_mail_are_written_then_skipped(alice, bob, started_game, mailoutbox):
    Preference.objects.create(user=alice, frequency=Preference.Frequency.NONE)
    assert reminders.send_due_reminders(now=all_due([started_game])) == 1
    reminder = Notification.objects.get(kind=Kind.REMINDER)
    assert outbox.deliver(reminder.pk) is False
    reminder.refresh_from_db()
    assert reminder.status == Notification.Status.SKIPPED
    assert mailoutbox == []


# --- two sweeps at once, on real connections ----------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_two_sweeps_at_once_remind_each_game_once(alice, bob, monkeypatch):
    monkeypatch.setattr(reminders, "REMINDER_CHUNK", 2)
    started = start_games(alice, bob, 8)
    now = all_due(started)

    counts = race([lambda: reminders.send_due_reminders(now=now), lambda: reminders.send_due_reminders(now=now)])

    assert sum(counts) == 8
    assert reminders_by_game() == {g.pk: 1 for g in started}
    assert set(TurnClock.objects.filter(game__in=started).values_list("reminders_sent", flat=True)) == {1}


@pytest.mark.postgres  # row locks: SQLite serialises whole transactions instead
@pytest.mark.django_db(transaction=True)
def test_a_sweep_skips_a_game_locked_by_a_move_and_the_next_sweep_reminds_it(alice, bob):
    started = start_games(alice, bob, 3)
    now = all_due(started)
    locked = started[0]
    with transaction.atomic():
        Game.objects.select_for_update().get(pk=locked.pk)  # as submit_action holds it
        (count,) = race([lambda: reminders.send_due_reminders(now=now)])
        assert count == 2
    assert locked.pk not in reminders_by_game()
    assert reminders.send_due_reminders(now=now) == 1
    assert reminders_by_game() == {g.pk: 1 for g in started}

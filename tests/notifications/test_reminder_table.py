"""Reminders, the warning and the timeout as a table: (policy, vacation,
digest, unsubscribe) × time, each cell the exact emails that go out on their
own, found by travelling through time (time-machine) and running the real
sweep every hour. One email per sweep per seat, never a deadline in the past,
and the warning always goes out on its own before a bot moves."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
import time_machine

from games import services
from games.services.lobby import ReminderPolicy
from notifications import outbox, reminders, tasks
from notifications.models import Kind, Notification, Preference

pytestmark = [pytest.mark.django_db]
T0 = datetime(2030, 1, 7, 9, 0, tzinfo=UTC)
NORMAL = ReminderPolicy(first_hours=24, every_hours=48, timeout_hours=168)
FAST = ReminderPolicy(first_hours=2, every_hours=4, timeout_hours=12)


def run(alice, policy: ReminderPolicy, hours: int, *, digest=False, unsubscribed=(), vacation=None):
    """Play the clock forward an hour at a time; the emails alice gets on their own, as
    (hour, what, deadline hour or None). ``vacation``: (taken at hour, until hour)."""
    got: list[tuple[int, str, int | None]] = []
    with time_machine.travel(T0, tick=False) as traveller:
        Preference.objects.create(
            user=alice,
            frequency=Preference.Frequency.DAILY_DIGEST if digest else Preference.Frequency.EVERY_TURN,
            unsubscribed=list(unsubscribed),
            digest_hour=3,  # digests themselves are not what this table is about
        )
        services.create_game(
            creator=alice,
            options={"players": 2, "start_player": 0},
            seats=[services.SeatSpec("me"), services.SeatSpec("bot", bot="random")],
            reminders=policy,
        )
        for hour in range(1, hours + 1):
            traveller.move_to(T0 + timedelta(hours=hour))
            if vacation and hour == vacation[0]:
                reminders.set_vacation(user=alice, until=T0 + timedelta(hours=vacation[1]))
            tasks.sweep_reminders()
            for notification in Notification.objects.filter(user=alice, status=Notification.Status.PENDING):
                if outbox.deliver(notification.pk) and notification.kind in (Kind.REMINDER, Kind.TIMEOUT):
                    got.append((hour, _what(notification), _deadline(notification)))
    return got


def _what(notification: Notification) -> str:
    if notification.kind == Kind.TIMEOUT:
        return "a bot moved"
    if notification.context.get("warning"):
        return "warning"
    return f"reminder {notification.context['level']}"


def _deadline(notification: Notification) -> int | None:
    at = notification.context.get("timeout_at")
    return None if not at else round((datetime.fromisoformat(at) - T0) / timedelta(hours=1))


@pytest.mark.parametrize(
    ("cell", "expected"),
    [
        (
            {},
            [
                (24, "reminder 1", 168),
                (72, "reminder 2", 168),
                (120, "reminder 3", 168),
                (168, "warning", 192),  # not also a reminder naming 168, a time already past
                (192, "a bot moved", None),
            ],
        ),
        ({"unsubscribed": [Kind.REMINDER]}, [(168, "warning", 192), (192, "a bot moved", None)]),
        ({"unsubscribed": [Kind.YOUR_TURN]}, [(168, "warning", 192), (192, "a bot moved", None)]),
        ({"digest": True}, [(168, "warning", 192), (192, "a bot moved", None)]),
        (
            {"vacation": (30, 100)},
            [
                (24, "reminder 1", 168),
                (100, "reminder 2", 268),
                (148, "reminder 3", 268),
                (196, "reminder 4", 268),
                (244, "reminder 5", 268),
                (268, "warning", 292),
                (292, "a bot moved", None),
            ],
        ),
        (
            # A vacation taken after the warning: warned again after it, on its own, digest or not.
            {"vacation": (170, 265), "digest": True},
            [(168, "warning", 192), (433, "warning", 457), (457, "a bot moved", None)],
        ),
    ],
)
def test_the_normal_policy(alice, cell, expected):
    last = max(hour for hour, _what, _at in expected) + 30
    assert run(alice, NORMAL, last, **cell) == expected


@pytest.mark.parametrize(
    ("cell", "expected"),
    [
        ({}, [(2, "reminder 1", 12), (6, "reminder 2", 12), (10, "reminder 3", 12), (12, "warning", 15),
              (15, "a bot moved", None)]),
        ({"unsubscribed": [Kind.REMINDER], "digest": True}, [(12, "warning", 15), (15, "a bot moved", None)]),
    ],
)  # fmt: skip
def test_the_fast_policy(alice, cell, expected):
    assert run(alice, FAST, 24, **cell) == expected


def test_never_two_emails_in_one_sweep_nor_a_deadline_in_the_past(alice):
    for policy in (NORMAL, FAST):
        Notification.objects.all().delete()
        Preference.objects.filter(user=alice).delete()
        sent = run(alice, policy, 200 if policy is NORMAL else 24)
        hours = [hour for hour, _what, _at in sent]
        assert len(hours) == len(set(hours)), sent
        assert all(at is None or at > hour for hour, _what, at in sent), sent

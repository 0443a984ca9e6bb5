"""Reminders follow the player's choices: in digest mode they go into the
digest (the warning before a timeout excepted), unsubscribing from turn
emails covers their reminders; the digest goes out at the player's hour in
their time zone, and two digests on one date never share a key."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.test import Client

from notifications import digests, outbox, reminders
from notifications.models import Kind, Notification, Preference

pytestmark = pytest.mark.django_db


def reminder_for(user, **context) -> Notification:
    notification = outbox.enqueue(
        kind=Kind.REMINDER, key=f"r-{len(context)}", email=user.email, user=user, context={"level": 1, **context}
    )
    assert notification is not None
    return notification


def test_digest_readers_get_their_reminders_in_the_digest(alice):
    Preference.objects.create(user=alice, frequency=Preference.Frequency.DAILY_DIGEST)
    reminder = reminder_for(alice)
    assert outbox.deliver(reminder.pk) is False
    assert Notification.objects.get(pk=reminder.pk).status == Notification.Status.DIGESTED


def test_the_warning_before_a_timeout_is_sent_even_to_digest_readers(alice):
    Preference.objects.create(user=alice, frequency=Preference.Frequency.DAILY_DIGEST)
    warning = reminder_for(alice, warning=True)
    assert outbox.deliver(warning.pk) is True


def test_unsubscribing_from_turn_emails_covers_their_reminders(alice):
    Preference.objects.create(user=alice, unsubscribed=[Kind.YOUR_TURN])
    reminder = reminder_for(alice)
    assert outbox.deliver(reminder.pk) is False
    assert Notification.objects.get(pk=reminder.pk).status == Notification.Status.SKIPPED


def test_the_digest_goes_out_at_the_players_hour_in_their_zone(alice, started_game):
    alice.time_zone = "Asia/Seoul"  # UTC+9
    alice.save(update_fields=["time_zone"])
    Preference.objects.create(user=alice, frequency=Preference.Frequency.DAILY_DIGEST, digest_hour=7)
    seoul_6am = datetime(2030, 3, 1, 21, 0, tzinfo=UTC)  # 06:00 on 2 March in Seoul
    assert digests.send_digests(now=seoul_6am) == 0
    assert digests.send_digests(now=seoul_6am + timedelta(hours=1)) == 1  # 07:00 in Seoul
    assert digests.send_digests(now=seoul_6am + timedelta(hours=2)) == 0  # once a day
    # The next day's at 07:00 again: a day later, whatever the UTC date.
    assert digests.send_digests(now=seoul_6am + timedelta(hours=24)) == 0
    assert digests.send_digests(now=seoul_6am + timedelta(hours=25)) == 1


def test_two_digests_on_one_date_do_not_collide(alice, started_game):
    Preference.objects.create(user=alice, frequency=Preference.Frequency.DAILY_DIGEST, digest_hour=0)
    day = datetime(2030, 3, 1, 0, 30, tzinfo=UTC)
    assert digests.send_digests(now=day) == 1
    # She moves to a zone where it is still the evening before: the next digest is due the same UTC date.
    alice.time_zone = "America/Los_Angeles"
    alice.save(update_fields=["time_zone"])
    assert digests.send_digests(now=day + timedelta(hours=23)) == 1
    assert Notification.objects.filter(kind=Kind.DIGEST).count() == 2


def test_the_preferences_page_sets_the_time_zone_and_hour(alice):
    client = Client()
    client.force_login(alice)
    response = client.post(
        "/mail/preferences/",
        {"frequency": "daily_digest", "language": "", "time_zone": "Europe/Berlin", "digest_hour": "18"},
    )
    assert response.status_code == 302
    alice.refresh_from_db()
    assert alice.time_zone == "Europe/Berlin"
    assert Preference.objects.get(user=alice).digest_hour == 18
    assert (
        client.post("/mail/preferences/", {"frequency": "daily_digest", "time_zone": "Mars/Olympus"}).status_code == 200
    )


def test_reminders_sweep_still_writes_them(started_game):
    assert reminders.send_due_reminders(now=started_game.turn_since + timedelta(hours=24)) == 1

"""What the Celery processes count shows in ``/metrics``: emails sent, failed and
bounced, reminders and timeouts fired, the timeout bot's think time."""

from __future__ import annotations

import smtplib
from datetime import timedelta

import pytest

from games import services
from notifications import outbox, reminders
from tests.factories import two_player_game
from tests.support.mail import failing_with, write
from tests.support.metrics import scrape, value

pytestmark = pytest.mark.django_db
HOUR = timedelta(hours=1)
SENT = 'manhattan_emails_total{outcome="sent"}'
FAILED = 'manhattan_emails_total{outcome="failed"}'
BOUNCED = 'manhattan_emails_total{outcome="bounced"}'


def test_emails_sent_failed_and_bounced_are_counted(alice, settings, monkeypatch):
    before = scrape(settings)
    monkeypatch.setattr(outbox, "send", lambda message: None)
    assert outbox.deliver(write(alice, key="ok").pk)
    monkeypatch.setattr(outbox, "send", failing_with(smtplib.SMTPServerDisconnected("down")))
    assert not outbox.deliver(write(alice, key="down").pk)
    refused = smtplib.SMTPRecipientsRefused({alice.email: (550, b"5.1.1 no such user")})
    monkeypatch.setattr(outbox, "send", failing_with(refused))
    assert not outbox.deliver(write(alice, key="gone").pk)
    after = scrape(settings)
    assert value(after, SENT) == value(before, SENT) + 1
    assert value(after, FAILED) == value(before, FAILED) + 1
    assert value(after, BOUNCED) == value(before, BOUNCED) + 1


def test_the_sweeps_count_reminders_timeouts_and_the_bots_thinking(quick_game, bob, stranger, settings):
    before = scrape(settings)
    start = quick_game.turn_since
    assert reminders.time_out_absent_players(now=start + HOUR) == 0  # the warning first
    assert reminders.time_out_absent_players(now=start + 2 * HOUR) == 1
    # A slow game whose first reminder is due an hour after it starts.
    two_player_game(bob, stranger, reminders=services.ReminderPolicy(first_hours=1, every_hours=48, timeout_hours=None))
    assert reminders.send_due_reminders(now=start + 3 * HOUR) == 1
    after = scrape(settings)
    assert value(after, "manhattan_reminders_total ") == value(before, "manhattan_reminders_total ") + 1
    assert value(after, "manhattan_timeouts_total ") == value(before, "manhattan_timeouts_total ") + 1
    think = 'manhattan_bot_think_seconds_count{bot="'
    assert value(after, think) >= value(before, think) + 1
    assert 'purpose="timeout"' in after

"""The warning before a timeout counts the reminders truly: in a game whose
timeout comes before its first reminder (a one-hour timeout, reminders after
24 hours) the warning is the player's first reminder, and it must not say
"This is reminder number 3 … waiting for a long time". With the default
policy, after three reminders, it says number 4 as before."""

from __future__ import annotations

from datetime import timedelta

import pytest

from notifications import emails, reminders
from notifications.models import Kind, Notification
from tests.support.mail import latest, parts, visible_text

pytestmark = pytest.mark.django_db
HOUR = timedelta(hours=1)


def test_a_warning_that_is_the_first_reminder_does_not_call_itself_the_third(quick_game, alice):
    alice.language = "de"
    alice.save(update_fields=["language"])
    assert reminders.time_out_absent_players(now=quick_game.turn_since + HOUR) == 0

    assert Notification.objects.filter(game=quick_game, kind=Kind.REMINDER).count() == 1
    text, markup = parts(emails.build_message(latest(Kind.REMINDER, seat=0)))
    assert "Erinnerung Nummer" not in text
    assert "Erinnerung Nummer" not in visible_text(markup)
    assert "Deine Manhattan-Partie wartet auf deinen Zug." in text
    assert "zieht ein Bot für dich" in text


def test_a_warning_after_three_reminders_is_number_four(started_game):
    start = started_game.turn_since
    for hours in (25, 73, 121):
        reminders.send_due_reminders(now=start + hours * HOUR)
    assert Notification.objects.filter(game=started_game, kind=Kind.REMINDER).count() == 3
    reminders.time_out_absent_players(now=start + 168 * HOUR + timedelta(minutes=1))

    warning = latest(Kind.REMINDER, seat=0)
    assert warning.context["warning"] is True
    assert "This is reminder number 4:" in parts(emails.build_message(warning))[0]

"""A German player timed out, and back by replying, as the emails read: the
timeout email's list of what the bot played is in grammatical sentences (it
names the seat as the game page's log does, "Hans (du) hat …", never
"du hat …"), and the answer to a reply without a move is headed "welcome back",
never "your move was not accepted". Real MIME replies through both paths."""

from __future__ import annotations

from datetime import timedelta

import pytest

from notifications import emails, reminders
from notifications.models import Kind
from tests.support.mail import headline, latest, parts, raw_reply, visible_text

pytestmark = pytest.mark.django_db
HOUR = timedelta(hours=1)


@pytest.fixture
def timed_out_german(quick_game, alice):
    alice.display_name, alice.language = "Hans", "de"
    alice.save(update_fields=["display_name", "language"])
    start = quick_game.turn_since
    reminders.time_out_absent_players(now=start + HOUR)  # the warning
    assert reminders.time_out_absent_players(now=start + 3 * HOUR) == 1
    return latest(Kind.TIMEOUT, seat=0)


def test_the_timeout_email_says_what_the_bot_played_in_sentences(timed_out_german):
    text, markup = parts(emails.build_message(timed_out_german))

    played = text.split("Der Bot hat gespielt:", 1)[1].split("\n\n", 1)[0]
    assert "Hans (du) hat" in played
    assert "du hat" not in played.replace("Hans (du) hat", "")
    assert "Hans (du) hat" in visible_text(markup)


def test_a_reply_without_a_move_after_a_timeout_is_welcomed_back(timed_out_german, receive):
    address = str(emails.build_message(timed_out_german).reply_to[0])

    receive(raw_reply(address, "Entschuldigung, ich war verreist. Bin wieder da!", message_id="<back@beispiel.de>"))

    answer = emails.build_message(latest(Kind.MOVE_REFUSED, seat=0))
    text = parts(answer)[0]
    assert headline(answer) == f"Manhattan {timed_out_german.game.title}: Willkommen zurück"
    assert "Willkommen zurück: Der Bot spielt nicht mehr für dich" in text
    assert "nicht angenommen" not in text
    assert "Es wurde nichts gespielt" not in text

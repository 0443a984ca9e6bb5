"""A second reply to one email, after the first one's move was played (the
mail program sent it twice, or the player, unsure it arrived, sent it again):
it is not played again, and the answer says the first one was played —
never "your move was not accepted", which sends a player whose move counted
looking for a lost move. Real MIME replies, through both inbound paths."""

from __future__ import annotations

import pytest

from games.models import GameEvent
from notifications import emails
from notifications.models import Kind
from tests.support.mail import headline, latest, parts, raw_reply, visible_text

pytestmark = [pytest.mark.django_db]

ALREADY_PLAYED = (
    "Du hattest schon auf diese E-Mail geantwortet, und dieser Zug wurde gespielt. "
    "Diese spätere Antwort auf dieselbe E-Mail wurde nicht noch einmal gespielt: Hier ist die Stellung jetzt."
)


def test_a_second_reply_to_an_answered_email_says_the_first_was_played(
    alice, started_game, reply_address, legal_move, receive
):
    alice.language = "de"
    alice.save(update_fields=["language"])
    receive(raw_reply(reply_address, legal_move, message_id="<first@mail.example.com>"))
    started_game.refresh_from_db()
    version, moves = started_game.version, GameEvent.objects.filter(game=started_game).count()

    receive(raw_reply(reply_address, legal_move, message_id="<sent-again@mail.example.com>"))

    started_game.refresh_from_db()
    assert (started_game.version, GameEvent.objects.filter(game=started_game).count()) == (version, moves)
    answer = emails.build_message(latest(Kind.MOVE_REFUSED, seat=0))
    text, markup = parts(answer)
    assert "nicht angenommen" not in headline(answer)
    assert "schon gespielt" in headline(answer)
    assert ALREADY_PLAYED in text
    assert ALREADY_PLAYED in visible_text(markup)
    assert "Es wurde nichts gespielt" not in text


def test_a_late_reply_to_an_email_not_answered_before_is_still_an_earlier_position(
    alice, started_game, your_turn, reply_address, legal_move, receive
):
    """Only a reply to the email whose move was played is told so: a reply to another
    email about an earlier position keeps its own answer."""
    alice.language = "de"
    alice.save(update_fields=["language"])
    older = emails.build_message(latest(Kind.GAME_STARTED, seat=0)).reply_to
    receive(raw_reply(reply_address, legal_move, message_id="<first@mail.example.com>"))
    if not older:
        pytest.skip("the game-started email had no reply address")

    receive(raw_reply(str(older[0]), legal_move, message_id="<late@mail.example.com>"))

    text = parts(emails.build_message(latest(Kind.MOVE_REFUSED, seat=0)))[0]
    assert ALREADY_PLAYED not in text
    assert "Deine Antwort bezieht sich auf eine frühere Stellung des Spiels." in text

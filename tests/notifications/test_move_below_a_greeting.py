"""A reply that greets first and moves below ("Hallo Greta," then the move, as
people write letters): the move is read from the first line only, so the
reply went to the table as a message, nothing was played, and no email said
so — the player waited for a turn they thought they had played. Now nothing is
played still (the first line is the move, as every email says), but the
player is told, in their language, with the move they wrote and a fresh reply
address. Real MIME replies through both inbound paths."""

from __future__ import annotations

import pytest

from games.models import GameEvent
from notifications import emails
from notifications.models import Kind, Notification
from tests.support.mail import latest, parts, raw_reply, visible_text

pytestmark = [pytest.mark.django_db]

FIRST_LINE = "Dein Zug muss in der ersten Zeile deiner Antwort stehen"


def test_a_move_below_a_greeting_is_answered_not_lost(alice, started_game, reply_address, legal_move, receive):
    alice.language = "de"
    alice.save(update_fields=["language"])
    moves = GameEvent.objects.filter(game=started_game).count()

    receive(raw_reply(reply_address, f"Hallo Bob,\n\n{legal_move}\n\nGruß Alice", message_id="<greeting@x.example>"))

    assert GameEvent.objects.filter(game=started_game).count() == moves
    answer = emails.build_message(latest(Kind.MOVE_REFUSED, seat=0))
    text, markup = parts(answer)
    assert FIRST_LINE in text
    assert FIRST_LINE in visible_text(markup)
    assert legal_move in text
    assert answer.reply_to, "a fresh address to answer with the move first"


def test_table_talk_alone_still_gets_no_answer(alice, started_game, reply_address, receive):
    receive(raw_reply(reply_address, "Hallo Bob,\n\nich bin heute Abend wieder da.", message_id="<talk@x.example>"))

    assert not Notification.objects.filter(kind=Kind.MOVE_REFUSED).exists()

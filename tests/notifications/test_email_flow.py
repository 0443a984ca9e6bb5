"""The flow by email says what is true: a refusal of a reply to an earlier
position invites a reply (with a Reply-To) only when it is the player's turn."""

from __future__ import annotations

from email.message import EmailMessage

import pytest
from anymail.inbound import AnymailInboundMessage

from notifications import emails
from notifications.models import Kind
from notifications.replies import handle_inbound
from tests.notifications.helpers import act, greedy_move, latest, placement_turn_of, play_until

pytestmark = [pytest.mark.django_db]


def reply(notification, body: str, message_id: str):
    message = EmailMessage()
    message["From"] = "Alice <alice@example.com>"
    message["To"] = str(emails.build_message(notification).reply_to[0])
    message["Subject"] = "Re: your turn"
    message["Message-ID"] = message_id
    message.set_content(body)
    return handle_inbound(AnymailInboundMessage.parse_raw_mime_bytes(message.as_bytes()))


def test_a_stale_refusal_when_it_is_not_her_turn_has_no_reply_to_and_says_so(started_game):
    placement_turn_of(started_game, 0)
    old = latest(Kind.YOUR_TURN, seat=0)
    move = greedy_move(started_game)
    act(started_game, move)  # she moved on the page; now it is bob's turn
    assert not reply(old, "card 1 city 1 size 1", "<late@x>").accepted

    answer = emails.build_message(latest(Kind.MOVE_REFUSED, seat=0))
    assert answer.reply_to == []
    assert "To move, reply to this email" not in str(answer.body)
    assert "It is not your turn now" in str(answer.body)


def test_a_stale_refusal_on_her_turn_invites_a_reply_and_can_be_answered(started_game):
    placement_turn_of(started_game, 0)
    old = latest(Kind.YOUR_TURN, seat=0)
    act(started_game, greedy_move(started_game))
    play_until(started_game, lambda g: g.to_act_seat == 0)  # her turn again, a newer position
    assert not reply(old, "card 1 city 1 size 1", "<late2@x>").accepted

    answer = emails.build_message(latest(Kind.MOVE_REFUSED, seat=0))
    assert len(answer.reply_to) == 1
    assert "To move, reply to this email" in str(answer.body)

"""Table talk by email: the lines after a move in a reply, or a reply with no
move at all, reach the table; the other players read it in their next turn
email ("alice wrote: …") instead of in mail of its own."""

from __future__ import annotations

import pytest

from games.models import GameEvent
from games.talk import services as talk
from games.talk.models import TableMessage
from notifications import emails
from notifications.models import Kind, Notification
from tests.factories import act, greedy_move
from tests.support.mail import latest, parts, raw_reply, visible_text

pytestmark = [
    pytest.mark.django_db,
]


def test_the_lines_after_the_move_reach_the_table_without_the_signature(
    started_game, reply_address, legal_move, receive
):
    version = started_game.version
    body = f"{legal_move}\nNice city you have there, Bob.\nGood luck!\n\n-- \nAlice Example\nACME Ltd"

    receive(raw_reply(reply_address, body, message_id="<move-and-note@mail.example.com>"))

    started_game.refresh_from_db()
    assert started_game.version > version
    message = TableMessage.objects.get()
    assert message.text == "Nice city you have there, Bob.\nGood luck!"
    assert (message.via, message.seat) == ("email", 0)
    assert "ACME" not in message.text
    assert "It is your turn" not in message.text


def test_a_reply_without_a_move_is_a_message_and_nothing_is_refused(started_game, reply_address, receive):
    before = GameEvent.objects.filter(game=started_game).count()

    receive(raw_reply(reply_address, "Sorry, I am thinking about this one\nback tonight", message_id="<chat@x>"))
    receive(raw_reply(reply_address, "Sorry, I am thinking about this one\nback tonight", message_id="<chat@x>"))

    assert GameEvent.objects.filter(game=started_game).count() == before
    assert [m.text for m in TableMessage.objects.all()] == ["Sorry, I am thinking about this one\nback tonight"]
    assert not Notification.objects.filter(kind=Kind.MOVE_REFUSED).exists()


def test_a_refused_move_still_delivers_its_note(started_game, reply_address, receive):
    receive(raw_reply(reply_address, "card 99 city 1 size 1\nsee you", message_id="<bad-move@x>"))

    assert Notification.objects.filter(kind=Kind.MOVE_REFUSED).exists()
    assert [m.text for m in TableMessage.objects.all()] == ["see you"]


def test_the_next_turn_email_carries_what_the_others_wrote_once(started_game, alice, bob):
    talk.post_message(started_game.public_id, alice, "Your move, Bob.\nTake your time.", via="web")
    started_game.refresh_from_db()
    while started_game.to_act_seat != 1:  # alice plays until it is bob's turn
        act(started_game, greedy_move(started_game))
    first = latest(Kind.YOUR_TURN, seat=1)

    text, markup = parts(emails.build_message(first))

    assert "alice wrote:\n    Your move, Bob.\n    Take your time." in text
    assert "alice wrote: Your move, Bob. Take your time." in visible_text(markup)
    while started_game.to_act_seat != 0:
        act(started_game, greedy_move(started_game))
    while started_game.to_act_seat != 1:
        act(started_game, greedy_move(started_game))
    second = latest(Kind.YOUR_TURN, seat=1)
    assert second.pk != first.pk
    assert "wrote:" not in parts(emails.build_message(second))[0]  # said once


def test_a_muted_players_words_stay_out_of_the_email(started_game, alice, bob):
    talk.mute(bob, alice)
    talk.post_message(started_game.public_id, alice, "buy my crypto", via="web")
    while started_game.to_act_seat != 1:
        act(started_game, greedy_move(started_game))

    text, _ = parts(emails.build_message(latest(Kind.YOUR_TURN, seat=1)))

    assert "buy my crypto" not in text


def test_the_email_says_that_lines_below_the_move_are_a_message(your_turn):
    text, markup = parts(emails.build_message(your_turn))
    hint = "the lines below it, or a reply without a move, reach the other players as a message"
    assert hint in text
    assert hint in visible_text(markup)

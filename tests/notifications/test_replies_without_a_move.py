"""A reply to an email that offers no move (round scored, game over, a game
started on someone else's turn) reaches the table as table talk — at a
finished game too, as its page's table stays open — and a move in it is never
played but answered, within the refusal cap. The sender checks are those of
every reply. Replies are real MIME messages through both inbound paths."""

from __future__ import annotations

import pytest

from accounts.models import User
from games.models import Game, GameEvent
from games.talk.models import TableMessage
from notifications import emails
from notifications.models import InboundRefusal, Kind, Notification
from notifications.replies import REFUSALS_PER_HOUR
from tests.factories import play_until, resign, two_player_game
from tests.support.mail import latest, parts, raw_reply, visible_text

pytestmark = pytest.mark.django_db

BOB = "Bob <bob@example.com>"
TALK_HINT = "Reply to this email to write to the other players at the table (it plays no move)."
NOT_OFFERED = "This email did not ask for a move, so a move in a reply to it is never played"


def german(user: User) -> None:
    user.language = "de"
    user.save(update_fields=["language"])


def address_of(notification: Notification) -> str:
    """The Reply-To of the email as it was really built."""
    message = emails.build_message(notification)
    assert len(message.reply_to) == 1, message.reply_to
    return str(message.reply_to[0])


def game_over_for_bob(alice: User, bob: User) -> tuple[Game, Notification]:
    game = two_player_game(alice, bob)
    resign(game, alice)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    return game, latest(Kind.GAME_OVER, seat=1)


def test_a_reply_to_the_game_over_email_reaches_the_table(alice, bob, receive):
    german(bob)
    game, over = game_over_for_bob(alice, bob)

    receive(raw_reply(address_of(over), "Gut gespielt!\nBis zum nächsten Mal.", sender=BOB, message_id="<gg@x>"))
    receive(raw_reply(address_of(over), "Gut gespielt!\nBis zum nächsten Mal.", sender=BOB, message_id="<gg@x>"))

    message = TableMessage.objects.get(game=game)  # once, though delivered twice
    assert message.text == "Gut gespielt!\nBis zum nächsten Mal."
    assert (message.via, message.seat, message.author) == ("email", 1, bob)
    assert not Notification.objects.filter(kind=Kind.MOVE_REFUSED).exists()


def test_the_emails_without_a_move_say_a_reply_reaches_the_table(alice, bob):
    _game, over = game_over_for_bob(alice, bob)
    text, markup = parts(emails.build_message(over))
    assert TALK_HINT in text
    assert TALK_HINT in visible_text(markup)
    german(bob)
    text, _ = parts(emails.build_message(latest(Kind.GAME_OVER, seat=1)))
    assert "Antworte auf diese E-Mail, um den anderen am Tisch zu schreiben" in text


def test_a_move_in_a_reply_to_the_game_over_email_is_answered_not_played(alice, bob, receive):
    german(bob)
    game, over = game_over_for_bob(alice, bob)
    events = GameEvent.objects.filter(game=game).count()

    receive(raw_reply(address_of(over), "Karte 1 Stadt 1 Größe 1\nDanke!", sender=BOB, message_id="<late-move@x>"))

    assert GameEvent.objects.filter(game=game).count() == events
    assert [m.text for m in TableMessage.objects.all()] == ["Danke!"]
    answer = latest(Kind.MOVE_REFUSED, user=bob)
    text, markup = parts(emails.build_message(answer))
    assert "Diese E-Mail hat nach keinem Zug gefragt" in text
    assert "Diese E-Mail hat nach keinem Zug gefragt" in visible_text(markup)
    assert "Karte 1 Stadt 1 Größe 1" in text


def test_a_move_in_a_reply_to_a_round_scored_email_is_never_played(alice, bob, receive):
    game = two_player_game(alice, bob)
    play_until(game, lambda g: Notification.objects.filter(kind=Kind.ROUND_SCORED).exists())
    scored = latest(Kind.ROUND_SCORED, seat=0)
    game.refresh_from_db()
    version = game.version

    receive(raw_reply(address_of(scored), "card 1 city 1 size 1", message_id="<scored-move@x>"))
    receive(raw_reply(address_of(scored), "Nice round, Bob!", message_id="<scored-talk@x>"))

    game.refresh_from_db()
    assert game.version == version
    answer = latest(Kind.MOVE_REFUSED, user=alice)
    assert NOT_OFFERED in parts(emails.build_message(answer))[0]
    assert [m.text for m in TableMessage.objects.all()] == ["Nice round, Bob!"]


def test_the_answers_respect_the_refusal_cap(alice, bob, receive):
    _game, over = game_over_for_bob(alice, bob)
    for n in range(REFUSALS_PER_HOUR + 2):
        receive(raw_reply(address_of(over), "card 1 city 1 size 1", sender=BOB, message_id=f"<again-{n}@x>"))

    assert Notification.objects.filter(kind=Kind.MOVE_REFUSED, user=bob).count() == REFUSALS_PER_HOUR
    assert InboundRefusal.objects.filter(reason=InboundRefusal.Reason.CAPPED).count() == 2


def test_someone_else_or_a_forged_sender_reaches_no_table(alice, bob, receive):
    _game, over = game_over_for_bob(alice, bob)
    address = address_of(over)

    receive(raw_reply(address, "Gut gespielt!", sender="Mallory <mallory@evil.example>", message_id="<m1@x>"))
    forged = raw_reply(address, "Gut gespielt!", sender=BOB, message_id="<m2@x>")
    forged = b"Authentication-Results: mx.example.net; spf=fail smtp.mailfrom=bob@example.com; dkim=none\r\n" + forged
    receive(forged)

    assert not TableMessage.objects.exists()
    reasons = set(InboundRefusal.objects.values_list("reason", flat=True))
    assert reasons == {InboundRefusal.Reason.WRONG_SENDER, InboundRefusal.Reason.FORGED_SENDER}
    assert not Notification.objects.filter(kind=Kind.MOVE_REFUSED).exists()

"""Every email about a game has one subject, "Manhattan: <game>", so mail
clients that thread by subject (Gmail) keep the game in one conversation too;
what the email is about is its first line and its preheader. Replies are
matched by their address, so "Re: Manhattan: <game>" plays and an
autoresponder's "Automatic reply: Manhattan: <game>" is still dropped. Two of
a player's games with one name are told apart by the start of their id."""

from __future__ import annotations

from datetime import timedelta
from email.message import EmailMessage

import pytest
from anymail.inbound import AnymailInboundMessage
from django.utils import timezone

from accounts.models import User
from games import engine, services
from games.models import Game, GameEvent
from notifications import emails, reminders
from notifications.models import InboundRefusal, Kind, Notification
from notifications.replies import handle_inbound
from tests import factories
from tests.factories import play_until
from tests.support.mail import headline, latest, your_turn_by_email

pytestmark = [pytest.mark.django_db]

# What each kind's first line says (in English), and the subject never does.
KIND_WORDS = {
    Kind.INVITATION: "invites you to play Manhattan",
    Kind.GAME_STARTED: ": the game has started",
    Kind.YOUR_TURN: ": your turn (round ",
    Kind.MOVE_REFUSED: ": your move was not accepted",
    Kind.REMINDER: ": a reminder, it is your turn",
    Kind.TIMEOUT: ": a bot moved for you",
    Kind.ROUND_SCORED: " of 6 has been scored",
    Kind.SEAT_ANSWERED: ": carol joined",
}


def reply(to: str, body: str, subject: str, message_id: str) -> AnymailInboundMessage:
    message = EmailMessage()
    message["From"] = "Alice <alice@example.com>"
    message["To"] = to
    message["Subject"] = subject
    message["Message-ID"] = message_id
    message.set_content(body)
    return AnymailInboundMessage.parse_raw_mime_bytes(message.as_bytes())


def test_every_kind_of_a_games_email_has_the_games_subject_and_says_its_kind_first(alice, bob):
    carol = User.objects.create_user(email="carol@example.com", display_name="carol")
    game = services.create_game(
        creator=alice,
        name="Harbour 27",
        options={"players": 3, "start_player": 0},
        seats=[services.SeatSpec("me"), services.SeatSpec("invite", email=bob.email), services.SeatSpec("open")],
    )
    services.join_game(game=game, user=carol)  # the creator hears "carol joined"
    services.join_game(game=game, user=bob)
    game.refresh_from_db()
    _turn, address, placement = your_turn_by_email(game)
    subject = "Manhattan: Harbour 27"

    # A reply quoting the game's subject is read by its address: refused, then played.
    assert not handle_inbound(reply(address, "card 5 town 9", f"Re: {subject}", "<a@mail.example.com>")).accepted
    assert latest(Kind.MOVE_REFUSED, seat=0)
    before = GameEvent.objects.filter(game=game).count()
    assert handle_inbound(reply(address, engine.format_action(placement), f"RE: {subject}", "<b@mail.example.com>"))
    assert GameEvent.objects.filter(game=game).count() > before

    game.refresh_from_db()
    seat, now = game.to_act_seat, timezone.now()
    assert reminders.send_due_reminders(now + timedelta(days=2)) == 1
    assert reminders.time_out_absent_players(now + timedelta(days=9)) == 0  # the warning first
    assert reminders.time_out_absent_players(now + timedelta(days=10)) == 1
    assert Notification.objects.filter(game=game, kind=Kind.TIMEOUT, seat=seat).exists()
    play_until(game, lambda g: Notification.objects.filter(game=game, kind=Kind.ROUND_SCORED).exists())

    mails = [emails.build_message(n) for n in Notification.objects.filter(game=game).order_by("pk")]
    assert {m.subject for m in mails} == {subject}
    kinds = [n.kind for n in Notification.objects.filter(game=game).order_by("pk")]
    assert set(KIND_WORDS) <= set(kinds)
    for kind, message in zip(kinds, mails, strict=True):
        if kind in KIND_WORDS and not (kind == Kind.REMINDER and "bot" in headline(message)):
            assert KIND_WORDS[kind] in headline(message), (kind, headline(message))


def test_an_autoresponders_subject_is_still_recognised(started_game):
    notification, address, placement = your_turn_by_email(started_game)
    subject = emails.build_message(notification).subject
    assert subject == f"Manhattan: {started_game.title}"
    before = GameEvent.objects.filter(game=started_game).count()
    outcome = handle_inbound(
        reply(address, engine.format_action(placement), f"Automatic reply: {subject}", "<ooo@mail.example.com>")
    )
    assert not outcome.accepted
    assert GameEvent.objects.filter(game=started_game).count() == before
    assert InboundRefusal.objects.get().reason == InboundRefusal.Reason.AUTO_REPLY


def two_player_game(alice: User, bob: User, name: str) -> Game:
    return factories.two_player_game(alice, bob, name=name)


def test_two_games_of_one_name_are_told_apart_in_subject_and_first_line(alice, bob):
    first, second = two_player_game(alice, bob, "Harbour 27"), two_player_game(alice, bob, "Harbour 27")
    other = two_player_game(alice, bob, "Pier 4")
    carol = User.objects.create_user(email="carol@example.com", display_name="carol")
    alone = two_player_game(carol, bob, "Harbour 27")  # carol plays one Harbour 27 only

    def started(game: Game, user: User):
        return emails.build_message(latest(Kind.GAME_STARTED, game=game, user=user))

    for game in (first, second):
        message = started(game, alice)
        name = f"Harbour 27 · {str(game.public_id)[:6]}"
        assert message.subject == f"Manhattan: {name}"
        assert headline(message).startswith(f"Manhattan {name}: the game has started")
    assert started(first, alice).subject != started(second, alice).subject
    assert started(other, alice).subject == "Manhattan: Pier 4"
    assert started(alone, carol).subject == "Manhattan: Harbour 27"

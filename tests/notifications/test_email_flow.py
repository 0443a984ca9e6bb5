"""The flow by email has no dead ends and says what is true: a refusal of a
reply to an earlier position invites a reply (with a Reply-To) only when it
is the player's turn; the second colour's selection in a two-player game
gets its own email, whose reply plays; a reply after a timeout gives the
seat back; each game in the digest has a reply address of its own."""

from __future__ import annotations

import re
from datetime import timedelta
from email.message import EmailMessage

import pytest
from anymail.inbound import AnymailInboundMessage
from django.utils import timezone

from games import engine, services, store
from notifications import digests, emails, reminders
from notifications.models import Kind, Notification, Preference
from notifications.replies import REPLYABLE, handle_inbound
from tests.factories import act, digest_time, greedy_move, placement_turn_of, play_until
from tests.support.mail import latest, parts

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


def _selection(game) -> str:
    state = store.state_of(game)
    legal = engine.legal_actions(engine.player_view(state, 0)).selection
    assert legal is not None
    pieces = [size for size in (1, 2, 3, 4) for _ in range(legal.reserve[size - 1])][: legal.count]
    return engine.format_action(engine.SelectPieces(pieces=tuple(pieces)))


def test_the_second_colours_selection_gets_its_own_email_and_is_played_by_reply(started_game):
    game = started_game
    play_until(game, lambda g: g.phase == engine.SELECTION and g.to_act_seat == 0)
    before = Notification.objects.filter(seat=0, kind__in=REPLYABLE).order_by("-pk").first()
    assert before is not None
    assert reply(before, _selection(game), "<first-colour@x>").accepted
    game.refresh_from_db()
    if not (game.phase == engine.SELECTION and game.to_act_seat == 0):
        pytest.skip("this deal gives the seat no second selection in a row")

    second = latest(Kind.YOUR_TURN, seat=0)
    assert second.pk != before.pk
    assert second.context["seq"] == game.version
    assert emails.build_message(second).reply_to, "its own reply address"
    version = game.version
    assert reply(second, _selection(game), "<second-colour@x>").accepted
    game.refresh_from_db()
    assert game.version > version


def test_a_reply_after_a_timeout_gives_the_seat_back_and_says_so(started_game):
    game = started_game
    placement_turn_of(game, 0)
    assert reminders.time_out_absent_players(timezone.now() + timedelta(days=8)) == 0  # the warning
    assert reminders.time_out_absent_players(timezone.now() + timedelta(days=9)) == 1  # the bot moved for her
    timed_out = latest(Kind.TIMEOUT, seat=0)
    assert game.seats.get(index=0).absent_since is not None

    reply(timed_out, "Sorry, I was away. Back now!", "<back@x>")

    assert game.seats.get(index=0).absent_since is None
    answer = emails.build_message(latest(Kind.MOVE_REFUSED, seat=0))
    assert "Welcome back" in str(answer.body)
    # Her next turn is hers again: an email of its own, and no bot move for her.
    play_until(game, lambda g: g.to_act_seat == 0)
    game.refresh_from_db()
    services.play_bot_turns(game_id=game.public_id)
    game.refresh_from_db()
    assert game.to_act_seat == 0
    assert latest(Kind.YOUR_TURN, seat=0).context["seq"] == game.version


def test_each_game_in_the_digest_has_its_own_reply_address_that_plays(started_game, alice):
    Preference.objects.create(user=alice, frequency=Preference.Frequency.DAILY_DIGEST)
    placement_turn_of(started_game, 0)
    assert digests.send_digests(now=digest_time()) == 1
    body, html = parts(emails.build_message(latest(Kind.DIGEST)))
    found = re.search(r"To move by email, write your move to: (\S+)", body)
    assert found is not None, body
    address = found.group(1)
    assert f"mailto:{address}" in html

    message = EmailMessage()
    message["From"] = "Alice <alice@example.com>"
    message["To"] = address
    message["Subject"] = "Re: your daily digest"
    message["Message-ID"] = "<from-the-digest@x>"
    state = store.state_of(started_game)
    p = engine.legal_actions(engine.player_view(state, 0)).placements[0]
    message.set_content(engine.format_action(engine.PlacePiece(card=p.card, city=p.city, size=p.size, colour=p.colour)))
    version = started_game.version
    assert handle_inbound(AnymailInboundMessage.parse_raw_mime_bytes(message.as_bytes())).accepted
    started_game.refresh_from_db()
    assert started_game.version > version


def test_two_games_of_one_name_are_told_apart_in_the_digest(alice, bob):
    Preference.objects.create(user=alice, frequency=Preference.Frequency.DAILY_DIGEST)
    games = [
        services.create_game(
            creator=alice,
            options={"players": 2, "start_player": 0},
            seats=[services.SeatSpec("me"), services.SeatSpec("bot", bot="random")],
            name="Harbour",
        )
        for _ in range(2)
    ]
    assert digests.send_digests(now=digest_time()) == 1
    body, _html = parts(emails.build_message(latest(Kind.DIGEST)))
    for game in games:
        assert f"Game Harbour · {str(game.public_id)[:6]}" in body

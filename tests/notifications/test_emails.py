"""Every kind of email, built from a notification written by the services as
the game is really played: subject, text and HTML parts, headers, links and
each kind's own content. Delivery and preferences:
tests/notifications/test_email_delivery.py."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.conf import settings
from django.urls import reverse
from django.utils import timezone

from accounts import links
from accounts.models import User
from accounts.services import request_sign_in_link
from games import engine, services, store
from games.models import Game
from notifications import emails, exports, outbox, reminders
from notifications.models import Kind, Notification
from notifications.replies import handle_inbound
from notifications.reply_address import _signature, reply_address
from tests.factories import placement_turn_of, play_until
from tests.support.emails import (
    assert_game_sections,
    assert_headers,
    assert_mail_safe_html,
    assert_rendered,
    finish,
    make,
    reply_to,
    seat_view,
    the_link,
)
from tests.support.mail import headline, latest, parts, visible_text

pytestmark = pytest.mark.django_db


@pytest.fixture
def notification_of(started_game, alice, bob):
    return lambda kind: make(kind, started_game, alice, bob)


# --- every kind --------------------------------------------------------------------------


@pytest.mark.parametrize("kind", Kind.values)
def test_every_kind_renders_both_parts_with_its_link_and_headers(kind, notification_of):
    notification = notification_of(kind)
    message = emails.build_message(notification)
    text, markup = parts(message)

    assert message.subject.strip()
    assert "\n" not in message.subject
    assert len(message.subject) < 120
    assert message.to == [notification.email]
    assert message.from_email == settings.DEFAULT_FROM_EMAIL
    assert_rendered(text)
    assert_rendered(visible_text(markup))
    assert_mail_safe_html(markup)
    assert_headers(notification, message)

    if kind == Kind.DIGEST:
        # Every link of the digest is signed like a game email's (issue 12).
        assert the_link(text, markup, links.PAGE).page == "games"
        data = the_link(text, markup, links.GAME)
        assert data.email == notification.email
        assert data.game in notification.context["games"]
        assert settings.SITE_URL + reverse("games:list") not in text
    elif kind == Kind.DATA_EXPORT:
        # Its own signed link, to the document, and a clear button.
        link = re.search(r"(http\S+/mail/export/\S+/)", text)
        assert link, text
        assert f'href="{link.group(1)}"' in markup
        assert exports.read_link(link.group(1).rstrip("/").rsplit("/", 1)[1]) is not None
    else:
        purpose = {Kind.LOGIN: links.LOGIN, Kind.INVITATION: links.INVITE}.get(kind, links.GAME)
        data = the_link(text, markup, purpose)
        assert data.email == notification.email
        if notification.game is not None:
            assert data.game == str(notification.game.public_id)
        # The link is a clear button in the HTML.
        assert re.search(r'<td align="center" bgcolor="#1f6f50"[^>]*>\s*<a href="http', markup)

    if kind in (Kind.LOGIN, Kind.INVITATION, Kind.DIGEST, Kind.SEAT_ANSWERED, Kind.DATA_EXPORT):
        assert "Your hand" not in text
    else:
        assert_game_sections(notification, text, markup)
        assert "The board, seen from the south side" in text

    if notification.user is not None and kind != Kind.LOGIN:
        # The footer's preferences link is signed too: it signs in and lands on the preferences.
        assert the_link(text, markup, links.PAGE).page in ("preferences", "games")
        assert settings.SITE_URL + reverse("notifications:preferences") not in text

    if "unsubscribe_link" in emails.email_context(notification):
        assert "To stop receiving this kind of email" in text
        assert "Stop receiving this kind of email" in markup


# --- each kind's own content ---------------------------------------------------------------


def test_the_creator_hears_who_joined_and_who_declined(alice, bob):
    lobby = services.create_game(
        creator=alice,
        name="Harbour 27",
        options={"players": 3},
        seats=[services.SeatSpec("me"), services.SeatSpec("invite", email=bob.email), services.SeatSpec("open")],
    )
    services.decline_invitation(game=lobby, user=bob)
    declined = emails.build_message(latest(Kind.SEAT_ANSWERED, game=lobby))
    assert declined.to == [alice.email]
    assert headline(declined) == "Manhattan Harbour 27: bob declined the invitation"
    assert "The seat is open again" in parts(declined)[0]
    carol = User.objects.create_user(email="carol@example.com", display_name="carol")
    services.join_game(game=lobby, user=carol)
    joined = emails.build_message(latest(Kind.SEAT_ANSWERED, game=lobby))
    assert headline(joined) == "Manhattan Harbour 27: carol joined"
    assert "1 seat is still open; the game starts by itself when every seat is taken." in parts(joined)[0]
    # The last seat: no "joined" email, the game starts and its email says who plays.
    services.join_game(game=lobby, user=User.objects.create_user(email="dave@example.com"))
    assert Notification.objects.filter(kind=Kind.SEAT_ANSWERED, game=lobby).count() == 2
    assert Notification.objects.filter(kind=Kind.GAME_STARTED, game=lobby, email=alice.email).exists()


def test_game_started_asks_the_start_player_to_select_and_explains_replies(started_game, alice):
    notification = latest(Kind.GAME_STARTED, seat=0)
    message = emails.build_message(notification)
    text, markup = parts(message)
    seen = visible_text(markup)

    started_game.refresh_from_db()
    assert headline(message) == f"Manhattan {started_game.title}: the game has started, and it is your turn"
    for part in (text, seen):
        assert "Your game of Manhattan has started: 2 players, 6 rounds." in part
        assert "Your colours: red, green" in part
        assert "Your move: choose 4 pieces of red for this round from your reserve." in part
        assert "Write your move on the first line of your reply" in part
        assert re.search(r"select( [1-4]){4}\b", part)  # a legal selection from her reserve
    assert message.reply_to == [reply_address(notification)]


def test_game_started_tells_the_other_player_who_is_to_move(started_game, bob):
    notification = latest(Kind.GAME_STARTED, seat=1)
    message = emails.build_message(notification)
    text, markup = parts(message)

    assert headline(message).endswith(": the game has started")
    assert "Nothing to do for now: waiting for alice to move." in text
    assert "Nothing to do for now: waiting for alice to move." in visible_text(markup)
    assert "first line of your reply" not in text + markup, "no move's hint when it is not their turn"
    # A reply to it is table talk (notifications.replies): its address says so, and no move is offered.
    assert message.reply_to == [reply_address(notification)]
    assert "Reply to this email to write to the other players at the table (it plays no move)." in text
    assert "you (blue, yellow): 0" in text


def test_your_turn_has_a_signed_reply_to_and_a_legal_example_move(started_game):
    placement_turn_of(started_game, 0)
    notification = latest(Kind.YOUR_TURN, seat=0)
    message = emails.build_message(notification)
    text, markup = parts(message)

    address = message.reply_to[0]
    version = notification.context["seq"]
    assert address == f"play+{notification.pk}v{version}x{_signature(notification.pk, version)}@localhost"
    assert message.message()["Reply-To"] == address
    assert headline(message).startswith(f"Manhattan {started_game.title}: your turn (round 1 of 6)")

    example = re.search(r"for example:\n {4}(.+)\n", text)
    assert example is not None
    assert f">{example.group(1)}</pre>" in markup
    state = store.state_of(started_game, upto=notification.context["seq"])
    assert state is not None
    action = engine.parse_action(example.group(1))
    assert action in engine.enumerate_actions(engine.player_view(state, 0)), "the example is a legal move"
    assert "You play two colours: add the colour to your move" in text


def test_round_scored_shows_the_round_points(started_game):
    play_until(started_game, lambda g: Notification.objects.filter(kind=Kind.ROUND_SCORED).exists())
    notification = latest(Kind.ROUND_SCORED, seat=1)
    text, markup = parts(emails.build_message(notification))
    points = seat_view(notification)["round_scores"][-1]

    assert headline(emails.build_message(notification)).endswith("round 1 of 6 has been scored")
    assert "Round 1 of 6 of your game of Manhattan has been scored." in text
    seen = visible_text(markup)
    for colour, n in points.items():
        assert f"- {colour}: {n}\n" in text
        assert f"{colour} {n}" in seen


def test_game_over_names_the_winner_and_shows_final_scores(started_game):
    finish(started_game)
    for seat in (0, 1):
        notification = latest(Kind.GAME_OVER, seat=seat)
        message = emails.build_message(notification)
        text, markup = parts(message)
        view = seat_view(notification)
        won = seat in view["winners"]
        other = "bob" if seat == 0 else "alice"

        if won and len(view["winners"]) == 1:
            assert headline(message).endswith("the game is over, and you won!")
            assert "Congratulations, you won the game!" in text
            assert "Congratulations, you won the game!" in visible_text(markup)
        else:
            assert headline(message).endswith("the game is over")
            assert "Winner" in text
            assert other in text.split("Winner", 1)[1].split("\n", 1)[0]
        assert "Your game of Manhattan is over." in text
        for player in view["players"]:
            assert f"): {player['score']}\n" in text
        assert "Your hand" not in text, "no hand or pieces once the game is over"
        assert "Your pieces" not in visible_text(markup)


@pytest.mark.parametrize(
    ("level", "subject", "wording"),
    [
        (1, "a reminder, it is your turn", "A friendly reminder: it is your turn"),
        (2, "your game is still waiting for your move", "Please play your turn soon."),
        (3, "move soon, or a bot will move for you", "a bot will move for you"),
    ],
)
def test_reminders_escalate(started_game, level, subject, wording):
    placement_turn_of(started_game, 0)
    now = timezone.now()
    for _ in range(level):
        now += timedelta(days=2)
        assert reminders.send_due_reminders(now) == 1
    notification = latest(Kind.REMINDER, seat=0)
    assert notification.context["level"] == level
    message = emails.build_message(notification)
    text, markup = parts(message)

    assert headline(message).endswith(subject)
    assert wording in text
    assert wording in visible_text(markup)
    assert ("a bot will move for you" in text) == (level >= 3)
    assert message.reply_to == [reply_address(notification)]
    assert "Write your move on the first line of your reply" in text


def test_a_last_reminder_without_a_timeout_does_not_mention_the_bot(started_game):
    Game.objects.filter(pk=started_game.pk).update(timeout_hours=None)
    placement_turn_of(started_game, 0)
    notification = outbox.enqueue(
        kind=Kind.REMINDER,
        key="reminder-no-timeout",
        email="alice@example.com",
        user=started_game.creator,
        game=started_game,
        seat=0,
        context={"seq": started_game.version, "level": 4},
    )
    assert notification is not None
    message = emails.build_message(notification)
    assert "This is reminder number 4" in message.body
    assert not re.search(r"\bbot\b", message.subject + message.body)


def test_timeout_says_the_greedy_bot_moved(started_game):
    placement_turn_of(started_game, 0)
    assert reminders.time_out_absent_players(timezone.now() + timedelta(days=8)) == 0  # the warning first
    assert reminders.time_out_absent_players(timezone.now() + timedelta(days=9)) == 1
    notification = latest(Kind.TIMEOUT, seat=0)
    message = emails.build_message(notification)
    text, markup = parts(message)

    assert headline(message).endswith("a bot moved for you")
    sentence = "You did not move within 168 hours, so a bot made one move for you"
    assert sentence in text
    assert sentence in visible_text(markup)
    assert len(message.reply_to) == 1  # not her turn now, but a reply gives her seat back


def test_move_refused_shows_the_move_the_reason_the_pointer_and_the_options(started_game):
    placement_turn_of(started_game, 0)
    handle_inbound(reply_to(latest(Kind.YOUR_TURN, seat=0), "card 5 town 9 size 2"))
    notification = latest(Kind.MOVE_REFUSED, seat=0)
    message = emails.build_message(notification)
    text, markup = parts(message)
    reason = "city must be from 1 to 6 (at '9', column 13)."

    assert headline(message).endswith("your move was not accepted")
    assert "You wrote: card 5 town 9 size 2" in text
    assert f"Why: {reason}" in text
    assert "card 5 town 9 size 2\n            ^" in text
    assert "card 5 town 9 size 2\n            ^</pre>" in markup
    assert f"Why: {reason}" in visible_text(markup)
    assert "Nothing was played: it is still your turn." in text
    assert "You can play:" in text
    assert "You can play:" in visible_text(markup)
    assert message.reply_to == [reply_address(notification)], "they can reply again"


def test_invitation_names_the_inviter_and_the_way_to_decline(started_game, bob):
    notification = latest(Kind.INVITATION, email=bob.email)
    message = emails.build_message(notification)
    text, markup = parts(message)
    seen = visible_text(markup)

    assert headline(message) == "alice invites you to play Manhattan"
    for part in (text, seen):
        assert "alice invites you to a game of Manhattan for 2 players." in part
        assert "you can decline it on the same page" in part
    data = the_link(text, markup, links.INVITE)
    assert (data.seat, data.game) == (1, str(started_game.public_id))


def test_an_invitation_to_someone_without_an_account_stops_invitations_in_one_click(alice):
    game = services.create_game(
        creator=alice,
        options={"players": 2},
        seats=[services.SeatSpec("me"), services.SeatSpec("invite", email="newcomer@example.com")],
    )
    notification = latest(Kind.INVITATION, email="newcomer@example.com")
    assert notification.user is None
    assert notification.game == game
    message = emails.build_message(notification)
    assert message.body.startswith("alice invites you to play Manhattan\n\nHello,\n")
    # No account to unsubscribe: the header's link stops invitations to the address (issue 12).
    assert "/mail/no-invitations/" in message.message()["List-Unsubscribe"]
    assert_mail_safe_html(parts(message)[1])


def test_login_link_expires_and_may_be_ignored(alice):
    request_sign_in_link(alice.email)
    notification = latest(Kind.LOGIN)
    message = emails.build_message(notification)
    text, markup = parts(message)

    assert message.subject == "Your sign-in link for Manhattan by mail"
    for part in (text, visible_text(markup)):
        assert "expires in 2 hours" in part
        assert "If you did not ask for this link, ignore this email." in part
    assert the_link(text, markup, links.LOGIN).user_id == alice.pk
    assert message.reply_to == []
    assert "List-Unsubscribe" not in message.message()


def test_login_link_for_a_new_address(db):
    request_sign_in_link("Someone.New@Example.com")
    notification = latest(Kind.LOGIN)
    text, markup = parts(emails.build_message(notification))
    data = the_link(text, markup, links.LOGIN)
    # The account is made with the link, so the link names it and works once.
    assert data.email == "someone.new@example.com"
    assert data.user_id == User.objects.get(email="someone.new@example.com").pk

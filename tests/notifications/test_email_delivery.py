"""Delivering the emails (once, by the outbox and its sweep) and the
recipient's preferences: unsubscribed kinds, no game mail, the daily digest,
the recipient's language."""

from __future__ import annotations

import re

import pytest
from django.core import mail

from accounts import links
from accounts.services import request_sign_in_link
from notifications import digests, emails, outbox
from notifications.models import Kind, Notification, Preference
from notifications.replies import handle_inbound
from tests.factories import digest_time, placement_turn_of
from tests.support.emails import LINK, assert_game_sections, assert_mail_safe_html, assert_rendered, reply_to
from tests.support.mail import held_back, latest, parts, prefer

pytestmark = pytest.mark.django_db


# --- delivery and preferences ------------------------------------------------------------


def test_deliver_sends_once(started_game, mailoutbox):
    notification = latest(Kind.GAME_STARTED, seat=0)

    assert outbox.deliver(notification.pk) is True
    assert outbox.deliver(notification.pk) is False

    assert len(mailoutbox) == 1
    sent = mailoutbox[0]
    assert sent.to == ["alice@example.com"]
    assert sent.extra_headers["Message-ID"] == notification.message_id
    notification.refresh_from_db()
    assert notification.status == Notification.Status.SENT
    assert notification.sent is not None
    assert notification.attempts == 1


def test_the_sweep_delivers_everything_pending_once(started_game, mailoutbox):
    assert outbox.sweep_outbox() == 3  # the invitation and two "game started"
    assert outbox.sweep_outbox() == 0
    assert sorted(m.to[0] for m in mailoutbox) == ["alice@example.com", "bob@example.com", "bob@example.com"]
    assert len({m.extra_headers["Message-ID"] for m in mailoutbox}) == 3


def test_an_unsubscribed_kind_is_skipped(started_game, alice, mailoutbox):
    prefer(alice, unsubscribed=[Kind.YOUR_TURN])
    placement_turn_of(started_game, 0)
    held_back(latest(Kind.YOUR_TURN, seat=0), Notification.Status.SKIPPED)
    # Other kinds still arrive.
    assert outbox.deliver(latest(Kind.GAME_STARTED, seat=0).pk) is True


def test_frequency_none_skips_game_mail_but_not_sign_in_links(started_game, alice, mailoutbox):
    prefer(alice, frequency=Preference.Frequency.NONE)
    held_back(latest(Kind.GAME_STARTED, seat=0), Notification.Status.SKIPPED)

    request_sign_in_link(alice.email)
    assert outbox.deliver(latest(Kind.LOGIN).pk) is True
    assert [m.subject for m in mailoutbox] == ["Your sign-in link for Manhattan by mail"]


def test_daily_digest_gathers_turns_into_one_email(started_game, alice, mailoutbox):
    prefer(alice, frequency=Preference.Frequency.DAILY_DIGEST)
    placement_turn_of(started_game, 0)
    held_back(latest(Kind.YOUR_TURN, seat=0), Notification.Status.DIGESTED)

    assert digests.send_digests(now=digest_time()) == 1
    assert digests.send_digests(now=digest_time()) == 0, "one digest a day"
    digest = latest(Kind.DIGEST)
    assert digest.context["games"] == [str(started_game.public_id)]
    assert outbox.deliver(digest.pk) is True
    assert outbox.deliver(digest.pk) is False

    assert len(mailoutbox) == 1
    sent = mailoutbox[0]
    assert sent.subject == "Manhattan: 1 game is waiting for your move"
    # Signed links that sign in and land on the game, and on the list.
    game_links = [m for m in LINK.finditer(str(sent.body)) if m.group(1) == links.GAME]
    assert links.read_token(links.GAME, game_links[0].group(2)).game == str(started_game.public_id)
    assert any(m.group(1) == links.PAGE for m in LINK.finditer(str(sent.body)))
    assert "update" in sent.body
    assert len(mail.outbox) == 1


def test_a_four_player_game_against_bots(bot_game):
    started = latest(Kind.GAME_STARTED, seat=0)
    text, markup = parts(emails.build_message(started))
    assert "Your move: choose 6 pieces of red for this round from your reserve." in text
    assert re.search(r"\n    select( [1-4]){6}\n", text)
    assert "Bot 2 (greedy bot) (blue): 0" in text
    assert "Bot 3 (random bot) (green): 0" in text
    assert_game_sections(started, text, markup)

    placement_turn_of(bot_game, 0)
    turn = latest(Kind.YOUR_TURN, seat=0)
    text, markup = parts(emails.build_message(turn))
    assert_game_sections(turn, text, markup)
    assert "You play two colours" not in text
    example = re.search(r"for example:\n {4}(.+)\n", text)
    assert example is not None
    assert not example.group(1).endswith("red"), "a one-colour player names no colour"


def test_an_email_is_written_in_the_recipients_language(started_game, alice):
    alice.language = "de"
    alice.save()
    message = emails.build_message(latest(Kind.GAME_STARTED, seat=0))
    text, markup = parts(message)
    assert '<html lang="de">' in markup
    assert_rendered(text)
    assert_mail_safe_html(markup)


def test_a_refused_reply_is_explained_in_the_players_language_with_its_rule_once(started_game, alice):
    alice.language = "fr"
    alice.save()
    notification = latest(Kind.GAME_STARTED, seat=0)
    outcome = handle_inbound(reply_to(notification, "select 1 1 1 1 1 1 1"))
    assert not outcome.accepted
    text, _markup = parts(emails.build_message(latest(Kind.MOVE_REFUSED, seat=0)))
    assert "R9: choisissez exactement 4 éléments ; vous en avez choisi 7." in text
    assert "R9: R9" not in text

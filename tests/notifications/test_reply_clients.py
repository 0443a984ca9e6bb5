"""Replies as real mail clients write them: HTML-only bodies, quoted history
in the common clients' shapes and in the site's five languages, moves below
the quote, and the example each email gives in the player's language."""

from __future__ import annotations

import re

import pytest
from anymail.inbound import AnymailInboundMessage

from games import engine
from games.models import GameEvent
from notifications import emails
from notifications.inbound.body import move_line
from notifications.inbound.html_text import html_to_text
from notifications.models import Kind
from notifications.replies import handle_inbound
from tests.support import mail_samples
from tests.support.mail import parts, your_turn_by_email

pytestmark = [pytest.mark.django_db]


@pytest.fixture
def turn(started_game):
    """Alice is to place a piece: her "your turn" email, its reply address, and a legal move."""
    notification, address, action = your_turn_by_email(started_game, -1)
    return started_game, notification, address, action


def played(game, version):
    event = GameEvent.objects.filter(game=game, seq=version + 1).first()
    assert event is not None, "nothing was played"
    p = event.payload
    return engine.PlacePiece(card=p["card"], city=p["city"], size=p["size"], colour=p["colour"])


def receive(raw: bytes):
    return handle_inbound(AnymailInboundMessage.parse_raw_mime_bytes(raw))


@pytest.mark.parametrize("client", sorted(mail_samples.CLIENTS))
def test_a_reply_from_each_common_client_plays_its_move_not_the_quoted_one(turn, client):
    game, _notification, address, action = turn
    version = game.version
    raw = mail_samples.CLIENTS[client](address, engine.format_action(action), f"<{client}@mail.example.com>")

    outcome = receive(raw)

    assert outcome.accepted, outcome.reason
    assert played(game, version) == action
    assert not latest_refusal_exists()


def latest_refusal_exists() -> bool:
    from notifications.models import Notification

    return Notification.objects.filter(kind=Kind.MOVE_REFUSED).exists()


@pytest.mark.parametrize("language", sorted(mail_samples.WROTE))
@pytest.mark.parametrize("posting", ["top", "bottom"])
def test_a_reply_in_each_language_below_or_above_the_quote_plays(turn, language, posting):
    game, _notification, address, action = turn
    version = game.version
    move = engine.format_action(action, language=language)
    wrote = mail_samples.WROTE[language]
    if posting == "top":
        raw = mail_samples.gmail_html_only(address, move, f"<{language}@x>", wrote=wrote)
    else:
        raw = mail_samples.thunderbird_bottom_posted(address, move, f"<{language}@x>").replace(
            b"On 01/01/2024 10:00, Manhattan by mail wrote:", wrote.encode()
        )

    outcome = receive(raw)

    assert outcome.accepted, outcome.reason
    assert played(game, version) == action


@pytest.mark.parametrize("language", ["en", "de", "nl", "fr", "ko"])
def test_the_example_in_each_email_is_in_the_players_language_and_plays_as_written(turn, alice, language):
    game, notification, _address, _action = turn
    alice.language = language
    alice.save(update_fields=["language"])
    notification.refresh_from_db()
    message = emails.build_message(notification)
    text, markup = parts(message)
    example = _example(text)
    words = {"en": "card", "de": "Karte", "nl": "kaart", "fr": "carte", "ko": "카드"}
    assert example.startswith(words[language]), example
    assert example in markup
    version = game.version

    outcome = receive(mail_samples.gmail(str(message.reply_to[0]), example, f"<example-{language}@x>"))

    assert outcome.accepted, outcome.reason
    assert played(game, version) == engine.parse_action(example)


def _example(text: str) -> str:
    """The indented example line of the reply hint."""
    match = re.search(r"\n    (\S[^\n]*)\n", text)
    assert match, text
    return match.group(1).strip()


def test_html_is_read_as_a_person_reads_it():
    markup = (
        "<html><head><title>t</title><style>p { color: red }</style><script>var move = 'card 9';</script></head>"
        "<body><p>card&nbsp;5 &amp; city&#32;3</p><table><tr><td>size</td><td>2</td></tr></table>"
        "<ul><li>one</li><li>two</li></ul><blockquote><p>quoted</p><blockquote>deeper</blockquote></blockquote>"
        "</body></html>"
    )
    assert html_to_text(markup).split("\n") == ["card 5 & city 3", "size 2", "one", "two", "> quoted", "> > deeper"]


def test_only_the_players_own_lines_count():
    assert move_line("\n\n> card 1 city 1 size 1\n> \n") == ""
    assert move_line("-----Original Message-----\nFrom: a\nSent: b\n\ncard 1 city 1 size 1") == ""
    assert move_line("Von: Manhattan\nGesendet: Montag\nAn: alice\nBetreff: Zug\n\nKarte 1 Stadt 1 Größe 1") == ""
    # A "… wrote:" line the library does not know, above a quote, is still a header.
    assert move_line("Пн, 1 янв. 2024 г. в 10:00, Manhattan <p@x>:\n> select 1 1 2 3 4 4\n\n5 3 2") == "5 3 2"

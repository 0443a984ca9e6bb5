"""Hostile and forged mail at the inbound webhook, as raw MIME: a forged
sender whose SPF and DKIM pass only for the forger's own domain, a message
nested a thousand levels deep, a move hidden in the HTML, two replies whose
Message-IDs differ only after 200 characters, a 10 MB reply (read in bounded,
linear time), and a request without the webhook's credentials."""

from __future__ import annotations

import base64
import json
import time
from email.message import EmailMessage

import pytest
from django.conf import settings

from games import engine
from games.models import GameEvent
from games.talk.models import TableMessage
from notifications.inbound import screening
from notifications.models import InboundRefusal, Reply
from tests.support.mail import your_turn_by_email
from tests.support.waiting import within

pytestmark = [
    pytest.mark.django_db,
]
WEBHOOK = "/inbound/sendgrid/inbound/"


@pytest.fixture
def turn(started_game):
    """Alice is to place a piece: her reply address, and two different legal moves."""
    _, address, first = your_turn_by_email(started_game, 0)
    _, _, last = your_turn_by_email(started_game, -1)
    moves = [first, last]
    assert moves[0] != moves[1]
    return started_game, address, moves


def auth(credentials: str | None = None) -> dict[str, str]:
    secret = credentials if credentials is not None else settings.ANYMAIL["WEBHOOK_SECRET"]
    return {"HTTP_AUTHORIZATION": "Basic " + base64.b64encode(secret.encode()).decode()}


def reply(to: str, body: str, *, message_id: str = "<r@mail.example.com>", sender: str = "alice@example.com"):
    message = EmailMessage()
    message["From"] = f"Alice <{sender}>"
    message["To"] = to
    message["Subject"] = "Re: your turn"
    message["Message-ID"] = message_id
    message.set_content(body)
    return message


def post(client, raw: bytes, **fields: str):
    return client.post(WEBHOOK, {"email": raw.decode("utf-8", "surrogateescape"), **fields}, **auth())


def played(game, version) -> engine.PlacePiece | None:
    event = GameEvent.objects.filter(game=game, seq=version + 1).first()
    if event is None:
        return None
    p = event.payload
    return engine.PlacePiece(card=p["card"], city=p["city"], size=p["size"], colour=p["colour"])


def envelope(sender: str) -> str:
    return json.dumps({"from": sender, "to": ["play@localhost"]})


# --- forged senders: only a pass aligned with the From domain counts ---------


@pytest.mark.parametrize(
    ("fields", "plays"),
    [
        # The forgery: SPF and DKIM pass, but for the forger's own domain.
        ({"SPF": "pass", "dkim": "{@evil.example : pass}", "envelope": envelope("mallory@evil.example")}, False),
        ({"SPF": "pass", "dkim": "none", "envelope": envelope("mallory@evil.example")}, False),
        ({"SPF": "softfail", "dkim": "{@evil.example : pass}", "envelope": envelope("alice@example.com")}, False),
        # A subdomain is aligned (relaxed); so is a signature of the parent domain.
        ({"SPF": "pass", "dkim": "none", "envelope": envelope("bounces@mail.example.com")}, True),
        ({"SPF": "fail", "dkim": "{@example.com : pass}", "envelope": envelope("mallory@evil.example")}, True),
        ({"SPF": "none", "dkim": "{@evil.example : pass}, {@mx.example.com : pass}"}, True),
        # A domain that publishes nothing cannot be authenticated: judged by its From.
        ({"SPF": "none", "dkim": "none"}, True),
    ],
)
def test_only_spf_or_dkim_aligned_with_the_from_domain_lets_a_reply_play(turn, client, fields, plays):
    game, address, moves = turn
    version = game.version
    assert post(client, reply(address, engine.format_action(moves[0])).as_bytes(), **fields).status_code == 200
    assert (played(game, version) == moves[0]) is plays
    assert InboundRefusal.objects.filter(reason=InboundRefusal.Reason.FORGED_SENDER).exists() is not plays


@pytest.mark.parametrize(
    ("signer", "plays"),
    [("mail.example.co.uk", True), ("evil.co.uk", False), ("example.co.uk.evil.example", False)],
)
def test_alignment_is_by_organizational_domain_under_the_public_suffix_list(turn, client, alice, signer, plays):
    """Under a public suffix (co.uk), two domains sharing it are strangers: "the last two labels" would align them."""
    alice.email = "alice@example.co.uk"
    alice.save()
    game, address, moves = turn
    version = game.version
    raw = reply(address, engine.format_action(moves[0]), sender="alice@example.co.uk").as_bytes()
    post(client, raw, SPF="none", dkim=f"{{@{signer} : pass}}")
    assert (played(game, version) is not None) is plays


def test_authentication_results_count_only_an_aligned_pass(turn, client):
    game, address, moves = turn
    version = game.version
    message = reply(address, engine.format_action(moves[0]))
    message["Authentication-Results"] = (
        "mx.example.net; spf=pass smtp.mailfrom=mallory@evil.example; dkim=pass header.d=evil.example"
    )
    post(client, message.as_bytes())
    assert played(game, version) is None
    assert screening.aligned("mail.example.com", "example.com")
    assert not screening.aligned(None, "example.com")


# --- a message nested a thousand levels deep --------------------------------


def nested(to: str, depth: int, move: str) -> bytes:
    head = f"From: Alice <alice@example.com>\r\nTo: {to}\r\nSubject: Re: your turn\r\nMessage-ID: <deep@x>\r\n"
    opening = "".join(f'Content-Type: multipart/mixed; boundary="b{i}"\r\n\r\n--b{i}\r\n' for i in range(depth))
    closing = "".join(f"\r\n--b{i}--\r\n" for i in reversed(range(depth)))
    return (head + opening + "Content-Type: text/plain\r\n\r\n" + move + closing).encode()


@pytest.mark.parametrize("depth", [1_000, 5_000])
def test_a_message_nested_a_thousand_levels_deep_is_dropped_politely(turn, client, depth):
    game, address, moves = turn
    version = game.version
    response = post(client, nested(address, depth, engine.format_action(moves[0])))
    assert response.status_code == 200  # not a 500 the provider retries for days
    assert played(game, version) is None
    assert InboundRefusal.objects.get().reason == InboundRefusal.Reason.UNREADABLE


def test_a_message_nested_a_few_levels_deep_is_read(turn, client):
    game, address, moves = turn
    version = game.version
    post(client, nested(address, 5, engine.format_action(moves[0])))
    assert played(game, version) == moves[0]


# --- only what a reader sees counts -----------------------------------------


def html_reply(to: str, markup: str, plain: str | None = None, message_id: str = "<html@x>") -> bytes:
    message = EmailMessage()
    message["From"] = "Alice <alice@example.com>"
    message["To"] = to
    message["Subject"] = "Re: your turn"
    message["Message-ID"] = message_id
    if plain is None:
        message.set_content(markup, subtype="html")
    else:
        message.set_content(plain)
        message.add_alternative(markup, subtype="html")
    return message.as_bytes()


@pytest.mark.parametrize(
    "hiding",
    [
        '<div style="display:none">{hidden}</div>',
        '<div style="DISPLAY: none !important"><p>{hidden}</div>',
        '<span style="visibility:hidden">{hidden}</span>',
        '<div style="font-size:0px;line-height:0">{hidden}</div>',
        '<div style="font-size: 0">{hidden}</div>',
        '<div style="mso-hide:all;max-height:0;overflow:hidden">{hidden}</div>',
        '<div style="opacity:0">{hidden}</div>',
        "<div hidden>{hidden}</div>",
    ],
)
def test_a_hidden_line_is_never_played_and_the_visible_one_is(turn, client, hiding):
    game, address, moves = turn
    version = game.version
    hidden, seen = (engine.format_action(m) for m in moves)
    markup = f"<html><body>{hiding.format(hidden=hidden)}<div>{seen}</div></body></html>"
    post(client, html_reply(address, markup))
    assert played(game, version) == moves[1]
    assert not TableMessage.objects.exists()  # the visible line was the move, not table talk


def test_when_the_plain_part_says_what_the_html_hides_the_visible_text_wins(turn, client):
    game, address, moves = turn
    version = game.version
    hidden, seen = (engine.format_action(m) for m in moves)
    markup = f'<div style="display:none">{hidden}</div><div>{seen}</div>'
    post(client, html_reply(address, markup, plain=f"{hidden}\n{seen}\n"))
    assert played(game, version) == moves[1]


# --- de-duplication on the whole Message-ID --------------------------------


def test_two_replies_whose_message_ids_share_200_characters_are_both_read(turn, client):
    _game, address, _moves = turn
    prefix = "<" + "a" * 250
    post(client, reply(address, "Good morning!", message_id=prefix + "1@x>").as_bytes())
    post(client, reply(address, "Still thinking.", message_id=prefix + "2@x>").as_bytes())
    post(client, reply(address, "Still thinking.", message_id=prefix + "2@x>").as_bytes())  # redelivered
    assert [m.text for m in TableMessage.objects.order_by("pk")] == ["Good morning!", "Still thinking."]
    assert Reply.objects.count() == 2


# --- bounded, linear reading ---------------------------------------------


def quotes(size: int) -> str:
    """``size`` characters of the worst shape known: "On … wrote:" lines, quoted and not."""
    block = "On Mon, 1 Jan 2024 at 10:00, Bob <bob@example.com> wrote:\n> select 1 1 2 3 4 4\n\n"
    return block * (size // len(block))


@pytest.mark.parametrize("size", [445_000, 10 * 1024 * 1024])
def test_reading_a_reply_is_bounded_whatever_its_quotes(turn, client, size):
    game, address, moves = turn
    version = game.version
    raw = reply(address, engine.format_action(moves[0]) + "\n\n" + quotes(size)).as_bytes()
    started = time.perf_counter()
    assert post(client, raw).status_code == 200
    elapsed = time.perf_counter() - started
    assert played(game, version) == moves[0]
    # ≈0.4 s for 10 MB on an idle machine (the move and the webhook's parsing included);
    # the bound leaves room for a loaded test machine, and is far from the quadratic 19 s of 445 KB.
    assert elapsed < within(4.0), elapsed


# --- credentials -------------------------------------------------------------


@pytest.mark.parametrize("credentials", [None, "inbound:wrong", "", "not basic auth"])
def test_the_webhook_without_or_with_wrong_credentials_answers_401_with_a_challenge(turn, client, credentials):
    _game, address, moves = turn
    headers = {} if credentials is None else auth(credentials)
    if credentials == "not basic auth":
        headers = {"HTTP_AUTHORIZATION": "Bearer xyz"}
    response = client.post(WEBHOOK, {"email": reply(address, engine.format_action(moves[0])).as_string()}, **headers)
    assert response.status_code == 401
    assert response["WWW-Authenticate"].startswith("Basic realm=")
    assert response["Content-Type"] == "application/problem+json"
    assert response.json()["code"] == "not_authenticated"

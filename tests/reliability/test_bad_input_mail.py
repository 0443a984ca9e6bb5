"""Bad reply mail and bad calls of the inbound webhook: answered by a reply,
or, for forgeries, by silence.

Part of the bad input catalogue (tests/reliability/test_bad_input_*.py): one test
per kind of bad input, through each way input comes in. Every test shows two
things: the refusal is clear, and no game changed: its events, version, status
and seats are as they were (``unchanged``). Where a refusal could hide a harness
that never reaches the game, the test then sends the same input made good and
sees it played."""

from __future__ import annotations

import time
from email.message import EmailMessage

import pytest
from anymail.inbound import AnymailInboundMessage
from django.conf import settings
from django.test import Client

from games import engine
from games.models import GameEvent
from notifications import outbox, replies
from notifications.models import Kind, Notification
from notifications.reply_address import reply_address
from tests.factories import legal_moves
from tests.support.mail import WEBHOOK, basic_auth
from tests.support.unchanged import unchanged

pytestmark = pytest.mark.django_db


# --- mail -----------------------------------------------------------------------------------------


def reply(to: str, first_line: str, *, sender: str = "Alice <alice@example.com>", charset: str = "utf-8") -> bytes:
    message = EmailMessage()
    message["From"] = sender
    message["To"] = to
    message["Subject"] = "Re: Manhattan: the game has started"
    message["Message-ID"] = f"<{time.monotonic_ns()}@mail.example.com>"
    message.set_content(f"{first_line}\n\n> It is your turn.\n")
    raw = message.as_bytes()
    if charset != "utf-8":
        raw = raw.replace(b'charset="utf-8"', f'charset="{charset}"'.encode())
    return raw


def deliver(raw: bytes) -> replies.ReplyOutcome:
    """As ``manage.py receive_email`` does."""
    return replies.handle_inbound(AnymailInboundMessage.parse_raw_mime_bytes(raw))


def webhook_auth() -> dict[str, str]:
    """The inbound webhook's own credentials, as the provider sends them."""
    return {"HTTP_AUTHORIZATION": basic_auth(settings.ANYMAIL["WEBHOOK_SECRET"])}


@pytest.fixture
def started_mail(started_game) -> Notification:
    """Alice's "game started" email, which can be answered with a move: it is her turn."""
    notification = Notification.objects.get(kind=Kind.GAME_STARTED, seat=0, game=started_game)
    assert notification.kind in replies.REPLYABLE
    assert started_game.to_act_seat == 0
    return notification


@pytest.fixture
def alices_move(started_game) -> str:
    return engine.format_action(legal_moves(started_game, 0)[0])


def test_forged_reply_token(started_game, started_mail, alices_move):
    forged = f"play+{started_mail.pk}x{'0' * 20}@localhost"
    mails = Notification.objects.count()
    with unchanged(started_game):
        outcome = deliver(reply(forged, alices_move))
        assert outcome == replies.ReplyOutcome(False, "no valid reply token")
    assert Notification.objects.count() == mails  # no answer to a forger
    assert deliver(reply(reply_address(started_mail), alices_move)).accepted


def test_right_reply_token_from_the_wrong_address(started_game, started_mail, alices_move):
    address = reply_address(started_mail)
    mails = Notification.objects.count()
    with unchanged(started_game):
        for sender in ("Bob <bob@example.com>", "alice@example.com.evil.example", "<>"):
            outcome = deliver(reply(address, alices_move, sender=sender))
            assert outcome == replies.ReplyOutcome(False, "the reply does not come from the player's address")
    assert Notification.objects.count() == mails
    assert deliver(reply(address, alices_move)).accepted


@pytest.mark.parametrize("credentials", [None, "inbound:guessed", "nobody:"])
def test_inbound_webhook_without_basic_auth(client, started_game, started_mail, alices_move, credentials):
    raw = reply(reply_address(started_mail), alices_move)
    headers = {"HTTP_AUTHORIZATION": basic_auth(credentials)} if credentials is not None else {}
    mails = Notification.objects.count()
    with unchanged(started_game):
        response = client.post(WEBHOOK, {"email": raw.decode()}, **headers)
        assert response.status_code in (400, 401, 403)
    assert Notification.objects.count() == mails
    assert client.post(WEBHOOK, {"email": raw.decode()}, **webhook_auth()).status_code == 200
    assert GameEvent.objects.filter(game=started_game).count() > started_game.version


@pytest.mark.parametrize(
    "fields",
    [
        {},
        {"subject": "neither 'email' nor 'headers'"},
        {"email": "x", "envelope": "[]"},
        {"email": "x", "envelope": '{"from": "a@example.com"}'},
        {"headers": "From: alice@example.com\n", "text": "hi", "charsets": '{"text": "x-no-such-charset"}'},
    ],
)
def test_malformed_inbound_webhook_payload(started_game, fields):
    """A request with the right credentials but not SendGrid's shape: a 400, not a 500.

    Found with this catalogue: django-anymail's SendGrid inbound view raises
    KeyError, TypeError or LookupError on these, which Django answers with a
    500 (and the provider retries)."""
    client = Client(raise_request_exception=False)
    with unchanged(started_game):
        response = client.post(WEBHOOK, fields, **webhook_auth())
        assert response.status_code == 400, response.status_code


def test_reply_in_an_unknown_charset(started_game, started_mail, alices_move):
    """A mail client's label the codec registry does not know ("unknown-8bit"
    is what some clients write): the reply is read anyway (the move is ASCII)
    or refused with a reply, never a crash.

    Found with this catalogue: ``replies._decode`` calls
    ``bytes.decode(charset)``, which raises LookupError for an unknown charset;
    through the webhook that is a 500 and through ``receive_email`` a traceback."""
    raw = reply(reply_address(started_mail), alices_move, charset="unknown-8bit")
    client = Client(raise_request_exception=False)
    response = client.post(WEBHOOK, {"email": raw.decode()}, **webhook_auth())
    assert response.status_code == 200, response.status_code
    played = GameEvent.objects.filter(game=started_game).count() > started_game.version
    assert played or Notification.objects.filter(kind=Kind.MOVE_REFUSED, game=started_game).exists()


def test_garbage_move_by_mail_is_answered(started_game, started_mail, mailoutbox):
    with unchanged(started_game):
        outcome = deliver(reply(reply_address(started_mail), "please place my tower somewhere nice"))
        assert not outcome.accepted
    refused = Notification.objects.get(kind=Kind.MOVE_REFUSED, game=started_game)
    assert outbox.deliver(refused.pk) is True
    assert [m.to for m in mailoutbox] == [["alice@example.com"]]
    assert "please place my tower somewhere nice" in mailoutbox[0].body
    assert "unknown word" in mailoutbox[0].body

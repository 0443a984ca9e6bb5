"""Mail as the tests see it: the two parts of a built email, the newest
notification of a kind, the outbox's rows, replies as mail clients write them
and the two ways they come in, and a local SMTP server (aiosmtpd) that keeps
what it is sent."""

from __future__ import annotations

import base64
import html
import io
import json
import re
import types
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from email import message_from_bytes
from email.message import EmailMessage
from email.policy import default
from email.utils import parseaddr
from typing import Any

from django.conf import settings
from django.core import mail
from django.core.mail import EmailMultiAlternatives
from django.core.management import call_command

from games import engine, store
from games.models import Game
from notifications import emails, outbox
from notifications.models import Kind, Notification
from tests.factories import placement_turn_of
from tests.support.processes import free_port

HEX = {"red": "#d64541", "blue": "#3a6fd8", "green": "#2e9e5b", "yellow": "#e6b422"}
WEBHOOK = "/inbound/sendgrid/inbound/"
QUOTED = (
    "\n"
    "On Monday, Manhattan by mail <play@localhost> wrote:\n"
    "> Manhattan Harbour 27: your turn (round 1 of 6)\n"
    ">\n"
    "> Hello alice,\n"
    ">\n"
    "> It is your turn in your game of Manhattan.\n"
    "> You can also play by replying to this email, for example:\n"
    ">     card 1 city 1 size 2\n"
)


# --- built emails ------------------------------------------------------------------------


def parts(message: EmailMultiAlternatives) -> tuple[str, str]:
    """The text body and the HTML alternative of ``message``."""
    htmls = [content for content, mimetype in message.alternatives if mimetype == "text/html"]
    assert len(htmls) == 1, message.alternatives
    return str(message.body), str(htmls[0])


def headline(message: EmailMultiAlternatives) -> str:
    """What the email is about (the subject names only the game): the text
    body's first line, which the HTML part's preheader and first line say too."""
    first = str(message.body).split("\n", 1)[0]
    markup = parts(message)[1]
    preheader = re.search(r"<div style=\"display:none[^>]*>(.*?)</div>", markup, flags=re.S)
    assert preheader is not None, markup[:800]
    assert html.unescape(preheader.group(1)).startswith(first), preheader.group(1)
    shown = re.search(r"<td style=\"padding:20px;[^>]*>\s*<p[^>]*>(.*?)</p>", markup, flags=re.S)
    assert shown is not None, markup[:1500]
    assert html.unescape(shown.group(1)) == first, "the HTML's first line"
    return first


def visible_text(markup: str) -> str:
    """What a reader of the HTML part sees, as one line of words."""
    markup = re.sub(r"<div style=\"display:none[^>]*>.*?</div>", " ", markup, flags=re.S)  # the preheader
    text = html.unescape(re.sub(r"<[^>]+>", " ", markup))
    return " ".join(text.split())


def game_over_email(user: Any) -> EmailMessage:
    """The one game-over email sent to ``user``, parsed from its bytes as a mail program would."""
    over = Notification.objects.get(kind=Kind.GAME_OVER, user=user)
    [message] = [m for m in mail.outbox if m.extra_headers.get("Message-ID") == over.message_id]
    parsed = message_from_bytes(message.message().as_bytes(), policy=default)
    assert isinstance(parsed, EmailMessage)
    return parsed


def bodies(message: EmailMessage) -> tuple[str, str]:
    """The text and the HTML body of a parsed email."""
    text, markup = message.get_body(("plain",)), message.get_body(("html",))
    assert text is not None
    assert markup is not None
    return text.get_content(), markup.get_content()


# --- the outbox --------------------------------------------------------------------------


def latest(kind: str, **filters: Any) -> Notification:
    notification = Notification.objects.filter(kind=kind, **filters).order_by("-pk").first()
    assert notification is not None, f"no {kind} notification with {filters}"
    return notification


def prefer(user: Any, **fields: Any) -> None:
    """Set ``user``'s mail preferences (``unsubscribed``, ``frequency``) as the page would."""
    preference = outbox.preference_for(user)
    for name, value in fields.items():
        setattr(preference, name, value)
    preference.save()


def held_back(notification: Notification, status: str) -> None:
    """Delivering ``notification`` sends nothing and leaves it ``status`` (skipped, digested)."""
    assert outbox.deliver(notification.pk) is False
    notification.refresh_from_db()
    assert notification.status == status
    assert mail.outbox == []


def write(user: Any, kind: str = Kind.YOUR_TURN, key: str = "k") -> Notification:
    """One notification in the outbox for ``user``, not yet delivered."""
    notification = outbox.enqueue(kind=kind, key=key, email=user.email, user=user)
    assert notification is not None
    return notification


def failing_with(error: BaseException) -> Callable[[Any], None]:
    """A mail connection's ``send`` that raises ``error``."""

    def send(message: Any) -> None:
        raise error

    return send


def your_turn_by_email(game: Game, which: int = 0) -> tuple[Notification, str, engine.PlacePiece]:
    """Seat 0's placement turn as the email brings it: the "your turn" email, the reply
    address in it, and one legal placement (``which``: its index among them) to answer with."""
    placement_turn_of(game, 0)
    notification = latest(Kind.YOUR_TURN, seat=0)
    address = str(emails.build_message(notification).reply_to[0])
    p = engine.legal_actions(engine.player_view(store.state_of(game), 0)).placements[which]
    return notification, address, engine.PlacePiece(card=p.card, city=p.city, size=p.size, colour=p.colour)


# --- replies coming in -------------------------------------------------------------------


def basic_auth(credentials: str) -> str:
    return "Basic " + base64.b64encode(credentials.encode()).decode()


def raw_reply(to: str, first_line: str, *, sender: str = "Alice <alice@example.com>", message_id: str) -> bytes:
    """A reply as a mail client writes it: the move, then the quoted original."""
    message = EmailMessage()
    message["From"] = sender
    message["To"] = to
    message["Subject"] = "Re: Manhattan: your turn"
    message["Message-ID"] = message_id
    message["In-Reply-To"] = "<original@manhattan-by-mail>"
    message.set_content(f"{first_line}\n{QUOTED}")
    return message.as_bytes()


def post_to_webhook(client: Any, raw: bytes, credentials: str | None = None) -> Any:
    """The SendGrid inbound webhook ("Send Raw"), behind HTTP basic auth."""
    auth = settings.ANYMAIL["WEBHOOK_SECRET"] if credentials is None else credentials
    headers = {"HTTP_AUTHORIZATION": basic_auth(auth)} if auth else {}
    parsed = message_from_bytes(raw)
    envelope = json.dumps({"to": [parsed["To"]], "from": parseaddr(parsed["From"])[1]})
    return client.post(WEBHOOK, {"email": raw.decode(), "envelope": envelope}, **headers)


def run_command(monkeypatch: Any, raw: bytes) -> str:
    """``manage.py receive_email`` with ``raw`` on standard input (a mail server's pipe)."""
    monkeypatch.setattr("sys.stdin", types.SimpleNamespace(buffer=io.BytesIO(raw)))
    out = io.StringIO()
    call_command("receive_email", stdout=out)
    return out.getvalue()


# --- a local SMTP server -----------------------------------------------------------------


class Inbox:
    """What the local SMTP server was sent, parsed."""

    def __init__(self) -> None:
        self.messages: list[Any] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.messages.append(message_from_bytes(envelope.content))
        return "250 OK"


@contextmanager
def smtp_server(handler: Any = None) -> Iterator[tuple[Any, int]]:
    """An aiosmtpd server on a free port of 127.0.0.1 with ``handler`` (an Inbox
    unless given): the handler and the port."""
    from aiosmtpd.controller import Controller

    inbox, port = handler if handler is not None else Inbox(), free_port()
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield inbox, port
    finally:
        controller.stop()


@contextmanager
def site_sends_to(handler: Any) -> Iterator[Any]:
    """A local SMTP server with ``handler``, and the site's mailer (the real SMTP
    backend, no TLS) pointed at it; the mailer's kept connection closed after."""
    from django.test import override_settings

    from notifications import mailer

    with smtp_server(handler) as (inbox, port):
        try:
            with override_settings(
                EMAIL_BACKEND=mailer.SMTP_BACKEND, EMAIL_HOST="127.0.0.1", EMAIL_PORT=port, EMAIL_USE_TLS=False
            ):
                yield inbox
        finally:
            mailer.close()

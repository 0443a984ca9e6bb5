"""Moves by email reply, through both ways mail comes in: django-anymail's
SendGrid inbound webhook ("Send Raw": the whole message in the ``email``
field, behind HTTP basic auth) and ``manage.py receive_email`` (a raw
message on standard input, for a mail server's pipe)."""

from __future__ import annotations

import base64
import io
import json
import types
from collections.abc import Callable
from email import message_from_bytes
from email.message import EmailMessage
from email.utils import parseaddr

import pytest
from django.conf import settings
from django.core.management import call_command
from django.urls import reverse

from games import engine, store
from games.models import GameEvent, IdempotencyKey
from notifications import emails, outbox
from notifications.models import Kind, Notification, Reply, message_hash
from notifications.reply_address import _signature
from tests.notifications.helpers import latest, parts, placement_turn_of, visible_text

pytestmark = [
    pytest.mark.django_db,
    # Anymail warns that it no longer supports SendGrid officially; its inbound parsing is what we use.
]

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


@pytest.fixture
def your_turn(started_game) -> Notification:
    """Alice's "your turn" email, as sent: it is hers to place a piece."""
    placement_turn_of(started_game, 0)
    return latest(Kind.YOUR_TURN, seat=0)


@pytest.fixture
def reply_address(your_turn) -> str:
    """The Reply-To of the email that was really built for her."""
    message = emails.build_message(your_turn)
    assert len(message.reply_to) == 1
    return str(message.reply_to[0])


@pytest.fixture
def legal_move(started_game) -> str:
    state = store.state_of(started_game)
    assert state is not None
    legal = engine.legal_actions(engine.player_view(state, 0))
    placement = legal.placements[0]
    action = engine.PlacePiece(card=placement.card, city=placement.city, size=placement.size, colour=placement.colour)
    return engine.format_action(action)


def post_to_webhook(client, raw: bytes, credentials: str | None = None):
    auth = settings.ANYMAIL["WEBHOOK_SECRET"] if credentials is None else credentials
    headers = {"HTTP_AUTHORIZATION": basic_auth(auth)} if auth else {}
    parsed = message_from_bytes(raw)
    envelope = json.dumps({"to": [parsed["To"]], "from": parseaddr(parsed["From"])[1]})
    return client.post(WEBHOOK, {"email": raw.decode(), "envelope": envelope}, **headers)


def run_command(monkeypatch, raw: bytes) -> str:
    monkeypatch.setattr("sys.stdin", types.SimpleNamespace(buffer=io.BytesIO(raw)))
    out = io.StringIO()
    call_command("receive_email", stdout=out)
    return out.getvalue()


@pytest.fixture(params=["webhook", "command"])
def receive(request, client, monkeypatch) -> Callable[[bytes], None]:
    """Deliver a raw message through one of the two inbound paths."""
    if request.param == "webhook":

        def through_webhook(raw: bytes) -> None:
            response = post_to_webhook(client, raw)
            assert response.status_code == 200, response.content

        return through_webhook

    def through_command(raw: bytes) -> None:
        run_command(monkeypatch, raw)

    return through_command


def events(game) -> int:
    return GameEvent.objects.filter(game=game).count()


def test_the_webhook_is_anymails_sendgrid_inbound_url():
    assert reverse("anymail:sendgrid_inbound_webhook") == WEBHOOK


def test_a_reply_with_a_move_on_the_first_line_plays_it(started_game, reply_address, legal_move, receive):
    before, version = events(started_game), started_game.version

    receive(raw_reply(reply_address, legal_move, message_id="<move-1@mail.example.com>"))

    started_game.refresh_from_db()
    assert started_game.version > version
    placed = GameEvent.objects.filter(game=started_game, seq=version + 1).get()
    assert placed.type == "piece_placed"
    assert placed.seat == 0
    assert (
        engine.format_action(
            engine.PlacePiece(
                card=placed.payload["card"],
                city=placed.payload["city"],
                size=placed.payload["size"],
                colour=placed.payload["colour"],
            )
        )
        == legal_move
    )
    assert events(started_game) > before
    assert not Notification.objects.filter(kind=Kind.MOVE_REFUSED).exists()
    assert Reply.objects.get().message_id == "<move-1@mail.example.com>"


def test_a_garbled_move_plays_nothing_and_is_answered(started_game, reply_address, receive, mailoutbox, your_turn):
    before = events(started_game)

    receive(raw_reply(reply_address, "plz put my tower in city 3", message_id="<garbage@mail.example.com>"))

    assert events(started_game) == before
    refused = latest(Kind.MOVE_REFUSED, seat=0)
    assert refused.context["move"] == "plz put my tower in city 3"
    assert outbox.deliver(refused.pk) is True
    assert len(mailoutbox) == 1
    sent = mailoutbox[0]
    assert sent.to == ["alice@example.com"]
    text, markup = parts(sent)
    reason = "unknown word; write e.g. 'card 5 city 3 size 2' (at 'plz', column 1)."
    assert refused.context["reason"] == reason
    assert f"Why: {reason}" in text
    assert "plz put my tower in city 3\n^" in text
    assert "<pre" in markup
    assert "plz put my tower in city 3\n^</pre>" in markup
    assert "You can play:" in text
    assert "You can play:" in visible_text(markup)
    assert "- Card " in text
    # The answer can be replied to in turn, with a token of its own.
    version = refused.context["seq"]
    assert sent.reply_to == [f"play+{refused.pk}v{version}x{_signature(refused.pk, version)}@localhost"]


def test_an_illegal_move_is_answered_with_the_rule(started_game, reply_address, receive, mailoutbox):
    before = events(started_game)
    state = store.state_of(started_game)
    hand = {card + 1 for card in state.hands[0]}
    missing = next(card for card in range(1, 10) if card not in hand)

    receive(raw_reply(reply_address, f"card {missing} city 1 size 1 red", message_id="<illegal@mail.example.com>"))

    assert events(started_game) == before
    refused = latest(Kind.MOVE_REFUSED, seat=0)
    assert refused.context["pointer"] == ""
    assert outbox.deliver(refused.pk) is True
    assert refused.context["reason"] in mailoutbox[0].body


def test_a_forged_token_is_ignored(started_game, your_turn, legal_move, receive, mailoutbox):
    before = events(started_game)
    notifications_before = Notification.objects.count()
    forged = f"play+{your_turn.pk}v{your_turn.context['seq']}x{'0' * 20}@localhost"

    receive(raw_reply(forged, legal_move, message_id="<forged@mail.example.com>"))

    assert events(started_game) == before
    assert Notification.objects.count() == notifications_before
    assert not Notification.objects.filter(kind=Kind.MOVE_REFUSED).exists()
    assert mailoutbox == []


def test_a_token_for_another_notification_is_not_accepted_with_this_ones_signature(
    started_game, your_turn, legal_move, receive
):
    before = events(started_game)
    other = latest(Kind.GAME_STARTED, seat=1)
    version = your_turn.context["seq"]
    spliced = f"play+{other.pk}v{version}x{_signature(your_turn.pk, version)}@localhost"

    receive(raw_reply(spliced, legal_move, message_id="<spliced@mail.example.com>"))

    assert events(started_game) == before


def test_a_valid_token_from_another_address_is_ignored(started_game, reply_address, legal_move, receive, mailoutbox):
    before = events(started_game)
    notifications_before = Notification.objects.count()

    for sender in ("Bob <bob@example.com>", "mallory@example.net"):
        receive(raw_reply(reply_address, legal_move, sender=sender, message_id=f"<{sender[:3]}@mail.example.com>"))

    assert events(started_game) == before
    assert Notification.objects.count() == notifications_before
    assert mailoutbox == []


def test_the_same_message_delivered_twice_plays_once(started_game, reply_address, legal_move, receive):
    raw = raw_reply(reply_address, legal_move, message_id="<twice@mail.example.com>")
    version = started_game.version

    receive(raw)
    started_game.refresh_from_db()
    after_first = started_game.version
    receive(raw)

    started_game.refresh_from_db()
    assert after_first > version
    assert started_game.version == after_first
    assert Reply.objects.count() == 1
    assert not Notification.objects.filter(kind=Kind.MOVE_REFUSED).exists()
    # The move went through the one idempotency mechanism, keyed by the reply's Message-ID.
    assert IdempotencyKey.objects.filter(game=started_game, key=message_hash("<twice@mail.example.com>")).count() == 1


def test_a_message_redelivered_through_the_other_path_plays_once(
    started_game, client, monkeypatch, reply_address, legal_move
):
    raw = raw_reply(reply_address, legal_move, message_id="<both-paths@mail.example.com>")

    assert post_to_webhook(client, raw).status_code == 200
    started_game.refresh_from_db()
    after_first = started_game.version
    assert run_command(monkeypatch, raw).startswith("accepted")

    started_game.refresh_from_db()
    assert started_game.version == after_first


def test_a_refused_message_delivered_twice_is_answered_once(started_game, reply_address, receive):
    raw = raw_reply(reply_address, "card 0 city 1 size 1", message_id="<refused-twice@mail.example.com>")

    receive(raw)
    receive(raw)

    assert Notification.objects.filter(kind=Kind.MOVE_REFUSED).count() == 1


@pytest.mark.parametrize("credentials", ["", "inbound:wrong-password", "nobody:"])
def test_the_webhook_refuses_requests_without_the_right_basic_auth(
    started_game, client, reply_address, legal_move, credentials
):
    before = events(started_game)
    notifications_before = Notification.objects.count()

    response = post_to_webhook(client, raw_reply(reply_address, legal_move, message_id="<x@y>"), credentials)

    assert response.status_code in (400, 401, 403)
    assert events(started_game) == before
    assert Notification.objects.count() == notifications_before


def test_the_command_reports_the_outcome(started_game, monkeypatch, reply_address, legal_move):
    assert run_command(monkeypatch, raw_reply(reply_address, "card 99", message_id="<a@b>")).startswith("refused: ")
    chat = raw_reply(reply_address, "hello", message_id="<e@f>")
    assert run_command(monkeypatch, chat) == "accepted: message posted\n"
    assert run_command(monkeypatch, raw_reply(reply_address, legal_move, message_id="<c@d>")) == "accepted: played\n"
    forged = reply_address.replace(reply_address.split("x", 1)[1][:20], "f" * 20)
    assert run_command(monkeypatch, raw_reply(forged, legal_move, message_id="<e@f>")) == (
        "refused: no valid reply token\n"
    )


def test_a_long_first_line_is_read_up_to_the_move(started_game, monkeypatch, reply_address, legal_move):
    padded = legal_move + " " + "," * 300  # separators are ignored by the notation

    assert run_command(monkeypatch, raw_reply(reply_address, padded, message_id="<long@x>")).startswith("accepted")

    assert Reply.objects.get().message_id == "<long@x>"

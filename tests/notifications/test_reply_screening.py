"""What is dropped or refused before a reply is played, and counted for
operators: automatic replies, forged senders, replies to an earlier
position or a finished game, too many refusals; NUL bytes never stored;
a 10 MB reply accepted at the webhook; only the configured provider's route."""

from __future__ import annotations

import base64
from email.message import EmailMessage

import pytest
from anymail.inbound import AnymailInboundMessage
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from django.test import Client

from games import engine, services
from games.models import GameEvent
from notifications import emails
from notifications.models import InboundRefusal, Kind, Notification, Reply
from notifications.replies import REFUSALS_PER_HOUR, handle_inbound
from tests.support.mail import latest, your_turn_by_email

pytestmark = [
    pytest.mark.django_db,
]


@pytest.fixture
def turn(started_game):
    notification, address, placement = your_turn_by_email(started_game)
    return started_game, notification, address, engine.format_action(placement)


def reply(to: str, body: str, *, message_id: str = "<r@mail.example.com>", **headers: str) -> EmailMessage:
    message = EmailMessage()
    message["From"] = "Alice <alice@example.com>"
    message["To"] = to
    message["Subject"] = "Re: your turn"
    message["Message-ID"] = message_id
    for name, value in headers.items():
        message[name.replace("_", "-")] = value
    message.set_content(body)
    return message


def receive(message: EmailMessage, **kwargs):
    return handle_inbound(AnymailInboundMessage.parse_raw_mime_bytes(message.as_bytes()), **kwargs)


def events(game) -> int:
    return GameEvent.objects.filter(game=game).count()


@pytest.mark.parametrize(
    "headers",
    [
        {"Auto_Submitted": "auto-replied"},
        {"Auto_Submitted": "auto-generated; owner-email=alice@example.com"},
        {"Precedence": "bulk"},
        {"Precedence": "junk"},
        {"Precedence": "list"},
        {"Precedence": "auto_reply"},
        {"X_Autoreply": "yes"},
        {"X_Autorespond": "Out of office"},
        {"Return_Path": "<>"},
    ],
)
def test_automatic_replies_are_dropped_without_an_answer(turn, headers):
    game, _n, address, _move = turn
    before = events(game)
    outcome = receive(reply(address, "I am out of the office until Monday.", **headers))
    assert not outcome.accepted
    assert events(game) == before
    assert not Notification.objects.filter(kind=Kind.MOVE_REFUSED).exists()
    assert InboundRefusal.objects.get().reason == InboundRefusal.Reason.AUTO_REPLY


def test_auto_submitted_no_is_a_person(turn):
    _game, _n, address, move = turn
    assert receive(reply(address, move, Auto_Submitted="no")).accepted


def test_refusal_emails_to_one_player_are_capped(turn):
    _game, _n, address, _move = turn
    for i in range(REFUSALS_PER_HOUR + 3):
        receive(reply(address, f"hello {i}", message_id=f"<loop-{i}@x>"))
    assert Notification.objects.filter(kind=Kind.MOVE_REFUSED).count() == REFUSALS_PER_HOUR
    assert InboundRefusal.objects.filter(reason=InboundRefusal.Reason.CAPPED).count() == 3


def test_a_reply_to_an_earlier_position_is_not_played_and_gets_the_position_now(turn):
    game, notification, address, move = turn
    # The player moved on the page meanwhile; then bob; the old email's reply arrives.
    services.submit_action(
        game_id=game.public_id, user=notification.user, action=engine.parse_action(move), expected_version=game.version
    )
    game.refresh_from_db()
    before = events(game)

    outcome = receive(reply(address, move, message_id="<late@x>"))

    assert not outcome.accepted
    assert events(game) == before
    answer = latest(Kind.MOVE_REFUSED, seat=0)
    assert answer.context["stale"] is True
    assert answer.context["seq"] == game.version
    fresh = str(emails.build_message(answer).body)
    assert "earlier position" in fresh
    assert InboundRefusal.objects.get().reason == InboundRefusal.Reason.STALE


def test_reply_addresses_expire_with_the_game(turn, alice):
    game, _n, address, move = turn
    services.abandon_game(game=game, operator=alice)
    outcome = receive(reply(address, move))
    assert not outcome.accepted
    assert not Notification.objects.filter(kind=Kind.MOVE_REFUSED).exists()
    assert InboundRefusal.objects.get().reason == InboundRefusal.Reason.GAME_OVER


@pytest.mark.parametrize(
    ("results", "refused"),
    [
        ("mx.example.net; spf=fail smtp.mailfrom=alice@example.com; dkim=fail header.d=example.com", True),
        ("mx.example.net; spf=softfail smtp.mailfrom=alice@example.com; dkim=none", True),
        ("mx.example.net; spf=pass smtp.mailfrom=evil.test; dkim=pass header.d=evil.test", True),
        ("mx.example.net; spf=fail smtp.mailfrom=alice@example.com; dkim=pass header.d=example.com", False),
        ("mx.example.net; spf=pass (sender ok) smtp.mailfrom=alice@example.com; dkim=fail", False),
        ("mx.example.net; spf=none; dkim=none", False),
    ],
)
def test_authentication_results_refuse_a_forged_sender(turn, results, refused):
    game, _n, address, move = turn
    before = events(game)
    outcome = receive(reply(address, move, Authentication_Results=results))
    assert outcome.accepted is not refused
    assert (events(game) == before) is refused
    assert InboundRefusal.objects.filter(reason=InboundRefusal.Reason.FORGED_SENDER).exists() is refused


def test_sendgrids_verdicts_refuse_a_forged_sender(turn, client):
    game, _n, address, move = turn
    before = events(game)
    raw = reply(address, move).as_bytes()
    auth = "Basic " + base64.b64encode(settings.ANYMAIL["WEBHOOK_SECRET"].encode()).decode()
    fields = {"email": raw.decode(), "SPF": "fail", "dkim": "{@evil.test : pass}"}
    assert client.post("/inbound/sendgrid/inbound/", fields, HTTP_AUTHORIZATION=auth).status_code == 200
    assert events(game) == before
    assert InboundRefusal.objects.get().reason == InboundRefusal.Reason.FORGED_SENDER
    fields = {"email": raw.decode().replace("<r@", "<r2@"), "SPF": "pass", "dkim": "{@example.com : pass}"}
    assert client.post("/inbound/sendgrid/inbound/", fields, HTTP_AUTHORIZATION=auth).status_code == 200
    assert events(game) > before


def test_nul_bytes_and_control_characters_never_reach_the_database(turn):
    _game, _n, address, _move = turn
    message = reply(address, "card\x00 5\x07 city 3\x1b size 2", message_id="<nul\x00@x\x01>")
    outcome = receive(message)
    assert not outcome.accepted or outcome.accepted  # read, refused or played: never a database error
    for row in Reply.objects.all():
        assert "\x00" not in row.message_id
    for refused in Notification.objects.filter(kind=Kind.MOVE_REFUSED):
        assert "\x00" not in str(refused.context)


def test_a_10_mb_reply_is_accepted_at_the_webhook_and_its_move_read(turn, client):
    game, _n, address, move = turn
    version = game.version
    message = reply(address, move + "\n\n" + "> quoted history line\n" * 20_000)
    message.add_attachment(b"\x89PNG" + b"\x00" * (8 * 1024 * 1024), maintype="image", subtype="png", filename="a.png")
    raw = message.as_bytes()
    assert len(raw) > 10 * 1024 * 1024
    auth = "Basic " + base64.b64encode(settings.ANYMAIL["WEBHOOK_SECRET"].encode()).decode()
    response = client.post("/inbound/sendgrid/inbound/", {"email": raw.decode()}, HTTP_AUTHORIZATION=auth)
    assert response.status_code == 200
    game.refresh_from_db()
    assert game.version > version


@pytest.mark.parametrize(
    "provider",
    ["amazon_ses", "brevo", "mailersend", "mailgun", "mailjet", "mailtrap", "postal", "postmark", "sendinblue",
     "sparkpost", "resend", "unisender_go", "mandrill", "sendgrid/tracking", "mailgun/inbound_mime"],
)  # fmt: skip
def test_only_the_configured_providers_route_is_mounted(provider):
    path = f"/inbound/{provider}/" if "/" in provider else f"/inbound/{provider}/inbound/"
    assert Client(raise_request_exception=False).post(path, {}).status_code == 404


def test_the_webhook_is_shut_without_a_secret(turn, client, settings):
    settings.ANYMAIL = {"WEBHOOK_SECRET": ""}
    _game, _n, address, move = turn
    response = client.post("/inbound/sendgrid/inbound/", {"email": reply(address, move).as_string()})
    assert response.status_code == 403


def test_production_refuses_to_start_without_the_webhook_secret(settings):
    settings.PRODUCTION = True
    settings.ANYMAIL = {"WEBHOOK_SECRET": ""}
    with pytest.raises(SystemCheckError, match="INBOUND_WEBHOOK_SECRET"):
        call_command("check", "--deploy", "--fail-level", "ERROR")
    settings.ANYMAIL = {"WEBHOOK_SECRET": "user:a long secret"}
    settings.INBOUND_PROVIDER = ""
    call_command("check")  # no provider mounted: nothing to guard


def test_operators_see_refusals_counted_by_reason(turn, make_user):
    _game, _n, address, _move = turn
    receive(reply(address, "away", Auto_Submitted="auto-replied"))
    receive(reply(address.replace("play+", "play+9"), "x"))
    root = make_user("root@example.com", is_staff=True, is_superuser=True)
    client = Client()
    client.force_login(root)
    page = client.get("/admin/notifications/inboundrefusal/").content.decode()
    assert "An automatic reply" in page
    assert "(1)" in page  # the facet counts beside each reason


def test_the_provider_posts_without_a_csrf_token_and_is_heard(turn):
    """A mail provider's POST carries no CSRF token: the webhook is exempt,
    and its basic auth is what keeps others out."""
    game, _n, address, move = turn
    strict = Client(enforce_csrf_checks=True)
    secret = settings.ANYMAIL["WEBHOOK_SECRET"]
    auth = "Basic " + base64.b64encode(secret.encode()).decode()
    response = strict.post(
        "/inbound/sendgrid/inbound/", {"email": reply(address, move).as_string()}, HTTP_AUTHORIZATION=auth
    )
    assert response.status_code == 200
    assert GameEvent.objects.filter(game=game).count() > game.version
    assert strict.post("/inbound/sendgrid/inbound/", {"email": "x"}).status_code in (400, 401, 403)

"""Mail sent by machines is dropped without an answer and never reaches the
table, even without RFC 3834's headers: out-of-office notices known by their
subject (in the five languages) or their text, a mailing list's copy (as
Mailman 3 sends it, with no Precedence), and a delivery report (a bounce)."""

from __future__ import annotations

import base64

import pytest
from django.conf import settings

from games import engine
from games.models import GameEvent
from games.talk.models import TableMessage
from notifications.models import InboundRefusal, Kind, Notification
from tests.support.mail import your_turn_by_email

pytestmark = [
    pytest.mark.django_db,
]


@pytest.fixture
def turn(started_game):
    _notification, address, placement = your_turn_by_email(started_game)
    return started_game, address, engine.format_action(placement)


def post(client, raw: str) -> int:
    auth = "Basic " + base64.b64encode(settings.ANYMAIL["WEBHOOK_SECRET"].encode()).decode()
    response = client.post("/inbound/sendgrid/inbound/", {"email": raw}, HTTP_AUTHORIZATION=auth)
    return int(response.status_code)


def plain(to: str, subject: str, body: str, extra: str = "", sender: str = "Alice <alice@example.com>") -> str:
    return (
        f"From: {sender}\r\nTo: {to}\r\nSubject: {subject}\r\nMessage-ID: <auto@mail.example.com>\r\n"
        f"MIME-Version: 1.0\r\n{extra}Content-Type: text/plain; charset=utf-8\r\n\r\n{body}\r\n"
    )


def assert_dropped_silently(game, before: int) -> None:
    assert GameEvent.objects.filter(game=game).count() == before
    assert not TableMessage.objects.exists()
    assert not Notification.objects.filter(kind=Kind.MOVE_REFUSED).exists()
    assert InboundRefusal.objects.get().reason == InboundRefusal.Reason.AUTO_REPLY


@pytest.mark.parametrize(
    "subject",
    [
        "Out of Office: Manhattan: your turn",
        "Automatic reply: Manhattan: your turn",
        "Abwesenheitsnotiz: Manhattan: du bist dran",
        "Automatische Antwort: Manhattan",
        "Automatisch antwoord: Manhattan: jij bent aan de beurt",
        "Réponse automatique : Manhattan : à toi de jouer",
        "자동 회신: Manhattan: 당신 차례입니다",
    ],
)
def test_an_out_of_office_notice_without_its_headers_is_dropped_by_its_subject(turn, client, subject):
    game, address, _move = turn
    before = GameEvent.objects.filter(game=game).count()
    body = "Thank you for your message.\nI will be back on 14 December and answer then."
    assert post(client, plain(address, subject, body)) == 200
    assert_dropped_silently(game, before)


@pytest.mark.parametrize(
    "body",
    [
        "I am out of the office until 14 December.\nFor urgent matters call 555 123.",
        "Ich bin bis zum 14.12. nicht im Büro.\nIn dringenden Fällen: 555 123.",
        "Ik ben afwezig tot 14 december.\nVoor dringende zaken: 555 123.",
        "Je suis absente du bureau jusqu'au 14 décembre.\nPour toute urgence : 555 123.",
        "12월 14일까지 부재중입니다.\n급한 용무는 555 123으로 연락 주세요.",
    ],
)
def test_an_out_of_office_text_under_an_ordinary_subject_is_neither_refused_nor_table_talk(turn, client, body):
    game, address, _move = turn
    before = GameEvent.objects.filter(game=game).count()
    assert post(client, plain(address, "Re: Manhattan: your turn", body)) == 200
    assert_dropped_silently(game, before)


def test_a_mailing_lists_copy_is_not_played(turn, client):
    game, address, move = turn
    before = GameEvent.objects.filter(game=game).count()
    mailman = (
        "List-Id: Manhattan players <players.lists.example.com>\r\n"
        "List-Post: <mailto:players@lists.example.com>\r\n"
        "List-Help: <mailto:players-request@lists.example.com?subject=help>\r\n"
    )
    assert post(client, plain(address, "Re: Manhattan: your turn", move, extra=mailman)) == 200
    assert_dropped_silently(game, before)


def test_a_bounce_from_the_players_address_is_not_table_talk(turn, client):
    game, address, _move = turn
    before = GameEvent.objects.filter(game=game).count()
    report = (
        f"From: Alice <alice@example.com>\r\nTo: {address}\r\nSubject: Undeliverable: Manhattan\r\n"
        "Message-ID: <bounce@mail.example.com>\r\nMIME-Version: 1.0\r\n"
        'Content-Type: multipart/report; report-type=delivery-status; boundary="rep"\r\n\r\n'
        "--rep\r\nContent-Type: text/plain\r\n\r\nYour message could not be delivered.\r\nMailbox full.\r\n"
        "--rep\r\nContent-Type: message/delivery-status\r\n\r\nReporting-MTA: dns; mx.example.com\r\n\r\n"
        "Final-Recipient: rfc822; bob@example.com\r\nAction: failed\r\nStatus: 5.2.2\r\n"
        "--rep--\r\n"
    )
    assert post(client, report) == 200
    assert_dropped_silently(game, before)


def test_a_person_who_mentions_the_office_with_a_move_still_plays(turn, client):
    game, address, move = turn
    before = GameEvent.objects.filter(game=game).count()
    post(client, plain(address, "Re: Manhattan: your turn", f"{move}\nOut of office next week, so here it is early."))
    assert GameEvent.objects.filter(game=game).count() > before

"""Every reply of the corpus (``reply_corpus``: phones, Gmail's wrapped
header, Outlook, Apple Mail, Thunderbird, in the five languages), sent as raw
MIME through the provider's webhook, plays the writer's move and puts exactly
the writer's note at the table: never a signature, a wrapped header or a
line of the quote."""

from __future__ import annotations

import base64
from email.message import EmailMessage

import pytest
from django.conf import settings

from games import engine
from games.models import GameEvent
from games.talk.models import TableMessage
from notifications.models import Kind, Notification
from tests.support.mail import your_turn_by_email
from tests.support.reply_corpus import CORPUS, NOTES

pytestmark = [
    pytest.mark.django_db,
]


@pytest.fixture
def turn(started_game):
    _notification, address, placement = your_turn_by_email(started_game, which=-1)
    return started_game, address, placement


def send(client, to: str, body: str, name: str) -> int:
    message = EmailMessage()
    message["From"] = "Alice <alice@example.com>"
    message["To"] = to
    message["Subject"] = "Re: Manhattan: your turn"
    message["Message-ID"] = f"<{name}@mail.example.com>"
    message.set_content(body)
    auth = "Basic " + base64.b64encode(settings.ANYMAIL["WEBHOOK_SECRET"].encode()).decode()
    response = client.post("/inbound/sendgrid/inbound/", {"email": message.as_string()}, HTTP_AUTHORIZATION=auth)
    return int(response.status_code)


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_each_reply_of_the_corpus_plays_its_move_and_says_only_what_was_written(turn, client, name):
    game, address, action = turn
    language = name.rsplit("-", 1)[1]
    version = game.version
    note = "" if "no-note" in name else NOTES[language]
    body = CORPUS[name].format(move=engine.format_action(action, language=language), note=note)

    assert send(client, address, body, name) == 200

    event = GameEvent.objects.filter(game=game, seq=version + 1).first()
    assert event is not None, "the move was not played"
    played = event.payload
    assert (played["card"], played["city"], played["size"]) == (action.card, action.city, action.size)
    assert [m.text for m in TableMessage.objects.all()] == ([note] if note else [])
    assert not Notification.objects.filter(kind=Kind.MOVE_REFUSED).exists()

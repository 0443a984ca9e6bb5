"""An invitation speaks the invitee's language, and, to an address without an
account (or an account that chose none), the inviter's: a German player
inviting a German friend writes to them in German. The game is created on the
new-game page and the invitation is read as it was sent, parsed from its bytes."""

from __future__ import annotations

from email import message_from_bytes
from email.message import EmailMessage
from email.policy import default
from typing import Any

import pytest
from django.core import mail
from django.test import Client
from django.utils import translation

from accounts.models import User
from games.models import Game
from notifications import outbox
from notifications.models import Kind
from tests.support.mail import bodies, latest, visible_text

pytestmark = pytest.mark.django_db

GERMAN = ("lädt dich zu einer Partie Manhattan für 2 Spieler ein", "Der Einladungslink ist 30 Tage gültig")
ENGLISH = ("invites you to a game of Manhattan for 2 players", "The invitation link is valid for 30 days")


def invitation_sent(creator: User, email: str) -> tuple[Game, EmailMessage]:
    """``creator`` invites ``email`` on the new-game page; the invitation as it was sent."""
    client = Client()
    client.force_login(creator)
    response = client.post("/games/new/", {"players": "2", "seat_2": "invite", "email_2": email})
    assert response.status_code in (302, 303), response.content[:500]
    invitation = latest(Kind.INVITATION, email=email)
    assert outbox.deliver(invitation.pk)
    [sent] = [m for m in mail.outbox if m.extra_headers.get("Message-ID") == invitation.message_id]
    parsed = message_from_bytes(sent.message().as_bytes(), policy=default)
    assert isinstance(parsed, EmailMessage)
    assert invitation.game is not None
    return invitation.game, parsed


def assert_written_in(message: EmailMessage, game: Game, language: str, phrases: tuple[str, ...]) -> None:
    text, markup = bodies(message)
    seen = visible_text(markup)
    for phrase in phrases:
        assert phrase in text, text
        assert phrase in seen, seen
    with translation.override(language):  # one subject per game: "Manhattan: <name>" as the language says it
        expected: Any = translation.gettext("Manhattan: %(game)s") % {"game": game.title}
    assert str(message["Subject"]) == expected


def test_a_german_player_invites_an_address_without_an_account_in_german(alice):
    alice.language = "de"
    alice.save(update_fields=["language"])

    game, message = invitation_sent(alice, "greta@example.de")

    assert_written_in(message, game, "de", GERMAN)
    assert "invites you" not in bodies(message)[0]


def test_an_english_player_invites_in_english(alice):
    alice.language = "en"
    alice.save(update_fields=["language"])

    game, message = invitation_sent(alice, "greta@example.de")

    assert_written_in(message, game, "en", ENGLISH)


def test_the_invitees_own_language_wins_over_the_inviters(alice, bob):
    alice.language, bob.language = "en", "de"
    alice.save(update_fields=["language"])
    bob.save(update_fields=["language"])

    game, message = invitation_sent(alice, bob.email)

    assert_written_in(message, game, "de", GERMAN)

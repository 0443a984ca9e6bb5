"""Pages and emails come out in the player's language (their preference)."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from accounts.models import User
from games.models import Game
from notifications import emails
from notifications.models import Kind
from tests.factories import placement_turn_of
from tests.support.mail import headline, latest, parts
from tests.support.translation_catalogues import LANGUAGES, po_file

pytestmark = pytest.mark.django_db

YOUR_TURN_SUBJECT = "Manhattan %(game)s: your turn (round %(round)s of %(rounds)s)"


def translation_of(language: str, msgid: str) -> str:
    entry = po_file(language).find(msgid)
    assert entry is not None, msgid
    return str(entry.msgstr)


def game_page(user, game: Game) -> str:
    client = Client()
    client.force_login(user)
    response = client.get(f"/games/{game.public_id}/")
    assert response.status_code == 200
    return response.content.decode()


def test_the_game_page_speaks_german_to_a_german_player(alice, started_game):
    User.objects.filter(pk=alice.pk).update(language="de")
    page = game_page(alice, started_game)
    assert '<html lang="de">' in page
    assert "Spieler und Punkte" in page  # "Players and scores"
    assert "Meine Spiele" in page  # "My games", in the page header
    assert 'aria-label="Manhattan-Spielplan, von der Südseite aus gesehen"' in page  # the board drawing
    assert ">Stadt 1<" in page
    assert ">Südseite<" in page
    assert "Players and scores" not in page


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_game_page_in_each_language(alice, started_game, language):
    User.objects.filter(pk=alice.pk).update(language=language)
    page = game_page(alice, started_game)
    assert f'<html lang="{language}">' in page
    for msgid in ("Players and scores", "Last moves", "Tallest building and majorities"):
        assert translation_of(language, msgid) in page, msgid
        assert msgid not in page


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_your_turn_email_in_each_language(alice, started_game, language):
    placement_turn_of(started_game, 0)
    notification = latest(Kind.YOUR_TURN, seat=0)
    User.objects.filter(pk=alice.pk).update(language="en")
    english = emails.build_message(notification)
    match = re.fullmatch(r"Manhattan (.+): your turn \(round (\d+) of (\d+)\)", headline(english))
    assert match, headline(english)
    assert english.subject == f"Manhattan: {match.group(1)}"

    User.objects.filter(pk=alice.pk).update(language=language)
    message = emails.build_message(latest(Kind.YOUR_TURN, seat=0))
    expected = translation_of(language, YOUR_TURN_SUBJECT) % dict(
        zip(("game", "round", "rounds"), match.groups(), strict=True)
    )
    assert headline(message) != headline(english)
    assert headline(message) == " ".join(expected.split())
    assert message.subject == translation_of(language, "Manhattan: %(game)s") % {"game": match.group(1)}
    text, html = parts(message)
    assert f'<html lang="{language}">' in html
    for body in (text, html):
        assert translation_of(language, "Play your turn") in body
        assert "It is your turn in your game of Manhattan." not in body

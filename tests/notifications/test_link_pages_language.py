"""The pages an email's links open speak the language the email was written
in: a link names its player, so the page before signing in ("Continue as …",
"Unsubscribe") is in that player's language whatever the browser says. A
player who has not chosen a language keeps the browser's. The links are taken
from the email as it was really built."""

from __future__ import annotations

import re

import pytest

from notifications import emails
from notifications.models import Kind
from tests.factories import placement_turn_of
from tests.support.mail import latest, parts

pytestmark = [pytest.mark.django_db]

ENGLISH_BROWSER = {"HTTP_ACCEPT_LANGUAGE": "en-GB,en;q=0.9"}


def links_in_turn_email(game) -> tuple[str, str]:
    """The game link and the unsubscribe link of the player's "your turn" email (paths)."""
    placement_turn_of(game, 0)
    text = parts(emails.build_message(latest(Kind.YOUR_TURN, seat=0)))[0]
    game_link = re.search(r"https?://[^/\s]+(/accounts/link/game/\S+)", text)
    unsubscribe = re.search(r"https?://[^/\s]+(/mail/unsubscribe/\S+)", text)
    assert game_link is not None, text
    assert unsubscribe is not None, text
    return game_link.group(1), unsubscribe.group(1)


def test_a_german_players_links_open_german_pages_in_an_english_browser(alice, started_game, client):
    alice.language = "de"
    alice.save(update_fields=["language"])
    game_link, unsubscribe = links_in_turn_email(started_game)

    page = client.get(game_link, **ENGLISH_BROWSER)
    assert page.status_code == 200
    assert page["Content-Language"] == "de"
    assert "Weiter" in page.content.decode()
    assert ">Continue<" not in page.content.decode()

    page = client.get(unsubscribe, **ENGLISH_BROWSER)
    assert page.status_code == 200
    assert page["Content-Language"] == "de"
    assert "Abbestellen" in page.content.decode()


def test_a_player_without_a_language_gets_the_browsers(alice, started_game, client):
    assert alice.language == ""
    game_link, unsubscribe = links_in_turn_email(started_game)

    for path in (game_link, unsubscribe):
        page = client.get(path, HTTP_ACCEPT_LANGUAGE="fr")
        assert page["Content-Language"] == "fr"


def test_signed_in_as_someone_else_the_page_speaks_to_the_one_reading_it(alice, bob, started_game, client):
    """Opening alice's link while signed in as bob asks bob, in bob's language, before switching."""
    alice.language, bob.language = "de", "nl"
    alice.save(update_fields=["language"])
    bob.save(update_fields=["language"])
    game_link, _ = links_in_turn_email(started_game)
    client.force_login(bob)

    page = client.get(game_link, **ENGLISH_BROWSER)
    assert page["Content-Language"] == "nl"

"""The game-over email says where the rematch is: one click on the game's page."""

from __future__ import annotations

import pytest

from accounts.models import User
from notifications import emails
from notifications.models import Kind
from tests.factories import resign, two_player_game
from tests.support.mail import latest, parts, visible_text

pytestmark = pytest.mark.django_db


def test_the_game_over_email_points_to_the_rematch(alice: User, bob: User) -> None:
    bob.language = "de"
    bob.save(update_fields=["language"])
    game = two_player_game(alice, bob)
    resign(game, alice)
    text, markup = parts(emails.build_message(latest(Kind.GAME_OVER, seat=0)))
    assert "Rematch button" in text
    assert "Rematch button" in visible_text(markup)
    german, _ = parts(emails.build_message(latest(Kind.GAME_OVER, seat=1)))
    assert "Revanche" in german

"""Small things every page or the game page gets right: the browser's icon is
served, a finished game shows no hand, and table headers are never empty."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from games.models import Game
from tests.factories import resign

pytestmark = pytest.mark.django_db


def test_the_favicon_is_served_not_a_404():
    response = Client().get("/favicon.ico")
    assert response.status_code == 200
    assert response["Content-Type"] == "image/svg+xml"
    assert response.content.startswith(b"<svg")


def test_a_finished_game_shows_no_hand(browser, started_game, alice, bob):
    resign(started_game, bob)
    started_game.refresh_from_db()
    assert started_game.status == Game.Status.FINISHED
    html = browser(alice).get(f"/games/{started_game.public_id}/").content.decode()
    assert "Your cards" not in html
    assert 'data-testid="hand"' not in html


def test_the_game_page_s_table_headers_all_say_something(browser, started_game, alice):
    html = browser(alice).get(f"/games/{started_game.public_id}/").content.decode()
    headers = re.findall(r"<th\b[^>]*>(.*?)</th>", html, re.S)
    assert headers
    for header in headers:
        assert re.sub(r"<[^>]*>", "", header).strip(), f"an empty table header: {header!r}"

"""The profile page: the numbers, the rating chart drawn as SVG, head-to-head,
and hiding the profile (then it is not there for anyone else)."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from ratings.models import ProfileSetting
from tests.factories import resign, two_player_game

pytestmark = pytest.mark.django_db


def public_game(first, second):
    """A game anyone may watch, so an anonymous profile reader sees it named."""
    game = two_player_game(first, second)
    game.public = True
    game.save(update_fields=["public"])
    return game


def signed_in(user):
    client = Client()
    client.force_login(user)
    return client


def test_the_profile_page_shows_games_ratings_chart_and_recent_games(alice, bob):
    for _ in range(3):
        resign(public_game(alice, bob), alice)
    page = Client().get(f"/players/{bob.pk}/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "3 finished games" in html
    assert "3 won" in html
    assert html.count('data-testid="recent-game"') == 3
    assert html.count('data-testid="rating-point"') == 3
    points = re.search(r'<polyline points="([^"]+)"', html)
    assert points is not None
    heights = [float(pair.split(",")[1]) for pair in points.group(1).split()]
    assert heights[0] > heights[-1], "bob's rating climbs: the line rises (SVG y grows downwards)"
    assert 'data-testid="provisional"' in html
    assert "alice@example.com" not in html


def test_head_to_head_on_the_page(alice, bob):
    resign(public_game(alice, bob), alice)
    resign(public_game(alice, bob), bob)
    html = Client().get(f"/players/{alice.pk}/?opponent={bob.pk}").content.decode()
    assert "Against bob: 2 games, ahead in 1, behind in 1, level in 0." in html


def test_hiding_the_profile_on_the_page(alice, bob):
    resign(two_player_game(alice, bob), alice)
    own = signed_in(bob)
    assert 'data-testid="hide-profile"' in own.get(f"/players/{bob.pk}/").content.decode()
    response = own.post(f"/players/{bob.pk}/visibility/", {"hidden": "1"})
    assert response.status_code == 302
    assert ProfileSetting.objects.get(user=bob).hidden
    assert signed_in(alice).get(f"/players/{bob.pk}/").status_code == 404
    assert Client().get(f"/players/{bob.pk}/").status_code == 404
    assert 'data-testid="show-profile"' in own.get(f"/players/{bob.pk}/").content.decode()
    # Nobody else can change it.
    assert signed_in(alice).post(f"/players/{bob.pk}/visibility/", {"hidden": "0"}).status_code == 404
    assert ProfileSetting.objects.get(user=bob).hidden


def test_the_profile_page_in_german(alice, bob):
    resign(two_player_game(alice, bob), alice)
    html = Client(HTTP_ACCEPT_LANGUAGE="de").get(f"/players/{bob.pk}/").content.decode()
    assert "Bewertung" in html or "Wertung" in html


def test_names_on_the_game_pages_link_to_visible_profiles_only(alice, bob):
    game = two_player_game(alice, bob)
    page = f"/games/{game.public_id}/"
    html = signed_in(alice).get(page).content.decode()
    assert f'<a href="/players/{alice.pk}/" data-testid="player-profile">' in html
    assert f'<a href="/players/{bob.pk}/" data-testid="player-profile">' in html
    signed_in(bob).post(f"/players/{bob.pk}/visibility/", {"hidden": "1"})
    html = signed_in(alice).get(page).content.decode()
    assert f'href="/players/{bob.pk}/"' not in html, "a hidden profile is not linked for others"
    assert f'href="/players/{bob.pk}/"' in signed_in(bob).get(page).content.decode()
    game.public = True
    game.save(update_fields=["public"])
    spectators = Client().get(f"/games/{game.public_id}/watch/").content.decode()
    assert f'href="/players/{alice.pk}/"' in spectators
    assert f'href="/players/{bob.pk}/"' not in spectators

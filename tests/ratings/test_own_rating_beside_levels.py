"""Where a bot level is chosen (the new-game page), the player sees their own rating in
games of two players beside the levels' ratings, so they can pick an opponent near their
own strength; the ratings are read only by a page that shows them."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import AnonymousUser
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from ratings.context_processors import my_ratings
from ratings.models import PROVISIONAL_GAMES, Rating

pytestmark = pytest.mark.django_db


def _signed_in(user, language: str = "en") -> Client:
    client = Client(headers={"accept-language": language})
    client.force_login(user)
    return client


def _my_rating_line(client: Client) -> str:
    """The line's text as a reader sees it (tags dropped, spaces collapsed)."""
    page = client.get("/games/new/")
    assert page.status_code == 200
    found = re.search(r'data-testid="my-rating">(.*?)</p>', page.content.decode(), re.S)
    assert found, "no rating line on the page"
    return " ".join(re.sub(r"<[^>]+>", " ", found.group(1)).split())


def test_a_rated_player_sees_their_two_player_rating_beside_the_levels(alice):
    Rating.objects.create(user=alice, players=4, mu=40.0, sigma=1.0, games=30)  # not the levels' size
    Rating.objects.create(user=alice, players=2, mu=30.0, sigma=2.0, games=PROVISIONAL_GAMES)

    assert _my_rating_line(_signed_in(alice)) == "Your rating in games of 2 players: 24.0."


def test_a_provisional_rating_says_so_and_the_line_is_translated(alice):
    Rating.objects.create(user=alice, players=2, mu=26.5, sigma=2.0, games=PROVISIONAL_GAMES - 1)

    assert _my_rating_line(_signed_in(alice)) == "Your rating in games of 2 players: 20.5. provisional"
    assert _my_rating_line(_signed_in(alice, "de")) == "Deine Wertungszahl in Partien zu zweit: 20,5. vorläufig"


def test_a_player_without_a_rating_is_told_where_it_comes_from(alice, bob):
    Rating.objects.create(user=bob, players=2, mu=30.0, sigma=2.0, games=30)  # somebody else's

    line = _my_rating_line(_signed_in(alice))

    assert line.startswith("You have no rating in games of 2 players yet")


def test_pages_that_do_not_show_it_do_not_read_it(alice):
    client = _signed_in(alice)
    with CaptureQueriesContext(connection) as queries:
        assert client.get("/games/").status_code == 200
    assert not [q for q in queries.captured_queries if "ratings_rating" in q["sql"]]


def test_nobody_signed_in_gets_no_ratings(rf):
    request = rf.get("/games/new/")
    request.user = AnonymousUser()
    assert my_ratings(request) == {}

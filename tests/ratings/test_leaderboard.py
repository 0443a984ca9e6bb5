"""The leaderboard per player count, by API and page: best shown rating first,
bots included, hidden profiles left out, provisional ratings marked."""

from __future__ import annotations

import pytest
from django.test import Client

from ratings.models import PROVISIONAL_GAMES, Rating
from tests.factories import resign, two_player_game

pytestmark = pytest.mark.django_db


def board(client, **params):
    response = client.get("/api/v1/leaderboard", params)
    assert response.status_code == 200, response.content
    return response.json()


def test_best_first_per_player_count(alice, bob, client_for):
    resign(two_player_game(alice, bob), alice)
    Rating.objects.create(bot="strong", players=2, mu=40.0, sigma=2.0, games=30)
    Rating.objects.create(bot="greedy", players=4, mu=30.0, sigma=2.0, games=30)
    body = board(client_for(alice), players=2)
    assert body["players"] == 2
    names = [(e["position"], e["name"], e["bot"], e["provisional"]) for e in body["entries"]]
    assert names == [(1, "", "strong", False), (2, "bob", "", True), (3, "alice", "", True)]
    assert body["entries"][1]["player_id"] == bob.pk
    ratings = [e["rating"] for e in body["entries"]]
    assert ratings == sorted(ratings, reverse=True)
    assert [e["bot"] for e in board(client_for(alice))["entries"]] == ["greedy"], "four players by default"


def test_established_only_and_limit(alice, bob, client_for):
    Rating.objects.create(user=alice, players=3, mu=30.0, sigma=3.0, games=PROVISIONAL_GAMES)
    Rating.objects.create(user=bob, players=3, mu=35.0, sigma=3.0, games=PROVISIONAL_GAMES - 1)
    assert [e["name"] for e in board(client_for(alice), players=3, established="true")["entries"]] == ["alice"]
    assert [e["name"] for e in board(client_for(alice), players=3, limit=1)["entries"]] == ["bob"]


def test_a_hidden_profile_leaves_the_leaderboard(alice, bob, client_for):
    resign(two_player_game(alice, bob), alice)
    client_for(bob).patch(f"/api/v1/players/{bob.pk}", {"hidden": True}, format="json")
    assert [e["name"] for e in board(client_for(alice), players=2)["entries"]] == ["alice"]
    page = Client().get("/leaderboard/?players=2")
    assert ">alice<" in page.content.decode()
    assert ">bob<" not in page.content.decode()


@pytest.mark.parametrize(
    "params", [{"players": "5"}, {"players": "x"}, {"limit": "0"}, {"limit": "-1"}, {"established": "maybe"}]
)
def test_bad_filters_are_problems(alice, client_for, params):
    response = client_for(alice).get("/api/v1/leaderboard", params)
    assert response.status_code == 400
    assert response["Content-Type"] == "application/problem+json"
    assert response.json()["code"] == "bad_filter"  # as for the other lists' filters (docs/api.md)
    assert next(iter(params)) in response.json()["detail"]


def test_the_page_marks_provisional_ratings_and_links_profiles(alice, bob):
    resign(two_player_game(alice, bob), alice)
    Rating.objects.create(bot="strong", players=2, mu=40.0, sigma=2.0, games=30)
    page = Client().get("/leaderboard/?players=2")
    assert page.status_code == 200
    html = page.content.decode()
    assert html.count('data-testid="leaderboard-row"') == 3
    assert f'href="/players/{bob.pk}/"' in html
    assert "strong bot" in html
    assert html.count("provisional</span>") == 2

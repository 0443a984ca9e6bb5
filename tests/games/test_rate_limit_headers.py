"""RateLimit-Policy and RateLimit headers (IETF draft httpapi-ratelimit-headers)
on API answers, from the throttles that counted the request."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from django.core.cache import cache
from rest_framework.throttling import SimpleRateThrottle

pytestmark = pytest.mark.django_db
ITEM = re.compile(r'"(?P<policy>[a-z_]+)";(?P<a>[qr])=(?P<n>\d+);(?P<b>[wt])=(?P<s>\d+)')


@pytest.fixture(autouse=True)
def _fresh_cache() -> Iterator[None]:
    cache.clear()
    yield
    cache.clear()


def items(header: str) -> dict[str, tuple[int, int]]:
    found = {m["policy"]: (int(m["n"]), int(m["s"])) for m in ITEM.finditer(header)}
    assert found, header
    return found


def test_a_read_carries_the_users_policy_and_what_is_left(api, alice):
    client = api(alice)
    first = client.get("/api/v1/games")
    assert items(first["RateLimit-Policy"]) == {"user": (1200, 60)}
    left, reset = items(first["RateLimit"])["user"]
    assert left == 1199
    assert 0 < reset <= 60
    second = client.get("/api/v1/me")
    assert items(second["RateLimit"])["user"][0] == 1198


def test_creating_a_game_shows_both_policies(api, alice):
    body = {"seats": [{"kind": "me"}, {"kind": "bot", "bot": "greedy"}], "options": {"players": 2}}
    response = api(alice).post("/api/v1/games", body, format="json")
    assert response.status_code == 201
    assert items(response["RateLimit-Policy"]) == {"user": (1200, 60), "game_create": (60, 3600)}
    assert items(response["RateLimit"])["game_create"][0] == 59


def test_anonymous_callers_see_the_anonymous_policy(client):
    response = client.get("/api/v1/schema/")
    # Only the quota that limits them: the user quota would promise 1200 where 120 hold.
    assert items(response["RateLimit-Policy"]) == {"anon": (120, 60)}
    assert set(items(response["RateLimit"])) == {"anon"}


def test_the_refused_request_says_nothing_is_left(api, alice, monkeypatch):
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", {**SimpleRateThrottle.THROTTLE_RATES, "user": "2/minute"})
    client = api(alice)
    client.get("/api/v1/me")
    assert items(client.get("/api/v1/me")["RateLimit"])["user"][0] == 0
    refused = client.get("/api/v1/me")
    assert refused.status_code == 429
    assert items(refused["RateLimit"])["user"][0] == 0
    assert int(refused["Retry-After"]) > 0

"""Security, proven on real requests: tokens and throttles.

* API tokens are stored hashed: the raw token is nowhere in the database.
* Throttles answer 429 with Retry-After: sign-in links, API use per user and
  per address, and creating games (which emails invitees) over the API and on
  the new-game page. Behind the production proxy, limits are counted per real
  client and cannot be escaped with a forged X-Forwarded-For. The
  token-creation throttle is tested in ``tests/games/test_api_missing_things.py``.

Security headers on every response: tests/reliability/test_security_headers.py."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

import pytest
from django.apps import apps
from django.conf import settings
from django.core import serializers
from django.test import Client
from rest_framework.test import APIClient
from rest_framework.throttling import SimpleRateThrottle

from accounts.models import ApiToken, hash_token
from accounts.services import create_api_token
from games.models import Game
from notifications.models import Kind, Notification

API = "/api/v1"


# --- API tokens -------------------------------------------------------------------------------------


def database_dump() -> str:
    """Every row of every table, as JSON."""
    return "\n".join(serializers.serialize("json", model._default_manager.all()) for model in apps.get_models())


def test_api_tokens_are_stored_only_as_hashes(db, make_user):
    alice = make_user("alice@example.com")
    made_by_service = create_api_token(user=alice, name="service").raw
    session = Client()
    session.force_login(alice)
    response = session.post(f"{API}/tokens", {"name": "over the API"}, content_type="application/json")
    assert response.status_code == 201
    made_by_api = response.json()["token"]
    for raw in (made_by_service, made_by_api):
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
        assert client.get(f"{API}/me").status_code == 200  # a real, working token
        dump = database_dump()
        secret_part = raw[12:]  # what is left after the stored prefix
        assert raw not in dump
        assert secret_part not in dump
        assert ApiToken.objects.filter(token_hash=hash_token(raw)).exists()
        assert hash_token(raw) == hashlib.sha256(raw.encode()).hexdigest()
    rows = list(ApiToken.objects.values())
    assert rows
    assert all(len(row["prefix"]) <= 12 for row in rows)
    listed = session.get(f"{API}/tokens").content.decode()
    assert made_by_api[12:] not in listed
    assert made_by_service[12:] not in listed


# --- throttles ----------------------------------------------------------------------------------------


def assert_throttled(response: Any) -> None:
    assert response.status_code == 429, (response.status_code, response.content[:300])
    assert int(response["Retry-After"]) > 0


@pytest.fixture
def rates(monkeypatch: pytest.MonkeyPatch) -> Callable[..., None]:
    """Set DRF throttle rates for one test. DRF reads the rates once, into the
    class attribute ``SimpleRateThrottle.THROTTLE_RATES``, so that is what is patched."""

    def set_rates(**changed: str) -> None:
        monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", {**SimpleRateThrottle.THROTTLE_RATES, **changed})

    return set_rates


def test_sign_in_links_are_throttled_per_address(db):
    client = Client()
    for _ in range(5):
        assert client.post("/accounts/login/", {"email": "victim@example.com"}).status_code == 200
    assert_throttled(client.post("/accounts/login/", {"email": "victim@example.com"}))
    # Another client cannot make the victim's mailbox fill up either.
    assert_throttled(Client(REMOTE_ADDR="203.0.113.9").post("/accounts/login/", {"email": "victim@example.com"}))
    assert Notification.objects.filter(kind=Kind.LOGIN, email="victim@example.com").count() == 5


def test_sign_in_links_are_throttled_per_client(db):
    client = Client(REMOTE_ADDR="198.51.100.7")
    for i in range(5):
        assert client.post("/accounts/login/", {"email": f"someone{i}@example.com"}).status_code == 200
    assert_throttled(client.post("/accounts/login/", {"email": "one-more@example.com"}))
    assert Notification.objects.filter(kind=Kind.LOGIN).count() == 5


# In production a TLS proxy stands in front of the site (the settings trust its
# X-Forwarded-Proto): every request arrives from the proxy's address, and the
# proxy appends the real client's address to X-Forwarded-For, after whatever
# the client itself put there.
PROXY = "10.0.0.2"


def behind_the_proxy(client_address: str, forged: str = "") -> dict[str, str]:
    forwarded = f"{forged}, {client_address}" if forged else client_address
    return {"REMOTE_ADDR": PROXY, "HTTP_X_FORWARDED_FOR": forwarded, "HTTP_X_FORWARDED_PROTO": "https"}


def test_sign_in_links_are_counted_per_real_client_behind_the_proxy(db, settings):
    """Six people signing in through the proxy within an hour must not lock the
    seventh out: the per-client limit is for each real client, not for the proxy."""
    settings.NUM_PROXIES = 1  # deployed behind one TLS proxy, as in production
    for i in range(6):
        response = Client().post(
            "/accounts/login/", {"email": f"person{i}@example.com"}, **behind_the_proxy(f"198.51.100.{i + 1}")
        )
        assert response.status_code == 200, f"client {i + 1} was refused: the limit is counted for the proxy"


@pytest.mark.parametrize("proxies", [0, 1])
def test_sign_in_link_limit_cannot_be_escaped_by_forging_x_forwarded_for(db, settings, proxies):
    """Whatever fixes the test above must read the address the proxy appended, not one the client wrote."""
    settings.NUM_PROXIES = proxies
    for i in range(5):
        headers = behind_the_proxy("198.51.100.7", forged=f"203.0.113.{i}")
        assert Client().post("/accounts/login/", {"email": f"target{i}@example.com"}, **headers).status_code == 200
    headers = behind_the_proxy("198.51.100.7", forged="203.0.113.99")
    assert_throttled(Client().post("/accounts/login/", {"email": "target9@example.com"}, **headers))


def test_anonymous_throttle_cannot_be_escaped_by_forging_x_forwarded_for(db, rates):
    rates(anon="2/minute")
    client = APIClient()
    statuses = [
        client.get(f"{API}/schema/", **behind_the_proxy("198.51.100.7", forged=f"203.0.113.{i}")).status_code
        for i in range(3)
    ]
    assert statuses == [200, 200, 429], "a forged X-Forwarded-For gave the client a fresh allowance"


def test_api_use_is_throttled_per_user(db, make_user, client_for, rates):
    rates(user="3/minute")
    alice, bob = client_for(make_user("alice@example.com")), client_for(make_user("bob@example.com"))
    for _ in range(3):
        assert alice.get(f"{API}/me").status_code == 200
    response = alice.get(f"{API}/me")
    assert_throttled(response)
    assert response.json()["code"] == "throttled"
    assert bob.get(f"{API}/me").status_code == 200  # the limit is per user


def test_anonymous_api_use_is_throttled(db, rates):
    rates(anon="2/minute")
    client = APIClient()
    for _ in range(2):
        assert client.get(f"{API}/schema/").status_code == 200  # the schema is public
    assert_throttled(client.get(f"{API}/schema/"))


def test_creating_games_that_email_invitees_is_throttled(db, make_user, client_for, rates):
    rates(game_create="2/hour")
    alice = make_user("alice@example.com")
    client = client_for(alice)

    def create(i: int) -> Any:
        body = {"seats": [{"kind": "me"}, {"kind": "invite", "email": f"friend{i}@example.com"}]}
        return client.post(f"{API}/games", body, format="json")

    assert create(1).status_code == 201
    assert create(2).status_code == 201
    assert_throttled(create(3))
    assert Game.objects.filter(creator=alice).count() == 2
    assert Notification.objects.filter(kind=Kind.INVITATION).count() == 2
    assert client.get(f"{API}/games").status_code == 200  # reading is not creating


def test_creating_games_on_the_web_page_is_throttled_like_the_api(db, make_user):
    """The new-game page emails invitees just as the API does: the same limit
    (the configured ``game_create`` rate, whatever way a fix reads it) must hold there."""
    rate = settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]["game_create"]
    allowed = int(rate.split("/")[0])
    alice = make_user("alice@example.com")
    client = Client()
    client.force_login(alice)

    def create(i: int) -> Any:
        body = {"players": "2", "seat_2": "invite", "email_2": f"friend{i}@example.com", "timeout": "168"}
        return client.post("/games/new/", body)

    for i in range(allowed):
        response = create(i)
        assert response.status_code == 302, (i, response.status_code)
    assert_throttled(create(allowed))
    assert Game.objects.filter(creator=alice).count() == allowed
    assert Notification.objects.filter(kind=Kind.INVITATION).count() == allowed

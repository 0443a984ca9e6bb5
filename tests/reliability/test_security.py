"""Security settings, proven on real responses.

* Production mode: ``manage.py check --deploy`` is run by
  ``tests/test_deploy.py::test_production_settings_pass_check_deploy_with_no_warnings``
  (not repeated here). Here the real production settings module serves
  requests in a subprocess (``manage.py shell`` with ``django.test.Client``):
  HTTPS responses carry HSTS, plain HTTP is redirected, cookies are secure.
* Every kind of response (pages, API, admin, API docs) carries a
  Content-Security-Policy, ``X-Content-Type-Options: nosniff``,
  ``X-Frame-Options: DENY`` and a Referrer-Policy; scripts outside ``/admin/``
  and ``/api/v1/docs/`` run only with the response's nonce, which every inline
  ``<script>`` must carry.
* API tokens are stored hashed: the raw token is nowhere in the database.
* Throttles answer 429 with Retry-After: sign-in links, API use per user and
  per address, and creating games (which emails invitees) over the API and on
  the new-game page. Behind the production proxy, limits are counted per real
  client and cannot be escaped with a forged X-Forwarded-For. The
  token-creation throttle is tested in ``tests/games/test_api_missing_things.py``.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.apps import apps
from django.conf import settings
from django.core import serializers
from django.core.cache import cache
from django.test import Client
from rest_framework.test import APIClient
from rest_framework.throttling import SimpleRateThrottle

from accounts.models import ApiToken, User, hash_token
from accounts.services import create_api_token
from games.models import Game
from notifications.models import Kind, Notification
from tests.factories import two_player_game
from tests.support.processes import manage

API = "/api/v1"
RELAXED = ("/admin/", "/api/v1/docs/")
PRODUCTION_KEY = "production-probe-" + "k" * 50


@pytest.fixture(autouse=True)
def _fresh_cache() -> Iterator[None]:
    """Throttle counters live in the cache, which outlives each test's database."""
    cache.clear()
    yield
    cache.clear()


# --- production mode, served by the real production settings -------------------------------

PROBE = """
import json
from django.test import Client

client = Client()
out = {}
for name, path, secure in [
    ("https_page", "/accounts/login/", True),
    ("http_page", "/accounts/login/", False),
    ("https_api", "/api/v1/me", True),
    ("https_admin", "/admin/login/", True),
    ("https_outbox", "/mail/outbox/", True),
]:
    response = client.get(path, secure=secure)
    out[name] = {
        "status": response.status_code,
        "headers": dict(response.items()),
        "cookies": {
            key: {"secure": bool(c["secure"]), "httponly": bool(c["httponly"])}
            for key, c in response.cookies.items()
        },
    }
print("PROBE:" + json.dumps(out))
"""


@pytest.fixture(scope="module")
def production(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Responses of the production settings (DJANGO_ENV=production), served in a subprocess."""
    result = manage(
        "shell",
        "-c",
        PROBE,
        DJANGO_ENV="production",
        SECRET_KEY=PRODUCTION_KEY,
        ALLOWED_HOSTS="testserver",
        VAR_DIR=str(tmp_path_factory.mktemp("production-var")),
    )
    assert result.returncode == 0, result.stdout + result.stderr
    line = next(line for line in result.stdout.splitlines() if line.startswith("PROBE:"))
    return dict(json.loads(line.removeprefix("PROBE:")))


def test_production_https_responses_carry_hsts(production):
    for name in ("https_page", "https_api", "https_admin"):
        hsts = production[name]["headers"].get("Strict-Transport-Security", "")
        assert hsts == "max-age=31536000; includeSubDomains; preload", (name, hsts)


def test_production_redirects_plain_http_to_https(production):
    response = production["http_page"]
    assert response["status"] == 301
    assert response["headers"]["Location"] == "https://testserver/accounts/login/"


def test_production_cookies_are_secure(production):
    cookies = production["https_page"]["cookies"]
    assert "csrftoken" in cookies, cookies
    assert cookies["csrftoken"] == {"secure": True, "httponly": True}


def test_production_hides_the_development_outbox(production):
    """The development outbox lists every email (and so every hand) to anyone: never in production."""
    assert production["https_outbox"]["status"] == 404


def test_production_responses_carry_the_other_security_headers(production):
    for name in ("https_page", "https_api", "https_admin"):
        headers = production[name]["headers"]
        assert headers.get("X-Content-Type-Options") == "nosniff", name
        assert headers.get("X-Frame-Options") == "DENY", name
        assert headers.get("Referrer-Policy") == "same-origin", name
        assert "frame-ancestors 'none'" in headers.get("Content-Security-Policy", ""), name


# --- every kind of response, in the test settings -------------------------------------------


@pytest.fixture
def site(db: Any) -> dict[str, Any]:
    """A started game and clients for a player (web and API), the staff and nobody."""
    alice = User.objects.create_user(email="alice@example.com")
    bob = User.objects.create_user(email="bob@example.com")
    staff = User.objects.create_user(email="operator@example.com", is_staff=True, is_superuser=True)
    game = two_player_game(alice, bob)
    web, admin = Client(), Client()
    web.force_login(alice)
    admin.force_login(staff)
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {create_api_token(user=alice, name='probe').raw}")
    return {"game": game, "web": web, "admin": admin, "api": api, "anonymous": Client()}


PAGES = {
    # name: (client, path); "{game}" is the started game's id
    "sign-in page": ("anonymous", "/accounts/login/"),
    "my games": ("web", "/games/"),
    "new game": ("web", "/games/new/"),
    "game page": ("web", "/games/{game}/"),
    "game history": ("web", "/games/{game}/?at=1"),
    "preferences": ("web", "/mail/preferences/"),
    "api game": ("api", "/api/v1/games/{game}"),
    "api events": ("api", "/api/v1/games/{game}/events?after=0"),
    "api refusal (401)": ("anonymous", "/api/v1/me"),
    "api unknown path (404)": ("api", "/api/v1/nothing-here"),
    "admin": ("admin", "/admin/games/game/"),
    "api docs": ("anonymous", "/api/v1/docs/"),
    "page not found": ("web", "/games/not-a-game/"),
}


def fetch(site: dict[str, Any], page: str) -> Any:
    client, path = PAGES[page]
    response = site[client].get(path.format(game=site["game"].public_id))
    assert response.status_code < 500, (page, response.status_code)
    return response


def script_src(policy: str) -> str:
    return next((d.strip() for d in policy.split(";") if d.strip().startswith("script-src")), "")


@pytest.mark.parametrize("page", sorted(PAGES))
def test_every_response_says_nosniff(site, page):
    assert fetch(site, page)["X-Content-Type-Options"] == "nosniff"


@pytest.mark.parametrize("page", sorted(PAGES))
def test_every_response_refuses_to_be_framed(site, page):
    response = fetch(site, page)
    assert response["X-Frame-Options"] == "DENY"
    assert "frame-ancestors 'none'" in response["Content-Security-Policy"]


@pytest.mark.parametrize("page", sorted(PAGES))
def test_every_response_has_a_referrer_policy(site, page):
    assert fetch(site, page)["Referrer-Policy"] in ("same-origin", "no-referrer")


@pytest.mark.parametrize("page", sorted(PAGES))
def test_every_response_has_a_strict_content_security_policy(site, page):
    _client, path = PAGES[page]
    policy = fetch(site, page)["Content-Security-Policy"]
    for directive in ("default-src 'self'", "object-src 'none'", "base-uri 'none'", "form-action 'self'"):
        assert directive in policy, (page, policy)
    scripts = script_src(policy)
    if path.startswith(RELAXED):
        assert scripts == "script-src 'self' 'unsafe-inline'", scripts
    else:
        assert "'unsafe-inline'" not in scripts, scripts
        assert re.fullmatch(r"script-src 'self' 'nonce-[A-Za-z0-9_-]{16,}'", scripts), scripts


def test_the_nonce_is_new_for_every_response(site):
    first = script_src(fetch(site, "game page")["Content-Security-Policy"])
    second = script_src(fetch(site, "game page")["Content-Security-Policy"])
    assert first != second


INLINE_SCRIPT = re.compile(r"<script(?![^>]*\bsrc=)([^>]*)>", re.IGNORECASE)


def scripts_without_the_nonce(response: Any) -> list[str]:
    """The inline ``<script>`` tags of a page that do not carry its CSP nonce."""
    nonce = re.search(r"'nonce-([^']+)'", response["Content-Security-Policy"])
    assert nonce is not None
    return [
        f"<script{attributes}>"
        for attributes in INLINE_SCRIPT.findall(response.content.decode())
        if f'nonce="{nonce.group(1)}"' not in attributes
    ]


@pytest.mark.parametrize("page", ["game page", "game history", "my games", "new game", "preferences", "sign-in page"])
def test_every_inline_script_carries_the_responses_nonce(site, page):
    """An inline script without the nonce is blocked by the browser: the page's
    niceties (the history slider, the selection total) silently stop working."""
    assert scripts_without_the_nonce(fetch(site, page)) == []


def test_the_nonce_check_flags_a_script_without_the_right_nonce():
    from django.http import HttpResponse

    page = HttpResponse('<script nonce="abc">ok()</script><script>bad()</script><script nonce="old">bad()</script>')
    page["Content-Security-Policy"] = "script-src 'self' 'nonce-abc'"
    assert scripts_without_the_nonce(page) == ["<script>", '<script nonce="old">']


def test_the_game_page_has_an_inline_script_to_check(site):
    """The nonce test above proves something only if the game page has a script."""
    assert INLINE_SCRIPT.search(fetch(site, "game page").content.decode())


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

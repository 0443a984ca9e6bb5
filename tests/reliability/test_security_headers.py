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

API tokens and throttles: tests/reliability/test_security_tokens_and_throttles.py."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from accounts.models import User
from accounts.services import create_api_token
from tests.factories import two_player_game
from tests.support.processes import manage

RELAXED = ("/admin/", "/api/v1/docs/")
PRODUCTION_KEY = "production-probe-" + "k" * 50


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

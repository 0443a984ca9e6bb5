"""OAuth apps: the device grant and the authorization code grant with PKCE,
the consent pages, scopes enforced on the API, and revoking an app."""

from __future__ import annotations

import base64
import hashlib
import secrets
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
from django.test import Client
from django.urls import get_resolver
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView
from oauth2_provider.models import AccessToken, get_application_model
from rest_framework.test import APIClient
from rest_framework.views import APIView

from accounts import links
from accounts.api import MeView
from accounts.services import create_api_token
from manhattan_site.api.pages import ApiIndexView, ProblemListView, ProblemView
from manhattan_site.api.urls import app_url_modules, v1_urlpatterns

pytestmark = pytest.mark.django_db
Application = get_application_model()
DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"
REDIRECT = "https://app.example.com/callback"


@pytest.fixture
def device_app(alice):
    return Application.objects.create(
        name="Terminal bot",
        client_type=Application.CLIENT_PUBLIC,
        authorization_grant_type=Application.GRANT_DEVICE_CODE,
        user=alice,
    )


@pytest.fixture
def web_app(alice):
    return Application.objects.create(
        name="Board viewer",
        client_type=Application.CLIENT_PUBLIC,
        authorization_grant_type=Application.GRANT_AUTHORIZATION_CODE,
        redirect_uris=REDIRECT,
        user=alice,
    )


def form(client: Client, path: str, data: dict[str, str]) -> Any:
    """POST as an OAuth client does: an url-encoded form."""
    return client.post(path, urlencode(data), content_type="application/x-www-form-urlencoded")


def fresh_session(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def bearer(token: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    return client


def device_token(app, user, scope: str = "games:read games:play") -> dict[str, Any]:
    """The whole device grant: the device asks, the person approves, the device gets its token."""
    device = Client()
    asked = form(device, "/oauth/device-authorization/", {"client_id": app.client_id, "scope": scope})
    assert asked.status_code == 200, asked.content
    codes = asked.json()
    assert codes["verification_uri"].endswith("/oauth/device/")
    pending = form(
        device,
        "/oauth/token/",
        {"grant_type": DEVICE_GRANT, "device_code": codes["device_code"], "client_id": app.client_id},
    )
    assert pending.status_code == 400
    assert pending.json()["error"] == "authorization_pending"

    browser = fresh_session(user)
    entered = browser.post("/oauth/device/", {"user_code": codes["user_code"]})
    assert entered.status_code == 302
    consent = browser.get(entered["Location"])
    assert consent.status_code == 200
    page = consent.content.decode()
    assert app.name in page
    assert all(name in page for name in scope.split())
    assert browser.post(entered["Location"], {"action": "accept"}).status_code == 302

    granted = form(
        device,
        "/oauth/token/",
        {"grant_type": DEVICE_GRANT, "device_code": codes["device_code"], "client_id": app.client_id},
    )
    assert granted.status_code == 200, granted.content
    return dict(granted.json())


def test_device_grant_gives_a_token_with_the_scopes_asked_for(device_app, alice, started_game):
    token = device_token(device_app, alice, scope="games:read")
    assert token["scope"] == "games:read"
    client = bearer(token["access_token"])
    assert client.get("/api/v1/games").status_code == 200
    assert client.get(f"/api/v1/games/{started_game.public_id}/legal-actions").status_code == 200

    refused = client.post(f"/api/v1/games/{started_game.public_id}/actions", {"action": "resign"}, format="json")

    assert refused.status_code == 403
    assert refused.json()["code"] == "insufficient_scope"
    assert "games:play" in refused.json()["detail"]
    assert client.get("/api/v1/me").json()["scopes"] == ["games:read"]


def test_an_oauth_token_manages_no_personal_tokens(device_app, alice):
    client = bearer(device_token(device_app, alice)["access_token"])
    assert client.get("/api/v1/tokens").status_code == 403
    assert client.post("/api/v1/tokens", {"name": "x"}, format="json").status_code == 403


def test_an_unknown_access_token_is_refused_with_a_problem():
    response = bearer("not-a-real-token").get("/api/v1/games")
    assert response.status_code == 401
    assert response.json()["code"] == "authentication_failed"


def test_a_denied_device_gets_no_token(device_app, alice):
    device = Client()
    codes = form(device, "/oauth/device-authorization/", {"client_id": device_app.client_id}).json()
    browser = fresh_session(alice)
    confirm = browser.post("/oauth/device/", {"user_code": codes["user_code"]})["Location"]
    browser.post(confirm, {"action": "deny"})
    answer = form(
        device,
        "/oauth/token/",
        {"grant_type": DEVICE_GRANT, "device_code": codes["device_code"], "client_id": device_app.client_id},
    )
    assert answer.status_code == 400
    assert answer.json()["error"] == "access_denied"


def pkce_pair() -> tuple[str, str]:
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    return verifier, challenge


def test_authorization_code_needs_pkce(web_app, alice):
    browser = fresh_session(alice)
    response = browser.get(
        "/oauth/authorize/",
        {"client_id": web_app.client_id, "response_type": "code", "redirect_uri": REDIRECT, "scope": "games:read"},
    )
    assert response.status_code == 302
    assert "error=invalid_request" in response["Location"]
    assert "challenge" in parse_qs(urlsplit(response["Location"]).query)["error_description"][0].lower()


def test_authorization_code_with_pkce_after_consent(web_app, alice, started_game):
    verifier, challenge = pkce_pair()
    browser = fresh_session(alice)
    query = {
        "client_id": web_app.client_id,
        "response_type": "code",
        "redirect_uri": REDIRECT,
        "scope": "games:read games:play",
        "state": "xyz",
        "code_challenge": challenge,
        "code_challenge_method": "S256",
    }
    consent = browser.get("/oauth/authorize/", query)
    assert consent.status_code == 200
    page = consent.content.decode()
    assert "Board viewer" in page
    assert "Create and join games and play your moves" in page
    assert "games:play" in page

    approved = browser.post("/oauth/authorize/", {**query, "allow": "Authorize"})
    assert approved.status_code == 302
    params = parse_qs(urlsplit(approved["Location"]).query)
    assert params["state"] == ["xyz"]

    exchange = {"grant_type": "authorization_code", "code": params["code"][0], "redirect_uri": REDIRECT}
    exchange["client_id"] = web_app.client_id
    wrong = form(Client(), "/oauth/token/", {**exchange, "code_verifier": "x" * 50})
    assert wrong.status_code == 400
    token = form(Client(), "/oauth/token/", {**exchange, "code_verifier": verifier})
    assert token.status_code == 200, token.content
    client = bearer(token.json()["access_token"])
    assert client.get(f"/api/v1/games/{started_game.public_id}").status_code == 200


def test_the_consent_page_speaks_the_users_language(device_app, alice):
    alice.language = "de"
    alice.save()
    codes = form(Client(), "/oauth/device-authorization/", {"client_id": device_app.client_id}).json()
    browser = fresh_session(alice)
    confirm = browser.post("/oauth/device/", {"user_code": codes["user_code"]})["Location"]
    page = browser.get(confirm).content.decode()
    assert "Terminal bot" in page
    assert "Erlauben" in page


def test_a_session_from_a_game_link_signs_in_again_before_approving(device_app, alice, started_game):
    client = Client()
    path = urlsplit(links.game_url(alice, str(started_game.public_id))).path
    client.post(path)
    response = client.get("/oauth/device/")
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/")


def test_users_see_and_revoke_their_authorized_apps(device_app, alice):
    token = device_token(device_app, alice)["access_token"]
    browser = fresh_session(alice)
    page = browser.get("/accounts/apps/").content.decode()
    assert "Terminal bot" in page
    assert "games:play" in page

    browser.post("/accounts/apps/", {"application": device_app.pk})

    assert "Terminal bot" not in browser.get("/accounts/apps/").content.decode()
    assert not AccessToken.objects.filter(user=alice).exists()
    assert bearer(token).get("/api/v1/games").status_code == 401


def test_personal_tokens_carry_scopes_too(alice, started_game, make_user):
    reader = create_api_token(user=alice, name="read only", scope="games:read").raw
    client = bearer(reader)
    assert client.get(f"/api/v1/games/{started_game.public_id}/events").status_code == 200
    assert client.post("/api/v1/games/", {}, format="json").status_code in (403, 404)
    refused = client.post(f"/api/v1/games/{started_game.public_id}/join", {}, format="json")
    assert refused.status_code == 403
    assert refused.json()["code"] == "insufficient_scope"


def test_a_token_is_made_with_the_scopes_asked_for(alice):
    browser = APIClient()
    browser.force_login(alice)
    made = browser.post("/api/v1/tokens", {"name": "reader", "scopes": ["games:read"]}, format="json")
    assert made.status_code == 201
    assert made.json()["scopes"] == ["games:read"]
    unknown = browser.post("/api/v1/tokens", {"name": "x", "scopes": ["games:everything"]}, format="json")
    assert unknown.status_code == 400


def test_operators_see_apps_and_their_tokens_in_the_admin(device_app, alice, make_user):
    device_token(device_app, alice)
    root = make_user("root@example.com", is_staff=True, is_superuser=True, password="pw-for-the-admin")
    admin = Client()
    assert admin.login(email=root.email, password="pw-for-the-admin")
    index = admin.get("/admin/").content.decode()
    assert "/admin/oauth2_provider/application/" in index
    tokens = admin.get("/admin/oauth2_provider/accesstoken/").content.decode()
    assert "alice@example.com" in tokens


def test_a_code_is_taken_as_typed_and_a_wrong_one_is_explained(device_app, alice):
    codes = form(Client(), "/oauth/device-authorization/", {"client_id": device_app.client_id}).json()
    alice.language = "fr"
    alice.save()
    browser = fresh_session(alice)
    wrong = browser.post("/oauth/device/", {"user_code": "NOPE1234"})
    assert wrong.status_code == 200
    assert "Ce code est inconnu" in wrong.content.decode()
    typed = browser.post("/oauth/device/", {"user_code": f"  {codes['user_code'].lower()} "})
    assert typed.status_code == 302


def test_every_api_view_says_which_scope_it_needs():
    """A new endpoint that forgets ``required_scopes`` would be open to every token."""
    # Anyone's: the account itself, and the documentation (the schema, the index, the problem pages).
    open_to_any_scope = {
        MeView,
        SpectacularAPIView,
        SpectacularSwaggerView,
        ApiIndexView,
        ProblemListView,
        ProblemView,
    }
    found = []
    patterns = [pattern for module in app_url_modules() for pattern in get_resolver(module).url_patterns]
    for pattern in [*patterns, *v1_urlpatterns()]:
        view = getattr(pattern.callback, "cls", None)
        if view is None or not issubclass(view, APIView) or view in open_to_any_scope:
            continue
        found.append(view)
        assert getattr(view, "required_scopes", None), f"{view.__name__} names no scope"
    assert len(found) >= 12

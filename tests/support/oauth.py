"""OAuth as a client does it: url-encoded forms, the whole device grant, a
PKCE pair, and clients holding a session or a bearer token."""

from __future__ import annotations

import base64
import hashlib
import secrets
from typing import Any
from urllib.parse import urlencode

from django.test import Client
from rest_framework.test import APIClient

DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"


REDIRECT = "https://app.example.com/callback"


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


def pkce_pair() -> tuple[str, str]:
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    return verifier, challenge

"""OAuth codes: a device code and an authorization code each give one token set,
once; a revoked app's device code gives nothing; a device asks only for scopes
that exist; and the consent page is skipped exactly when the docs say."""

from __future__ import annotations

import threading
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from django.db import connection
from django.test import Client
from oauth2_provider.models import AccessToken

from tests.support.oauth import DEVICE_GRANT, REDIRECT, bearer, form, fresh_session, pkce_pair

pytestmark = pytest.mark.django_db


def approved_device(app: Any, user: Any, scope: str = "games:read") -> dict[str, str]:
    """A device authorization the person has approved, not yet exchanged."""
    device = Client()
    codes = form(device, "/oauth/device-authorization/", {"client_id": app.client_id, "scope": scope}).json()
    browser = fresh_session(user)
    entered = browser.post("/oauth/device/", {"user_code": codes["user_code"]})
    assert browser.post(entered["Location"], {"action": "accept"}).status_code == 302
    return dict(codes)


def poll(app: Any, codes: dict[str, str]) -> Any:
    data = {"grant_type": DEVICE_GRANT, "device_code": codes["device_code"], "client_id": app.client_id}
    return form(Client(), "/oauth/token/", data)


def test_a_device_code_gives_one_token_set_once(device_app, alice):
    codes = approved_device(device_app, alice)
    first = poll(device_app, codes)
    assert first.status_code == 200, first.content

    again = poll(device_app, codes)

    assert again.status_code == 400
    assert again.json()["error"] == "expired_token"
    assert AccessToken.objects.filter(user=alice).count() == 1


def test_after_the_app_is_revoked_its_device_code_gives_nothing(device_app, alice):
    codes = approved_device(device_app, alice)
    token = poll(device_app, codes).json()["access_token"]
    browser = fresh_session(alice)
    assert browser.post("/accounts/apps/", {"application": device_app.pk}).status_code == 302
    assert bearer(token).get("/api/v1/me").status_code == 401

    again = poll(device_app, codes)

    assert again.status_code == 400
    assert "access_token" not in again.json()
    assert not AccessToken.objects.filter(user=alice).exists()


def test_an_approved_device_code_not_yet_exchanged_dies_with_the_app(device_app, alice):
    codes = approved_device(device_app, alice)
    # The app holds a token from an earlier approval, so that it is listed and revocable.
    poll(device_app, approved_device(device_app, alice))
    fresh_session(alice).post("/accounts/apps/", {"application": device_app.pk})

    refused = poll(device_app, codes)

    assert refused.status_code == 400
    assert refused.json()["error"] == "access_denied"
    assert not AccessToken.objects.filter(user=alice).exists()


@pytest.mark.parametrize("scope", ["games:read admin:all", "everything", "games:read games:rea"])
def test_a_device_asking_for_an_unknown_scope_is_refused(device_app, scope):
    response = form(Client(), "/oauth/device-authorization/", {"client_id": device_app.client_id, "scope": scope})
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_scope"


def test_a_poll_without_a_device_code_is_a_clear_refusal(device_app):
    response = form(Client(), "/oauth/token/", {"grant_type": DEVICE_GRANT, "client_id": device_app.client_id})
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_request"


def authorize_query(app: Any, scope: str, challenge: str) -> dict[str, str]:
    return {
        "response_type": "code",
        "client_id": app.client_id,
        "redirect_uri": REDIRECT,
        "scope": scope,
        "state": "s",
        "code_challenge": challenge,
        "code_challenge_method": "S256",
    }


def authorize(browser: Client, app: Any, scope: str, challenge: str, **extra: str) -> Any:
    return browser.get("/oauth/authorize/", {**authorize_query(app, scope, challenge), **extra})


def a_code(browser: Client, app: Any, scope: str = "games:read") -> tuple[str, str]:
    verifier, challenge = pkce_pair()
    assert authorize(browser, app, scope, challenge).status_code == 200  # the consent page
    allowed = browser.post("/oauth/authorize/", {**authorize_query(app, scope, challenge), "allow": "Authorize"})
    assert allowed.status_code == 302, allowed.content
    return parse_qs(urlsplit(allowed["Location"]).query)["code"][0], verifier


def exchange(app: Any, code: str, verifier: str) -> Any:
    data = {
        "grant_type": "authorization_code",
        "code": code,
        "redirect_uri": REDIRECT,
        "client_id": app.client_id,
        "code_verifier": verifier,
    }
    return form(Client(), "/oauth/token/", data)


def test_an_authorization_code_gives_one_token_set_once(web_app, alice):
    code, verifier = a_code(fresh_session(alice), web_app)
    assert exchange(web_app, code, verifier).status_code == 200

    again = exchange(web_app, code, verifier)

    assert again.status_code == 400
    assert again.json()["error"] == "invalid_grant"
    assert AccessToken.objects.filter(user=alice).count() == 1


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("kind", ["device", "authorization"])
def test_two_exchanges_at_once_give_one_token_set(device_app, web_app, alice, kind):
    if kind == "device":
        codes = approved_device(device_app, alice)

        def send() -> Any:
            return poll(device_app, codes)
    else:
        code, verifier = a_code(fresh_session(alice), web_app)

        def send() -> Any:
            return exchange(web_app, code, verifier)

    answers: list[int] = []
    start = threading.Barrier(4)

    def racer() -> None:
        start.wait()
        try:
            answers.append(send().status_code)
        finally:
            connection.close()

    threads = [threading.Thread(target=racer) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert sorted(answers) == [200, 400, 400, 400]
    assert AccessToken.objects.filter(user=alice).count() == 1


def test_consent_is_skipped_only_for_scopes_the_app_already_holds(web_app, alice):
    """As docs/api.md says: with approval_prompt=auto, and a live token of the app
    covering every scope asked for; otherwise the consent page."""
    browser = fresh_session(alice)
    code, verifier = a_code(browser, web_app, scope="games:read")
    assert exchange(web_app, code, verifier).status_code == 200
    _verifier, challenge = pkce_pair()

    same = authorize(browser, web_app, "games:read", challenge, approval_prompt="auto")
    more = authorize(browser, web_app, "games:read games:play", challenge, approval_prompt="auto")
    forced = authorize(browser, web_app, "games:read", challenge)

    assert same.status_code == 302
    assert "code=" in same["Location"]
    assert more.status_code == 200
    assert "games:play" in more.content.decode()
    assert forced.status_code == 200

"""Developers register their own OAuth apps on the site: three kinds, the
secret shown once and stored hashed, redirect URIs checked, a fresh sign-in
needed, and an app deleted stops working at once."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import pytest
from django.contrib.auth.hashers import check_password
from django.test import Client
from oauth2_provider.models import get_application_model

from accounts import links
from accounts.developer_apps import MAX_APPS
from tests.support.oauth import bearer, device_token, fresh_session

pytestmark = pytest.mark.django_db
Application = get_application_model()
PAGE = "/accounts/developer/apps/"


def register(client: Client, **fields: str):
    return client.post(PAGE, {"name": "My bot", "kind": "device", "redirect_uris": "", **fields})


def test_a_bot_registered_on_the_page_gets_tokens_by_the_device_grant(alice, started_game):
    browser = fresh_session(alice)
    response = register(browser)
    assert response.status_code == 200
    assert response["Cache-Control"].startswith("max-age=0")
    app = Application.objects.get(user=alice)
    assert (app.client_type, app.authorization_grant_type) == ("public", "urn:ietf:params:oauth:grant-type:device_code")
    page = response.content.decode()
    assert app.client_id in page
    assert 'data-testid="client-secret"' not in page, "a public client has no secret"

    token = device_token(app, alice, scope="games:read")["access_token"]
    assert bearer(token).get(f"/api/v1/games/{started_game.public_id}").status_code == 200
    assert app.client_id in browser.get(PAGE).content.decode()


def test_a_server_app_sees_its_secret_once_and_the_site_keeps_only_a_hash(alice):
    browser = fresh_session(alice)
    response = register(browser, name="Board site", kind="server", redirect_uris="https://boards.example.com/back")
    secret = re.search(r'data-testid="client-secret">([^<]+)<', response.content.decode()).group(1)
    app = Application.objects.get(user=alice)
    assert app.client_type == "confidential"
    assert app.redirect_uris == "https://boards.example.com/back"
    assert app.client_secret != secret
    assert check_password(secret, app.client_secret)
    assert secret not in browser.get(PAGE).content.decode()


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"kind": "browser", "redirect_uris": ""}, "needs at least one redirect URI"),
        ({"kind": "server", "redirect_uris": "ftp://files.example.com/"}, "is not a redirect URI"),
        ({"kind": "browser", "redirect_uris": "https://app.example.com/#here"}, "is not a redirect URI"),
        ({"kind": "wizard"}, "Select a valid choice"),
        ({"name": ""}, "This field is required"),
    ],
)
def test_bad_registrations_are_explained_on_the_form(alice, fields, message):
    response = register(fresh_session(alice), **fields)
    assert response.status_code == 400
    assert message in response.content.decode()
    assert not Application.objects.exists()


def test_a_developer_has_at_most_a_few_apps(alice):
    browser = fresh_session(alice)
    for i in range(MAX_APPS):
        assert register(browser, name=f"Bot {i}").status_code == 200
    refused = register(browser, name="One too many")
    assert refused.status_code == 400
    assert "delete one first" in refused.content.decode()
    assert Application.objects.filter(user=alice).count() == MAX_APPS


def test_deleting_an_app_ends_its_tokens_and_only_its_owner_may(alice, bob):
    register(fresh_session(alice))
    app = Application.objects.get(user=alice)
    token = device_token(app, alice)["access_token"]
    assert fresh_session(bob).post(f"{PAGE}{app.pk}/delete/").status_code == 404
    assert fresh_session(alice).post(f"{PAGE}{app.pk}/delete/").status_code == 302
    assert not Application.objects.exists()
    assert bearer(token).get("/api/v1/games").status_code == 401


def test_registering_needs_a_fresh_sign_in(alice, started_game):
    client = Client()
    client.post(urlsplit(links.game_url(alice, str(started_game.public_id))).path)  # a game email's link
    response = register(client)
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/")
    assert not Application.objects.exists()
    assert Client().get(PAGE)["Location"].startswith("/accounts/login/")

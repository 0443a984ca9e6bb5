"""Bad sign-in and unsubscribe links, and garbage posted to the play page's
form: each answered by a page that says what is wrong.

Part of the bad input catalogue (tests/reliability/test_bad_input_*.py): one test
per kind of bad input, through each way input comes in. Every test shows two
things: the refusal is clear, and no game changed: its events, version, status
and seats are as they were (``unchanged``). Where a refusal could hide a harness
that never reaches the game, the test then sends the same input made good and
sees it played."""

from __future__ import annotations

import time

import pytest
from django.conf import settings
from django.core import signing
from django.test import Client

from accounts import links
from notifications import outbox
from notifications.models import Kind
from tests.support.unchanged import unchanged

pytestmark = pytest.mark.django_db


def signed_in_as(client: Client) -> str | None:
    return client.session.get("_auth_user_id")


# --- links in emails ----------------------------------------------------------------------------


def test_expired_magic_link(alice, started_game, monkeypatch):
    """A sign-in link made three hours ago (they last two)."""
    made_at = time.time() - 3 * 3600
    with monkeypatch.context() as travel:
        travel.setattr(signing.time, "time", lambda: made_at)  # type: ignore[attr-defined]
        url = links.login_url(alice, next_path=f"/games/{started_game.public_id}/")
    client = Client()
    with unchanged(started_game):
        response = client.get(url.removeprefix(settings.SITE_URL))
        assert response.status_code == 400
        assert "This link has expired. Ask for a new one." in response.content.decode()
    assert signed_in_as(client) is None
    alice.refresh_from_db()
    assert alice.last_login is None


def test_tampered_magic_link(alice, started_game):
    """A game link with one character of its signature changed."""
    url = links.game_url(alice, str(started_game.public_id)).removeprefix(settings.SITE_URL)
    head, token, tail = url.rsplit("/", 2)
    at = len(token) - 5  # inside the signature, the last part of the token
    tampered = token[:at] + ("A" if token[at] != "A" else "B") + token[at + 1 :]
    client = Client()
    with unchanged(started_game):
        response = client.get(f"{head}/{tampered}/{tail}")
        assert response.status_code == 400
        assert "This link is not valid." in response.content.decode()
        assert response["Referrer-Policy"] == "no-referrer"
    assert signed_in_as(client) is None
    # The untampered link works (its button signs in).
    assert client.get(url).status_code == 200
    assert client.post(url).status_code == 302
    assert signed_in_as(client) == str(alice.pk)


def test_a_link_of_one_purpose_used_for_another(alice, started_game):
    """The token of an unsubscribe link, put in a sign-in link's URL."""
    unsubscribe = links.unsubscribe_url(alice, Kind.YOUR_TURN).removeprefix(settings.SITE_URL)
    token = unsubscribe.rstrip("/").rsplit("/", 1)[1]
    client = Client()
    with unchanged(started_game):
        response = client.get(f"/accounts/link/{links.LOGIN}/{token}/")
        assert response.status_code == 400
        assert "This link is not valid." in response.content.decode()
        response = client.get(f"/accounts/link/{links.GAME}/{token}/")
        assert response.status_code == 400
    assert signed_in_as(client) is None
    assert Kind.YOUR_TURN not in outbox.preference_for(alice).unsubscribed


# --- the play page's form ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "fields",
    [
        {"intent": "dance", "version": "now", "card": "ace", "city": "Manhattan", "size": "XL"},
        {"intent": "select", "version": "{version}", "size_1": "-3", "size_2": "1e3", "notation": "x\x00y"},
        {"colour": "plaid", "size_4": "99"},
        {"intent": "place", "card": "1", "city": "1", "size": "1", "colour": "red"},  # no version
    ],
)
def test_web_form_garbage(alice, started_game, fields):
    client = Client()
    client.force_login(alice)
    with unchanged(started_game):
        sent = {name: value.replace("{version}", str(started_game.version)) for name, value in fields.items()}
        response = client.post(f"/games/{started_game.public_id}/play/", sent)
        assert response.status_code == 400
        html = response.content.decode()
        assert 'data-testid="refusal"' in html
        assert "Please check the move." in html


def test_a_post_to_the_game_page_itself(alice, started_game):
    """The game's page only shows the game: a form posted to it changes nothing."""
    client = Client()
    client.force_login(alice)
    with unchanged(started_game):
        response = client.post(
            f"/games/{started_game.public_id}/", {"notation": "resign", "version": started_game.version}
        )
        assert response.status_code == 405

"""Signing in: the email form, its throttle, and the emailed links."""

from __future__ import annotations

import re
import time
from urllib.parse import urlsplit

import pytest
from django.contrib.auth import SESSION_KEY
from django.core import signing
from django.test import Client

from accounts import links
from accounts.models import User
from games import services
from notifications.models import Kind, Notification

pytestmark = pytest.mark.django_db


def path_of(url: str) -> str:
    parts = urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "")


def signed_in_as(client: Client) -> str | None:
    return client.session.get(SESSION_KEY)


def use_link(client: Client, url: str):
    """Open an emailed link and press its one button, as a person does."""
    page = client.get(url)
    assert page.status_code == 200, page.content
    assert 'data-testid="link-continue"' in page.content.decode()
    return client.post(url)


# --- the sign-in form ---------------------------------------------------------------------------


def test_login_page_shows_an_email_form():
    response = Client().get("/accounts/login/?next=/games/")
    assert response.status_code == 200
    html = response.content.decode()
    assert 'name="email"' in html
    assert 'type="email"' in html
    assert 'name="csrfmiddlewaretoken"' in html
    assert 'name="next" value="/games/"' in html


def test_asking_for_a_link_writes_a_login_email(alice):
    response = Client().post("/accounts/login/", {"email": "Alice@Example.com"})
    assert response.status_code == 200
    assert 'data-testid="link-sent"' in response.content.decode()
    assert "alice@example.com" in response.content.decode()
    notification = Notification.objects.get(kind=Kind.LOGIN)
    assert notification.email == "alice@example.com"
    assert notification.user == alice


def test_a_bad_address_is_refused_with_the_form_kept():
    response = Client().post("/accounts/login/", {"email": "not an address"})
    assert response.status_code == 200
    assert 'class="errorlist"' in response.content.decode()
    assert not Notification.objects.exists()


def test_the_sixth_link_in_an_hour_is_throttled():
    client = Client()
    for _ in range(5):
        assert client.post("/accounts/login/", {"email": "new@example.com"}).status_code == 200
    response = client.post("/accounts/login/", {"email": "new@example.com"})
    assert response.status_code == 429
    assert response["Retry-After"] == "3600"
    assert 'data-testid="throttled"' in response.content.decode()
    assert Notification.objects.filter(kind=Kind.LOGIN).count() == 5


# --- the links ------------------------------------------------------------------------------------


def test_a_login_link_signs_in_once(alice):
    url = path_of(links.login_url(alice))
    client = Client()
    response = use_link(client, url)
    assert response.status_code == 302
    assert response["Location"] == "/games/"
    assert response["Referrer-Policy"] == "no-referrer"
    assert signed_in_as(client) == str(alice.pk)

    again = Client().get(url)
    assert again.status_code == 400
    assert again["Referrer-Policy"] == "no-referrer"
    html = again.content.decode()
    assert "already been used" in html
    assert 'data-testid="login-form"' in html  # ask for a new one right there


def test_a_login_link_keeps_a_safe_next_page(alice):
    client = Client()
    response = use_link(client, path_of(links.login_url(alice, "/mail/preferences/")))
    assert response.status_code == 302
    assert response["Location"] == "/mail/preferences/"


def test_a_game_link_lands_on_the_game(started_game, bob):
    client = Client()
    response = use_link(client, path_of(links.game_url(bob, str(started_game.public_id))))
    assert response.status_code == 302
    assert response["Location"] == f"/games/{started_game.public_id}/"
    assert response["Referrer-Policy"] == "no-referrer"
    assert signed_in_as(client) == str(bob.pk)
    # Game links keep working (every "your turn" email has one).
    assert use_link(Client(), path_of(links.game_url(bob, str(started_game.public_id)))).status_code == 302


def test_an_invitation_link_makes_the_account_and_offers_the_seat(alice):
    game = services.create_game(
        creator=alice,
        options={"players": 2},
        seats=[services.SeatSpec("me"), services.SeatSpec("invite", email="carol@example.com")],
    )
    client = Client()
    response = use_link(client, path_of(links.invite_url("carol@example.com", str(game.public_id), 1)))
    assert response.status_code == 302
    assert response["Location"] == f"/games/{game.public_id}/"
    assert response["Referrer-Policy"] == "no-referrer"
    carol = User.objects.get(email="carol@example.com")
    assert signed_in_as(client) == str(carol.pk)
    html = client.get(response["Location"]).content.decode()
    assert 'data-testid="join-button"' in html
    assert 'data-testid="decline-button"' in html
    # Opening the link did not take the seat: only the Join button does.
    assert game.seats.get(index=1).user is None


def test_a_tampered_link_is_refused(alice):
    url = path_of(links.login_url(alice))
    head, token, tail = url.rsplit("/", 2)
    tampered = f"{head}/{token[:-3]}{'AAA' if not token.endswith('AAA') else 'BBB'}/{tail}"
    client = Client()
    response = client.get(tampered)
    assert response.status_code == 400
    assert "not valid" in response.content.decode()
    assert response["Referrer-Policy"] == "no-referrer"
    assert signed_in_as(client) is None


def test_a_link_for_another_purpose_is_refused(alice):
    token = links.make_token(links.UNSUBSCRIBE, email=alice.email, user=alice, kind="your_turn")
    response = Client().get(f"/accounts/link/login/{token}/")
    assert response.status_code == 400


def test_an_unknown_purpose_is_404():
    assert Client().get("/accounts/link/teleport/abc/").status_code == 404


def test_an_expired_link_is_refused(alice, monkeypatch):
    url = path_of(links.login_url(alice))
    later = time.time() + links.MAX_AGE[links.LOGIN].total_seconds() + 60
    monkeypatch.setattr(signing.time, "time", lambda: later)  # type: ignore[attr-defined]
    client = Client()
    response = client.get(url)
    assert response.status_code == 400
    assert "expired" in response.content.decode()
    assert signed_in_as(client) is None


def test_sign_out_is_a_post(alice, browser):
    client = browser(alice)
    html = client.get("/games/").content.decode()
    assert 'action="/accounts/logout/"' in html
    assert 'data-testid="sign-out"' in html
    assert client.get("/accounts/logout/").status_code == 405
    assert signed_in_as(client) == str(alice.pk)
    response = client.post("/accounts/logout/")
    assert response.status_code == 302
    assert signed_in_as(client) is None


def test_a_first_sign_in_link_is_single_use_too():
    from accounts.services import request_sign_in_link
    from notifications.emails import build_message
    from notifications.models import Kind, Notification

    request_sign_in_link("newbie@example.com")
    body = str(build_message(Notification.objects.get(kind=Kind.LOGIN, email="newbie@example.com")).body)
    url = re.search(r"https?://[^/\s]+(/accounts/link/login/[^\s]+)", body).group(1)
    assert use_link(Client(), url).status_code == 302
    assert Client().get(url).status_code == 400


def test_a_sign_in_token_without_an_account_is_refused():
    token = links.make_token(links.LOGIN, email="nobody@example.com")
    assert Client().get(f"/accounts/link/login/{token}/").status_code == 400

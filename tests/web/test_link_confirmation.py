"""Emailed links that mail scanners open first: a GET shows one button and
changes nothing; the button's POST signs in. Opening someone else's link
while signed in asks before switching accounts."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest
from django.contrib.auth import SESSION_KEY
from django.test import Client

from accounts import links
from accounts.models import User
from games import services

pytestmark = pytest.mark.django_db


def path_of(url: str) -> str:
    parts = urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "")


def test_a_scanner_opening_a_sign_in_link_leaves_it_valid(alice):
    url = path_of(links.login_url(alice))
    for _ in range(3):  # the scanner, the link preview, the spam filter
        scanner = Client()
        page = scanner.get(url)
        assert page.status_code == 200
        assert page["Referrer-Policy"] == "same-origin", "the token never leaves the site"
        assert SESSION_KEY not in scanner.session
    alice.refresh_from_db()
    assert alice.last_login is None
    person = Client()
    assert person.post(url).status_code == 302
    assert person.session[SESSION_KEY] == str(alice.pk)


def test_a_scanner_opening_an_invitation_makes_no_account(alice):
    game = services.create_game(
        creator=alice,
        options={"players": 2},
        seats=[services.SeatSpec("me"), services.SeatSpec("invite", email="carol@example.com")],
    )
    url = path_of(links.invite_url("carol@example.com", str(game.public_id), 1))
    page = Client().get(url)
    assert page.status_code == 200
    assert "carol@example.com" in page.content.decode()
    assert not User.objects.filter(email="carol@example.com").exists()


def test_a_game_link_of_the_player_already_signed_in_just_leads_to_the_game(started_game, bob):
    client = Client()
    client.force_login(bob)
    response = client.get(path_of(links.game_url(bob, str(started_game.public_id))))
    assert response.status_code == 302
    assert response["Location"] == f"/games/{started_game.public_id}/"


def test_opening_someone_elses_link_asks_before_switching(started_game, alice, bob):
    client = Client()
    client.force_login(alice)
    url = path_of(links.game_url(bob, str(started_game.public_id)))

    page = client.get(url)

    assert page.status_code == 200
    html = page.content.decode()
    assert 'data-testid="switch-warning"' in html
    assert "alice@example.com" in html
    assert "bob@example.com" in html
    assert client.session[SESSION_KEY] == str(alice.pk)  # nothing switched yet
    assert client.post(url).status_code == 302
    assert client.session[SESSION_KEY] == str(bob.pk)


def test_page_links_lead_to_their_page_only(alice):
    client = Client()
    assert client.post(urlsplit(links.page_url(alice, "preferences")).path)["Location"] == "/mail/preferences/"
    forged = links.make_token(links.PAGE, email=alice.email, user=alice, page="/admin/")
    assert Client().get(f"/accounts/link/page/{forged}/").status_code == 400

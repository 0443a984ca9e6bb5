"""What a session may do depends on how it was signed in: an emailed game,
invitation or page link may play, read and change mail preferences; tokens
and the admin need a fresh sign-in (a sign-in link, or a password for staff);
a token never makes tokens."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest
from django.test import Client

from accounts import links
from accounts.models import ApiToken
from accounts.services import create_api_token

pytestmark = pytest.mark.django_db
TOKENS = "/api/v1/tokens"


def signed_in_by_link(url: str) -> Client:
    client = Client()
    path = urlsplit(url).path
    assert client.get(path).status_code == 200
    assert client.post(path).status_code == 302
    return client


def test_a_game_link_session_plays_and_reads_but_makes_no_token(started_game, alice):
    client = signed_in_by_link(links.game_url(alice, str(started_game.public_id)))
    assert client.get(f"/games/{started_game.public_id}/").status_code == 200
    assert client.get("/mail/preferences/").status_code == 200
    assert client.post("/mail/preferences/", {"frequency": "daily_digest", "language": "en"}).status_code == 302
    assert client.get(TOKENS).status_code == 200

    response = client.post(TOKENS, {"name": "from a forwarded email"}, content_type="application/json")

    assert response.status_code == 403
    assert "fresh sign-in" in response.json()["detail"]
    assert not ApiToken.objects.exists()


@pytest.mark.parametrize("purpose", ["invite", "page"])
def test_invitation_and_page_link_sessions_make_no_token(alice, lobby_game, purpose):
    url = (
        links.invite_url(alice.email, str(lobby_game.public_id), 0)
        if purpose == "invite"
        else links.page_url(alice, "preferences")
    )
    client = signed_in_by_link(url)
    response = client.post(TOKENS, {"name": "x"}, content_type="application/json")
    assert response.status_code == 403


def test_a_fresh_sign_in_link_may_make_a_token(alice, started_game):
    client = signed_in_by_link(links.game_url(alice, str(started_game.public_id)))
    # The same browser asks for a sign-in link and uses it: the session is fresh now.
    alice.refresh_from_db()
    path = urlsplit(links.login_url(alice)).path
    assert client.get(path).status_code == 200  # a sign-in link always asks, even when signed in
    assert client.post(path).status_code == 302
    response = client.post(TOKENS, {"name": "my script"}, content_type="application/json")
    assert response.status_code == 201


def test_a_token_cannot_make_tokens(alice):
    client = Client(HTTP_AUTHORIZATION=f"Bearer {create_api_token(user=alice, name='script').raw}")
    assert client.get(TOKENS).status_code == 200
    response = client.post(TOKENS, {"name": "child"}, content_type="application/json")
    assert response.status_code == 403
    assert ApiToken.objects.count() == 1


def test_staff_never_reach_the_admin_through_an_emailed_link(make_user):
    root = make_user("root@example.com", is_staff=True, is_superuser=True, password="a long password 123")
    for make_url in (lambda: links.page_url(root, "games"), lambda: links.login_url(root)):
        root.refresh_from_db()
        client = signed_in_by_link(make_url())
        response = client.get("/admin/")
        assert response.status_code == 302
        assert response["Location"].startswith("/admin/login/")
    # A password sign-in in the same browser opens it.
    client = signed_in_by_link(links.page_url(root, "games"))
    login = client.post(
        "/admin/login/?next=/admin/", {"username": root.email, "password": "a long password 123", "next": "/admin/"}
    )
    assert login.status_code == 302
    assert client.get("/admin/").status_code == 200

"""Personal API tokens: shown once, stored as a hash, listed, revoked, and
managed by operators in the admin."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.admin.models import LogEntry
from django.contrib.messages import get_messages
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import ApiToken, User
from accounts.services import create_api_token

pytestmark = pytest.mark.django_db

API = "/api/v1"
RAW_TOKEN = re.compile(r"mbm_[A-Za-z0-9_-]{20,}")


def bearer(raw: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    return client


def assert_not_stored(raw: str) -> None:
    """The raw token appears in no field of any stored token."""
    for token in ApiToken.objects.all():
        for field in ApiToken._meta.concrete_fields:
            value = str(field.value_from_object(token))
            assert raw not in value, field.name
    assert not ApiToken.objects.filter(token_hash=raw).exists()


@pytest.fixture
def admin_user(make_user: Callable[..., User]) -> User:
    return make_user("root@example.com", is_staff=True, is_superuser=True)


@pytest.fixture
def admin_client(admin_user: User) -> APIClient:
    client = APIClient()
    client.force_login(admin_user)
    return client


@pytest.fixture
def signed_in() -> Callable[[User], APIClient]:
    """A browser session signed in afresh (not by a game link, not by a token):
    the only kind that may create tokens (accounts/permissions.py)."""

    def make(user: User) -> APIClient:
        client = APIClient()
        client.force_login(user)
        return client

    return make


# --- the API -------------------------------------------------------------------------------


def test_create_shows_the_token_once_and_stores_only_its_hash(alice, client_for, signed_in):
    client = signed_in(alice)
    response = client.post(f"{API}/tokens", {"name": "my script"}, format="json")
    assert response.status_code == 201, response.content
    body = response.json()
    raw = body["token"]
    assert raw.startswith("mbm_")
    assert len(raw) > 30
    assert set(body) == {"id", "name", "prefix", "created", "last_used", "revoked", "scopes", "token"}
    assert body["name"] == "my script"
    assert body["prefix"] == raw[:12]
    assert body["last_used"] is None
    assert body["revoked"] is None

    token = ApiToken.objects.get(pk=body["id"])
    assert token.user == alice
    assert token.token_hash == hashlib.sha256(raw.encode()).hexdigest()
    assert_not_stored(raw)

    # The token works, and is never shown again.
    assert bearer(raw).get(f"{API}/me").json()["email"] == alice.email
    listed = client.get(f"{API}/tokens")
    assert raw not in listed.content.decode()
    assert token.token_hash not in listed.content.decode()


def test_list_shows_my_tokens_without_secrets(alice, bob, client_for, signed_in):
    client = signed_in(alice)
    create_api_token(user=alice, name="tests")
    created = client.post(f"{API}/tokens", {"name": "second"}, format="json").json()
    create_api_token(user=bob, name="bob's")

    response = client.get(f"{API}/tokens")
    assert response.status_code == 200
    listed = response.json()
    assert sorted(t["name"] for t in listed) == ["second", "tests"]
    for entry in listed:
        assert set(entry) == {"id", "name", "prefix", "created", "last_used", "revoked", "scopes"}
        assert "token" not in entry
        assert "token_hash" not in entry
    assert created["token"] not in response.content.decode()
    for token in ApiToken.objects.all():
        assert token.token_hash not in response.content.decode()


def test_revoke_by_delete_then_the_token_is_refused(alice, client_for, signed_in):
    raw = signed_in(alice).post(f"{API}/tokens", {"name": "doomed"}, format="json").json()["token"]
    client = bearer(raw)
    assert client.get(f"{API}/me").status_code == 200
    token = ApiToken.objects.get(token_hash=hashlib.sha256(raw.encode()).hexdigest())

    # A token can revoke itself.
    assert client.delete(f"{API}/tokens/{token.pk}").status_code == 204
    token.refresh_from_db()
    assert token.revoked is not None
    assert not token.is_active

    refused = client.get(f"{API}/me")
    assert refused.status_code == 401
    assert refused["Content-Type"] == "application/problem+json"
    assert refused.json()["code"] == "authentication_failed"

    # Revoked tokens stay listed, marked revoked; revoking again changes nothing.
    other = client_for(alice)
    listed = {t["id"]: t for t in other.get(f"{API}/tokens").json()}
    assert listed[token.pk]["revoked"] is not None
    revoked_at = token.revoked
    assert other.delete(f"{API}/tokens/{token.pk}").status_code == 204
    token.refresh_from_db()
    assert token.revoked == revoked_at


def test_last_used_is_updated_on_use(alice):
    new = create_api_token(user=alice, name="cli")
    assert new.token.last_used is None
    client = bearer(new.raw)

    assert client.get(f"{API}/me").status_code == 200
    new.token.refresh_from_db()
    first = new.token.last_used
    assert first is not None
    assert timezone.now() - first < timedelta(seconds=30)

    # Within a minute the time is not rewritten (no write per request)...
    assert client.get(f"{API}/me").status_code == 200
    new.token.refresh_from_db()
    assert new.token.last_used == first

    # ...after that, it is.
    long_ago = timezone.now() - timedelta(hours=2)
    ApiToken.objects.filter(pk=new.token.pk).update(last_used=long_ago)
    assert client.get(f"{API}/games").status_code == 200
    new.token.refresh_from_db()
    assert new.token.last_used > long_ago + timedelta(hours=1)


def test_a_refused_token_is_not_marked_used(alice):
    new = create_api_token(user=alice, name="cli")
    bearer(new.raw + "x").get(f"{API}/me")
    new.token.refresh_from_db()
    assert new.token.last_used is None


def test_other_users_tokens_are_invisible_and_cannot_be_revoked(alice, bob, client_for):
    theirs = create_api_token(user=bob, name="bob's phone")
    client = client_for(alice)

    assert all(t["id"] != theirs.token.pk for t in client.get(f"{API}/tokens").json())
    response = client.delete(f"{API}/tokens/{theirs.token.pk}")
    assert response.status_code == 404
    assert response["Content-Type"] == "application/problem+json"
    assert response.json()["code"] == "token_not_found"
    theirs.token.refresh_from_db()
    assert theirs.token.revoked is None
    assert bearer(theirs.raw).get(f"{API}/me").json()["email"] == bob.email


def test_token_names_are_validated(alice, client_for, signed_in):
    client = signed_in(alice)
    before = ApiToken.objects.count()
    for body in ({}, {"name": ""}, {"name": "   "}, {"name": "x" * 81}, {"name": ["a"]}):
        response = client.post(f"{API}/tokens", body, format="json")
        assert response.status_code == 400, (body, response.content)
        assert response.json()["code"] == "invalid"
    assert ApiToken.objects.count() == before


# Names with no visible character: only what Python trims but ECMA-262's \s does not count
# (\x1c-\x1f, \x85), only what ECMA-262 counts but Python does not (\ufeff), controls, spaces.
INVISIBLE_NAMES = ["\x1f", "\x1c\x1d\x1e", "\x85", "\ufeff", "\x01\x7f", "\u3000\u00a0 ", "\u2028\t"]


def served_name_pattern(client: APIClient) -> str:
    schema = client.get(f"{API}/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    return str(schema["components"]["schemas"]["TokenRequest"]["properties"]["name"]["pattern"])


@pytest.mark.parametrize("name", INVISIBLE_NAMES, ids=ascii)
def test_a_name_with_no_visible_character_is_refused_by_the_schema_and_the_api_alike(alice, signed_in, name):
    """docs/reliability.md F5: such a name was valid to the schema (\\S) and blank to the API
    (400), so a client following the schema was refused as malformed. Now the schema's
    pattern refuses it too, and means the same to every regular-expression dialect."""
    client = signed_in(alice)
    pattern = served_name_pattern(client)
    assert not re.search(r"\\[sSwWdDbB]|(?<!\\)\.", pattern), f"{pattern}: a shorthand class differs by dialect"
    assert re.search(pattern, name) is None
    response = client.post(f"{API}/tokens", {"name": name}, format="json")
    assert response.status_code == 400, response.content
    assert response.json()["code"] == "invalid"
    assert "name" in response.json()["errors"]
    assert not ApiToken.objects.filter(user=alice).exists()


@pytest.mark.parametrize("name", ["a\x1f", "\u200bx", "\u00e9", "\ud55c"], ids=ascii)
def test_a_name_with_a_visible_character_is_allowed_by_the_schema_and_the_api_alike(alice, signed_in, name):
    client = signed_in(alice)
    assert re.search(served_name_pattern(client), name) is not None
    response = client.post(f"{API}/tokens", {"name": name}, format="json")
    assert response.status_code == 201, response.content


def test_each_token_is_different(alice, client_for, signed_in):
    client = signed_in(alice)
    raws = {client.post(f"{API}/tokens", {"name": f"t{i}"}, format="json").json()["token"] for i in range(3)}
    assert len(raws) == 3


# --- the admin -----------------------------------------------------------------------------


def messages_of(response: Any) -> list[str]:
    return [str(m) for m in get_messages(response.wsgi_request)]


def test_admin_creates_a_token_and_shows_it_once(admin_client, alice):
    before = ApiToken.objects.count()
    response = admin_client.post(
        "/admin/accounts/apitoken/add/", {"user": alice.pk, "name": "support", "scope": "games:read"}, follow=True
    )
    assert response.status_code == 200
    assert ApiToken.objects.count() == before + 1
    page = response.content.decode()
    shown = RAW_TOKEN.findall(page)
    assert len(set(shown)) == 1, shown
    raw = shown[0]

    token = ApiToken.objects.get(name="support")
    assert token.user == alice
    assert token.prefix == raw[:12]
    assert token.token_hash == hashlib.sha256(raw.encode()).hexdigest()
    assert_not_stored(raw)
    for entry in LogEntry.objects.all():
        assert raw not in entry.object_repr
        assert raw not in str(entry.change_message)

    # It works for alice, and is not shown again: not in the list, not on its page.
    assert bearer(raw).get(f"{API}/me").json()["email"] == alice.email
    for url in ("/admin/accounts/apitoken/", f"/admin/accounts/apitoken/{token.pk}/change/"):
        page = admin_client.get(url)
        assert page.status_code == 200
        assert raw not in page.content.decode()
        assert token.token_hash not in page.content.decode()


def test_admin_revoke_action(admin_client, alice, bob):
    a = create_api_token(user=alice, name="a")
    b = create_api_token(user=bob, name="b")
    keep = create_api_token(user=bob, name="keep")
    response = admin_client.post(
        "/admin/accounts/apitoken/",
        {"action": "revoke", "_selected_action": [a.token.pk, b.token.pk]},
        follow=True,
    )
    assert response.status_code == 200
    assert any("Revoked 2 token(s)" in m for m in messages_of(response))
    for new in (a, b, keep):
        new.token.refresh_from_db()
    assert a.token.revoked is not None
    assert b.token.revoked is not None
    assert keep.token.revoked is None
    assert bearer(a.raw).get(f"{API}/me").status_code == 401
    assert bearer(b.raw).get(f"{API}/me").status_code == 401
    assert bearer(keep.raw).get(f"{API}/me").status_code == 200


def test_a_token_keeps_its_owner_and_scope_in_the_admin(admin_client, alice, bob):
    """A token's page may rename it; handing it to another account (its bearer would act as
    them) or widening what it may do is not an operator's edit: make a new token instead."""
    new = create_api_token(user=alice, name="reader", scope="games:read")
    response = admin_client.post(
        f"/admin/accounts/apitoken/{new.token.pk}/change/",
        {"user": bob.pk, "name": "renamed", "scope": "games:read games:play webhooks:manage"},
    )
    assert response.status_code == 302
    new.token.refresh_from_db()
    assert new.token.name == "renamed"
    assert new.token.user == alice
    assert new.token.scope == "games:read"
    assert bearer(new.raw).get(f"{API}/me").json()["email"] == alice.email


def test_admin_revoked_filter_and_search(admin_client, alice):
    create_api_token(user=alice, name="findme")
    response = admin_client.get("/admin/accounts/apitoken/", {"q": "findme"})
    assert response.status_code == 200
    assert "findme" in response.content.decode()
    assert admin_client.get("/admin/accounts/apitoken/", {"revoked__isnull": "True"}).status_code == 200


def test_the_admin_needs_staff(client_for, alice):
    client = APIClient()
    client.force_login(alice)
    response = client.get("/admin/accounts/apitoken/")
    assert response.status_code == 302
    assert "/admin/login/" in response["Location"]

"""Fixtures shared by the games API tests."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from rest_framework.test import APIClient

from accounts.models import User
from tests.support.api import signed_in as session_client


@pytest.fixture
def api(client_for: Callable[[User | None], APIClient]) -> Callable[[User | None], APIClient]:
    """Clients that report a server error as a 500 response instead of raising it."""

    def make(user: User | None) -> APIClient:
        client = client_for(user)
        client.raise_request_exception = False
        return client

    return make


@pytest.fixture
def signed_in() -> Callable[[User], APIClient]:
    """A browser session signed in afresh: what creating API tokens needs
    (a token cannot create tokens; accounts/permissions.py)."""

    def make(user: User) -> APIClient:
        client = APIClient()
        client.force_login(user)
        client.raise_request_exception = False
        return client

    return make


@pytest.fixture(params=["token", "session"])
def auth(request: pytest.FixtureRequest, client_for: Callable[[User | None], APIClient]) -> Callable[[User], APIClient]:
    """A client for a user, signed in by API token or by session: each test runs both ways."""

    def make(user: User) -> APIClient:
        client = client_for(user) if request.param == "token" else session_client(user)
        client.raise_request_exception = False
        return client

    return make

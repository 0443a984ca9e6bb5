"""Fixtures for the account tests: OAuth apps of both grants, owned by alice."""

from __future__ import annotations

import pytest
from oauth2_provider.models import get_application_model

from tests.support.oauth import REDIRECT

Application = get_application_model()


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

"""Pages rendered here activate the player's language in this thread: put
English back after each test, so that later tests start from the default."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.utils import translation


@pytest.fixture(autouse=True)
def _default_language_afterwards() -> Iterator[None]:
    yield
    translation.deactivate()

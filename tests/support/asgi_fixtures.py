"""The live ASGI server as a fixture, for every folder whose tests open the
site's streams (tests/streams, and the visibility crawler in tests/reliability):
registered once, through ``pytest_plugins`` in tests/conftest.py, so that no
test imports it out of another folder's conftest."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.live_server import AsgiServer, end_other_sessions


@pytest.fixture
def asgi_server(transactional_db: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[AsgiServer]:
    with AsgiServer() as server:
        yield server
    end_other_sessions()

"""What the browser tests share: the browser, the live server, the stand-in
worker, and ending the live server's database sessions once, after the last of them."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.db import connection

from tests.support.browser import browser, module_chromium  # noqa: F401 (the shared browser fixtures)
from tests.support.live_server import AsgiServer, backend_pid, end_other_sessions
from tests.support.pages import worker  # noqa: F401 (the stand-in Celery worker)


@pytest.fixture(scope="session")
def live_server_connections_closed(live_server: Any, django_db_setup: Any, django_db_blocker: Any) -> Iterator[None]:
    """The live server's request threads keep their database connections until
    the server stops, at the end of the session — after pytest-django has tried
    to drop the test database, which PostgreSQL refuses while a session is on
    it. So the other sessions are ended here, once the session's browser tests
    are all done: ending them after each test would pull the connection from
    under the next one."""
    yield
    if connection.vendor == "postgresql":
        with django_db_blocker.unblock(), connection.cursor() as cursor:
            cursor.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                " WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )


@pytest.fixture
def server(transactional_db: Any) -> Iterator[AsgiServer]:
    # The fixtures' own connection, which the next test's fixtures use again: the
    # others (the server's, and the one the test's ORM calls open under
    # Playwright's loop) are ended after, or PostgreSQL would not drop the database.
    fixtures_connection = backend_pid()
    with AsgiServer() as running:
        yield running
    end_other_sessions(keep={fixtures_connection})

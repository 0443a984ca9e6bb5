"""Faults under attack: the database connection dropped in the middle of a
request's transaction, or dead between two requests.

Each test counts what matters: actions accepted, events stored, emails sent
(by Message-ID at a real SMTP server, aiosmtpd on 127.0.0.1) — nothing lost,
nothing duplicated. Each runs in well under 30 s, on SQLite and on PostgreSQL
(docs/reliability.md)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from typing import Any

import pytest
from django.db import connection

from games.models import IdempotencyKey
from games.signals import events_appended
from notifications.models import Notification
from tests.support.fault_table import Table, Web, assert_log_whole
from tests.support.faults import wait_until

pytestmark = pytest.mark.django_db(transaction=True)


# --- the database connection dropped during a request --------------------------------------------------


class DroppedDatabase:
    """Breaks the request's database connection inside ``submit_action``'s
    transaction, after the move's events and the game row have been written
    and before the commit (the hook is the outbox writer, the last step).

    PostgreSQL: another connection terminates the request's backend
    (``pg_terminate_backend``), as a database restart or failover does.
    SQLite: another connection holds a read lock, so the request's COMMIT
    cannot take the write lock and fails ("database is locked"), as under a
    long backup or reader.
    """

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.times = 0
        self.vendor = connection.vendor
        self.reader: sqlite3.Connection | None = None
        # Heard after the move's events and emails are written, before its commit.
        events_appended.connect(self.hooked, dispatch_uid="tests.dropped_database")

    def hooked(self, sender: Any, **kwargs: Any) -> None:
        if self.times > 0:
            self.times -= 1
            self.break_connection()

    def disconnect(self) -> None:
        events_appended.disconnect(dispatch_uid="tests.dropped_database")

    def arm(self) -> None:
        self.times = 1

    def break_connection(self) -> None:
        if self.vendor == "postgresql":
            terminate_backend(connection.connection.info.backend_pid)
        else:
            self.reader = sqlite3.connect(connection.settings_dict["NAME"], isolation_level=None)
            self.reader.execute("BEGIN")
            self.reader.execute("SELECT count(*) FROM games_game").fetchone()  # a shared lock until released
            connection.connection.execute("PRAGMA busy_timeout = 300")  # fail in 0.3 s, not 20

    def release(self) -> None:
        if self.reader is not None:
            self.reader.rollback()
            self.reader.close()
            self.reader = None


def terminate_backend(pid: int) -> None:
    import psycopg

    settings = connection.settings_dict
    with psycopg.connect(
        host=settings["HOST"] or "127.0.0.1",
        port=settings["PORT"] or 5432,
        user=settings["USER"],
        password=settings.get("PASSWORD") or None,
        dbname=settings["NAME"],
        autocommit=True,
        connect_timeout=10,
    ) as admin:
        assert admin.execute("SELECT pg_terminate_backend(%s)", [pid]).fetchone() == (True,)
        gone = wait_until(
            lambda: admin.execute("SELECT count(*) FROM pg_stat_activity WHERE pid = %s", [pid]).fetchone() == (0,),
            10,
        )
        assert gone, "the backend outlived pg_terminate_backend"


@pytest.fixture
def dropped_database(monkeypatch: pytest.MonkeyPatch) -> Iterator[DroppedDatabase]:
    fault = DroppedDatabase(monkeypatch)
    try:
        yield fault
    finally:
        fault.release()
        fault.disconnect()


def test_database_connection_dropped_mid_transaction(alice, bob, dropped_database) -> None:
    """The client gets a clear, retryable answer (503, or a 4xx problem), never
    a 500; the game is intact (no partial events, no email); the retry succeeds
    on a fresh connection and is stored once."""
    web = Web()
    table = Table(alice, bob)
    token, body = table.next_move()
    version = table.game.version
    notifications = Notification.objects.count()

    dropped_database.arm()
    status, headers, content = web.post(table.url, body, token, HTTP_IDEMPOTENCY_KEY="drop-1")
    dropped_database.release()

    # The game is intact: nothing of the failed move was stored.
    assert dropped_database.times == 0, "the fault was injected"
    table.game.refresh_from_db()
    assert table.game.version == version
    assert_log_whole(table.game)
    assert Notification.objects.count() == notifications
    assert not IdempotencyKey.objects.filter(key="drop-1").exists()
    # The retry (same key) succeeds: Django connects again; a second retry gets the stored answer.
    retry_status, _, retry_content = web.post(table.url, body, token, HTTP_IDEMPOTENCY_KEY="drop-1")
    assert retry_status == 200, retry_content[:500]
    again_status, _, again_content = web.post(table.url, body, token, HTTP_IDEMPOTENCY_KEY="drop-1")
    assert (again_status, json.loads(again_content)) == (200, json.loads(retry_content))
    table.game.refresh_from_db()
    assert table.game.version == json.loads(retry_content)["version"] > version
    assert_log_whole(table.game)
    # What the client was told when the connection dropped.
    assert status != 500, f"a dropped database connection answered 500: {content[:300]!r}"
    assert status == 503 or 400 <= status < 500, status
    assert headers.get("Content-Type", "").startswith("application/problem+json"), (headers, content[:300])
    if status == 503:
        assert "Retry-After" in headers


def test_database_connection_dead_between_requests_the_next_request_reconnects(alice, bob) -> None:
    """The database drops the idle, persistent connection between two requests
    (PostgreSQL: the backend is terminated; SQLite: the handle is closed): the
    next request must simply succeed, on a new connection."""
    web = Web()
    table = Table(alice, bob)
    for _ in range(3):
        token, body = table.next_move()
        version = table.game.version
        status, _, content = web.post(table.url, body, token)  # leaves its connection behind, as a server does
        assert status == 200, content[:300]
        token, body = table.next_move()
        connection.ensure_connection()
        if connection.vendor == "postgresql":
            terminate_backend(connection.connection.info.backend_pid)
        else:
            connection.connection.close()
        status, _, content = web.post(table.url, body, token)
        assert status == 200, content[:500]
        assert json.loads(content)["version"] > version
    assert_log_whole(table.game)

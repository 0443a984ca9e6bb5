"""Faults under attack: Redis stopped, the worker SIGKILLed mid-delivery, the
SMTP server refusing, the database connection dropped mid-request.

Each test counts what matters: actions accepted, events stored, emails sent
(by Message-ID at a real SMTP server, aiosmtpd on 127.0.0.1) — nothing lost,
nothing duplicated (except the documented at-least-once window of a worker
killed between the SMTP server's acceptance and the database commit, whose
duplicates carry the same Message-ID). Each runs in well under 30 s, on
SQLite and on PostgreSQL (docs/reliability.md).
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from django.core import mail
from django.core.handlers.wsgi import WSGIHandler
from django.db import connection
from django.test import override_settings
from django.test.client import RequestFactory
from django.utils import timezone

from accounts.models import User
from accounts.services import create_api_token
from games import store
from games.models import Game, GameEvent, IdempotencyKey
from games.signals import events_appended
from notifications import outbox
from notifications.models import Kind, Notification
from notifications.tasks import sweep_outbox as sweep_outbox_task
from tests.factories import two_player_game
from tests.support.faults import (
    Inbox,
    PrivateRedis,
    Worker,
    broker_at,
    database_url,
    free_port,
    legal_move,
    site_env,
    smtp_server,
    wait_until,
)

pytestmark = pytest.mark.django_db(transaction=True)

DELIVERY_TIMEOUT_S = 25.0
LINGER_S = 1.0  # after the last expected email, keep listening for late duplicates
LEASE_S = 2  # OUTBOX_LEASE_SECONDS of the workers killed mid-delivery


# --- the web side, as a real server runs it -------------------------------------------------


class Web:
    """Requests through Django's WSGI handler, in this thread: the real request
    cycle, including ``request_started``/``request_finished`` and so the
    ``close_old_connections`` that a server relies on to reconnect (the test
    client switches those off)."""

    def __init__(self) -> None:
        self.handler = WSGIHandler()
        self.factory = RequestFactory()

    def post(self, path: str, body: dict[str, Any], token: str, **headers: str) -> tuple[int, dict[str, str], bytes]:
        request = self.factory.post(
            path,
            data=json.dumps(body),
            content_type="application/json",
            HTTP_AUTHORIZATION=f"Bearer {token}",
            **headers,
        )
        answer: dict[str, Any] = {}

        def start_response(status: str, response_headers: list[tuple[str, str]], exc_info: Any = None) -> None:
            answer["status"] = int(status.split()[0])
            answer["headers"] = dict(response_headers)

        result = self.handler(request.environ, start_response)
        try:
            content = b"".join(result)
        finally:
            result.close()  # request_finished
        return answer["status"], answer["headers"], content


class Table:
    """A started two-player game (alice, bob) and a token for each player."""

    def __init__(self, alice: User, bob: User) -> None:
        self.game = two_player_game(alice, bob)
        self.tokens = {0: create_api_token(user=alice, name="faults").raw, 1: create_api_token(user=bob, name="f").raw}

    @property
    def url(self) -> str:
        return f"/api/v1/games/{self.game.public_id}/actions"

    def next_move(self) -> tuple[str, dict[str, Any]]:
        """The token of the seat to act and a legal action for it, at the current version."""
        move = legal_move(self.game.pk)
        assert move is not None
        seat, version, action = move
        self.game.refresh_from_db()
        return self.tokens[seat], {"action": action, "expected_version": version}


def assert_log_whole(game: Game) -> list[int]:
    game.refresh_from_db()
    seqs = list(GameEvent.objects.filter(game=game).order_by("seq").values_list("seq", flat=True))
    assert seqs == list(range(1, game.version + 1)), seqs
    state = store.state_of(game)
    assert state is not None
    assert state.seq == game.version
    return seqs


def assert_each_email_once(inbox: Inbox, rows: list[Notification]) -> None:
    """Every notification was sent, and the SMTP server accepted each Message-ID exactly once."""
    expected = {n.message_id for n in rows}
    assert len(expected) == len(rows)
    assert [n.status for n in rows] == [Notification.Status.SENT] * len(rows), [(n.key, n.status) for n in rows]
    with inbox.lock:
        received = dict(inbox.ids)
    assert set(received) == expected, {"missing": expected - set(received), "unexpected": set(received) - expected}
    assert {mid: n for mid, n in received.items() if n != 1} == {}, "an email was sent twice"


def all_sent() -> bool:
    return not Notification.objects.exclude(status=Notification.Status.SENT).exists()


def wait_for_delivery(*workers: Worker) -> None:
    """Until every notification is sent; fails at once if a worker's task raised."""

    def done() -> bool:
        for worker in workers:
            failure = worker.failed_task()
            assert not failure, f"a task failed in the worker:\n{failure}"
        return all_sent()

    delivered = wait_until(done, DELIVERY_TIMEOUT_S, step=0.2)
    assert delivered, f"still pending after {DELIVERY_TIMEOUT_S} s:\n{workers[-1].log()[-3000:]}"


# --- Redis stopped while actions arrive --------------------------------------------------------


@pytest.mark.slow  # a private Redis stopped and started
def test_redis_stopped_while_actions_arrive_the_outbox_delivers_every_email_once(alice, bob) -> None:
    """The broker (a private Redis) stops while players move and comes back empty.
    Every action is accepted (the on-commit enqueue fails softly), the emails
    wait in the outbox, and after the restart a real worker delivers each once:
    the tasks queued after the restart, and the sweep for everything else
    (those never enqueued, and those queued before the outage, lost with Redis)."""
    inbox = Inbox()
    web = Web()
    accepted: dict[str, list[int]] = {"before": [], "down": [], "after": []}
    enqueue_s: list[float] = []
    with PrivateRedis() as redis, smtp_server(inbox) as smtp_port, broker_at(redis.url):
        table = Table(alice, bob)
        for phase in ("before", "down", "after"):
            if phase == "down":
                redis.stop()
            elif phase == "after":
                redis.start()
            before = Notification.objects.count()
            for _ in range(4):
                token, body = table.next_move()
                started = time.monotonic()
                status, _, content = web.post(table.url, body, token)
                enqueue_s.append(time.monotonic() - started)
                accepted[phase].append(status)
                assert status == 200, (phase, status, content[:500])
            written = Notification.objects.count() - before
            assert written > 0, f"the moves of phase {phase!r} wrote no email"
            if phase == "down":
                pending = Notification.objects.filter(status=Notification.Status.PENDING).count()
                assert pending >= written, "the emails written during the outage wait in the outbox"
            else:
                assert len(redis.queued_notifications()) >= written, "the on-commit enqueue reaches Redis again"

        env = site_env(database=database_url(), redis_url=redis.url, smtp_port=smtp_port)
        with Worker(env) as worker:
            worker.wait_ready()
            sweep_outbox_task.delay()  # the beat's periodic sweep, through the real broker
            wait_for_delivery(worker)
            # Not a wait for a condition: what must NOT come (a late duplicate) is waited out.
            time.sleep(LINGER_S)

    seconds = {phase: [round(s, 2) for s in enqueue_s[i * 4 : i * 4 + 4]] for i, phase in enumerate(accepted)}
    print(f"\nRedis outage: action seconds by phase {seconds}")
    assert {phase: statuses.count(200) for phase, statuses in accepted.items()} == {"before": 4, "down": 4, "after": 4}
    seqs = assert_log_whole(table.game)
    assert len(seqs) == table.game.version
    assert_each_email_once(inbox, list(Notification.objects.all()))


def test_redis_stopped_with_the_cache_on_it_too_actions_are_still_accepted(alice, bob) -> None:
    """As deployed, ``REDIS_URL`` makes Redis the broker *and* the cache (which
    holds the API's throttle counters). A Redis outage must not stop play:
    actions are accepted while it is down, and nothing is lost or doubled."""
    web = Web()
    statuses: dict[str, list[int]] = {"before": [], "down": [], "after": []}
    with PrivateRedis() as redis, broker_at(redis.url):
        redis_cache = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": redis.url}}
        with override_settings(CACHES=redis_cache):
            table = Table(alice, bob)
            for phase in ("before", "down", "after"):
                if phase == "down":
                    redis.stop()
                elif phase == "after":
                    redis.start()
                for _ in range(2):
                    token, body = table.next_move()
                    status, _, _ = web.post(table.url, body, token)
                    statuses[phase].append(status)

    # Whatever was answered, the log is whole, and the emails of the stored moves go out once.
    assert_log_whole(table.game)
    pending = Notification.objects.filter(status=Notification.Status.PENDING).count()
    assert outbox.sweep_outbox() == pending
    ids = [m.extra_headers["Message-ID"] for m in mail.outbox]
    assert len(ids) == len(set(ids))
    assert all_sent()
    assert statuses == {"before": [200, 200], "down": [200, 200], "after": [200, 200]}, (
        "a Redis outage turned actions into errors (the throttle reads its counters from the Redis cache)"
    )


# --- the worker killed mid-delivery ---------------------------------------------------------------


@pytest.mark.slow  # worker processes killed and restarted
def test_worker_sigkilled_mid_delivery_every_email_is_sent_duplicates_share_the_message_id(alice, bob) -> None:
    """A real worker delivers to a slow SMTP server and is SIGKILLed while the
    server holds a message it has accepted but not yet answered. A new worker
    and the sweep deliver the rest. Nothing is lost; the one message in the
    at-least-once window (SMTP accepted, database not yet committed) is sent
    again, with the same Message-ID, so mail clients show it once."""
    count = 10
    inbox = Inbox(delay=0.3)
    with PrivateRedis() as redis, smtp_server(inbox) as smtp_port, broker_at(redis.url):
        table = Table(alice, bob)
        for i in range(count):  # each is written in its own transaction and enqueued on commit
            outbox.enqueue(
                kind=Kind.YOUR_TURN,
                key=f"kill-test-{i}",
                email=bob.email,
                user=bob,
                game=table.game,
                seat=1,
                context={"seq": table.game.version},
            )
        rows = Notification.objects.count()
        queued = redis.queued_notifications()  # every email's delivery is waiting in Redis, once
        assert sorted(queued) == sorted(Notification.objects.values_list("pk", flat=True))

        # A short claim, so that the killed worker's email is free again soon.
        env = site_env(
            database=database_url(), redis_url=redis.url, smtp_port=smtp_port, OUTBOX_LEASE_SECONDS=str(LEASE_S)
        )
        first = Worker(env, name="rel-killed")
        second = Worker(env, name="rel-second")
        try:
            first.start()
            first.wait_ready()

            def mid_delivery() -> bool:
                failure = first.failed_task()
                assert not failure, f"a task failed in the worker:\n{failure}"
                return inbox.accepted >= 3 and inbox.in_flight > 0

            mid_message = wait_until(mid_delivery, DELIVERY_TIMEOUT_S, 0.01)
            assert mid_message, f"no delivery in progress to interrupt:\n{first.log()[-3000:]}"
            first.kill()
            accepted_at_kill = inbox.accepted
            sent_at_kill = Notification.objects.filter(status=Notification.Status.SENT).count()
            assert accepted_at_kill < rows, "the worker was killed before it had delivered everything"

            second.start()
            second.wait_ready()
            # The killed task's message stays unacknowledged in Redis, and the email it
            # was sending stays claimed until the claim expires: then the sweep's turn.
            # Time passing in the worker processes (the claim's lease), which time-machine cannot move.
            time.sleep(LEASE_S + 0.5)
            sweep_outbox_task.delay()
            wait_for_delivery(second)
            time.sleep(LINGER_S)  # waiting out what must not come: a late duplicate
        finally:
            first.cleanup()
            second.cleanup()

    duplicates = inbox.duplicates()
    print(
        f"\nworker SIGKILL: {rows} emails, killed after {accepted_at_kill} accepted by SMTP "
        f"({sent_at_kill} committed as sent), {inbox.accepted} accepted in all, {duplicates} duplicate(s)"
    )
    notifications = list(Notification.objects.all())
    assert all(n.status == Notification.Status.SENT for n in notifications)
    with inbox.lock:
        received = dict(inbox.ids)
    assert set(received) == {n.message_id for n in notifications}, "every email reached the SMTP server"
    # One worker with one process holds at most one message in the window when it dies.
    assert duplicates <= 1, received
    assert sum(received.values()) == rows + duplicates


# --- the SMTP server refusing, then accepting ------------------------------------------------------------


def test_smtp_server_down_then_refusing_451_then_accepting_sends_each_email_once(alice, bob) -> None:
    """Deliveries fail while the SMTP port is closed, then while the server
    answers 451, and back off; once it accepts, every email arrives exactly once."""
    count, refusals = 6, 3
    inbox = Inbox(refuse=refusals)
    port = free_port()  # nothing listens on it yet
    table = Table(alice, bob)
    for i in range(count):
        outbox.enqueue(kind=Kind.YOUR_TURN, key=f"smtp-{i}", email=bob.email, user=bob, game=table.game, seat=1)
    rows = list(Notification.objects.order_by("pk"))
    now = timezone.now()
    with override_settings(
        EMAIL_BACKEND="django.core.mail.backends.smtp.EmailBackend", EMAIL_HOST="127.0.0.1", EMAIL_PORT=port
    ):
        # 1. Nothing listens: every delivery fails, backs off, stays pending.
        assert outbox.sweep_outbox(now=now) == 0
        assert set(Notification.objects.values_list("status", "attempts")) == {(Notification.Status.PENDING, 1)}
        assert outbox.sweep_outbox(now=now) == 0, "nothing is retried before its back-off has passed"

        with smtp_server(inbox, port=port):
            # 2. The server is up but answers 451 to the first three messages.
            later = now + timedelta(hours=1)
            sent = outbox.sweep_outbox(now=later)
            assert sent == len(rows) - refusals
            refused = Notification.objects.filter(status=Notification.Status.PENDING)
            assert refused.count() == refusals
            assert all("451" in n.last_error and n.attempts == 2 for n in refused)
            # 3. It accepts: the refused ones go out on the next sweep, and a further sweep sends nothing.
            assert outbox.sweep_outbox(now=later + timedelta(hours=1)) == refusals
            assert outbox.sweep_outbox(now=later + timedelta(hours=2)) == 0
            assert wait_until(lambda: inbox.in_flight == 0, 10), "the server is still taking a message"

    assert sum(inbox.refused.values()) == refusals
    assert_each_email_once(inbox, list(Notification.objects.all()))


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

"""Faults under attack: Redis stopped while actions arrive, with the broker and
the cache on it.

Each test counts what matters: actions accepted, events stored, emails sent
(by Message-ID at a real SMTP server, aiosmtpd on 127.0.0.1) — nothing lost,
nothing duplicated. Each runs in well under 30 s, on SQLite and on PostgreSQL
(docs/reliability.md)."""

from __future__ import annotations

import time

import pytest
from django.core import mail
from django.test import override_settings

from notifications import outbox
from notifications.models import Notification
from notifications.tasks import sweep_outbox as sweep_outbox_task
from tests.support.fault_table import Table, Web, all_sent, assert_each_email_once, assert_log_whole, wait_for_delivery
from tests.support.faults import Inbox, PrivateRedis, Worker, broker_at, database_url, site_env, smtp_server

pytestmark = pytest.mark.django_db(transaction=True)


LINGER_S = 1.0  # after the last expected email, keep listening for late duplicates


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
        for phase in redis.outage():
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
            for phase in redis.outage():
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

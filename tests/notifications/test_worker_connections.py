"""A worker keeps its database connection from one task to the next, as a web
process does from request to request, and drops it as a request would: once
``CONN_MAX_AGE`` has passed. Celery's Django fix-up alone would open a new
connection for every task (every email)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest
from celery.fixups.django import DjangoWorkerFixup
from celery.signals import task_postrun, task_prerun
from django.db import connection

from manhattan_site.celery import app
from notifications.models import Notification

pytestmark = pytest.mark.django_db(transaction=True)


class WorkerTask:
    """A task as the signals see it in a worker (hashable, unlike a namespace)."""

    request = SimpleNamespace(is_eager=False)


WORKER_TASK = WorkerTask()


@pytest.fixture
def long_lived_connection(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A connection opened under the production setting (SQLite's settings force 0)."""
    monkeypatch.setitem(connection.settings_dict, "CONN_MAX_AGE", 60)
    connection.close()
    connection.ensure_connection()
    yield
    connection.close()


def run_task(fixup: DjangoWorkerFixup, sender: Any = WORKER_TASK) -> None:
    """What a worker does around a task: the fix-up's hooks, the signals, a query."""
    fixup.on_task_prerun(sender=sender)
    task_prerun.send(sender=sender, task_id="t", task=sender, args=(), kwargs={})
    Notification.objects.count()
    fixup.on_task_postrun(sender=sender)
    task_postrun.send(sender=sender, task_id="t", task=sender, args=(), kwargs={}, retval=None, state="SUCCESS")


def test_consecutive_tasks_share_one_database_connection(long_lived_connection):
    fixup = DjangoWorkerFixup(app)
    opened = connection.connection
    for _ in range(3):
        run_task(fixup)
    assert connection.connection is opened


def test_a_connection_past_its_max_age_is_replaced_after_the_task(long_lived_connection):
    fixup = DjangoWorkerFixup(app)
    run_task(fixup)
    opened = connection.connection
    connection.close_at = time.monotonic() - 1
    run_task(fixup)
    assert connection.connection is not opened

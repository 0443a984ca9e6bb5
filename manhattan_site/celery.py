"""The Celery app: configured from Django settings under the ``CELERY_`` prefix."""

import os
from typing import Any

from celery import Celery
from celery.signals import beat_init, before_task_publish, task_postrun, task_prerun, worker_ready

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "manhattan_site.settings")

app = Celery("manhattan_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


def recycle_database_connections(sender: Any = None, **kwargs: Any) -> None:
    """Treat each task as Django treats a request: keep the database connection
    while it is young and healthy, drop it when ``CONN_MAX_AGE`` has passed or
    it failed, and health-check it before its next use. With the PostgreSQL pool
    (settings), CONN_MAX_AGE is 0: the connection goes back to the process's pool
    after each task and the next task takes it from there.

    Celery's own Django fix-up would instead close every connection before and
    after each task, so that each email opened a new PostgreSQL connection;
    ``CELERY_DB_REUSE_MAX`` (settings) turns that off and hands the job to this
    handler. Eager tasks run inside the caller's transaction and are left alone.
    """
    if getattr(getattr(sender, "request", None), "is_eager", False):
        return
    from django.db import close_old_connections

    close_old_connections()


task_prerun.connect(recycle_database_connections)
task_postrun.connect(recycle_database_connections)


def start_worker_heartbeat(sender: Any = None, **kwargs: Any) -> None:
    """The worker's main process says it is alive, with the queues it serves."""
    from manhattan_site import heartbeats

    queues = sorted(q.name for q in sender.app.amqp.queues.consume_from.values()) if sender else []
    # Named by host and queues: two workers on one host (the same default node name) are both seen.
    name = f"{getattr(sender, 'hostname', 'worker')} [{','.join(queues)}]"
    heartbeats.start("worker", name=name, queues=queues)


def start_beat_heartbeat(sender: Any = None, **kwargs: Any) -> None:
    from manhattan_site import heartbeats

    heartbeats.start("beat")


worker_ready.connect(start_worker_heartbeat)
beat_init.connect(start_beat_heartbeat)


def carry_request_id(headers: dict[str, Any] | None = None, **kwargs: Any) -> None:
    """A task queued by a request carries its id, so the task's log lines name the request."""
    from manhattan_site.observability import request_id

    if headers is not None and (current := request_id.get()):
        headers["request_id"] = current


def take_request_id(sender: Any = None, **kwargs: Any) -> None:
    from manhattan_site.observability import request_id

    request = getattr(sender, "request", None)
    headers = getattr(request, "headers", None) or {}
    request_id.set(getattr(request, "request_id", None) or headers.get("request_id"))


before_task_publish.connect(carry_request_id)
task_prerun.connect(take_request_id)

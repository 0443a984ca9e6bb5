"""The Celery app: configured from Django settings under the ``CELERY_`` prefix."""

import os
from typing import Any

from celery import Celery
from celery.signals import task_postrun, task_prerun

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "manhattan_site.settings")

app = Celery("manhattan_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


def recycle_database_connections(sender: Any = None, **kwargs: Any) -> None:
    """Treat each task as Django treats a request: keep the database connection
    while it is young and healthy, drop it when ``CONN_MAX_AGE`` has passed or
    it failed, and health-check it before its next use.

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

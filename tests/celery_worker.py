"""Moved to tests/support/celery_worker.py; kept so that tests written against the old
place still import. New tests import tests.support.celery_worker."""

from tests.support.celery_worker import ROOT, celery_worker, database_url, own_queue  # noqa: F401

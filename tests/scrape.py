"""Moved to tests/support/metrics.py; kept so that tests written against the old
place still import. New tests import tests.support.metrics."""

from tests.support.metrics import TOKEN, scrape, value  # noqa: F401

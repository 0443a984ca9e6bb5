"""Moved to tests/support/concurrency.py; kept so that tests written against the old
place still import. New tests import tests.support.concurrency."""

from tests.support.concurrency import JOIN_TIMEOUT_S, race  # noqa: F401

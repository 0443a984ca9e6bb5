"""The local Redis of the tests that need a real one. Each harness has a
database number of its own, so that two of them running at once in one test
run (pytest-xdist) never flush or count each other's keys."""

from __future__ import annotations

import redis

HOST = "redis://127.0.0.1:6379"
# One database per harness; nothing else in the suite uses these numbers.
MANY_STREAMS = 7
COMPOSE_STACK = 9
TWO_PROCESSES = 11
REVIEW_WORKER = 10
BENCHMARKS = 12
WEBHOOK_WORKER = 13
MAIL_WORKER = 15


def url(database: int) -> str:
    return f"{HOST}/{database}"


def reachable(address: str) -> bool:
    """Whether a Redis answers at ``address`` (a test without one is skipped, saying so)."""
    try:
        return bool(redis.Redis.from_url(address, socket_timeout=1).ping())
    except redis.RedisError:
        return False

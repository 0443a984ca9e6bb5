"""Running calls at the same moment on threads, each with its own database connection."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from django.db import connection

JOIN_TIMEOUT_S = 60.0


def race(calls: list[Callable[[], Any]]) -> list[Any]:
    """Run ``calls`` at the same moment, each on its own thread and database
    connection, and return their results in order. Fails the test if a call
    raised or never finished; every thread closes its connection, so the test
    database can be dropped afterwards."""
    barrier = threading.Barrier(len(calls))
    results: list[Any] = [None] * len(calls)

    def run(i: int) -> None:
        try:
            barrier.wait(timeout=JOIN_TIMEOUT_S)
            results[i] = calls[i]()
        except BaseException as error:  # reported below
            results[i] = error
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i,), daemon=True) for i in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=JOIN_TIMEOUT_S)
    assert not any(t.is_alive() for t in threads), "a racing call never finished"
    errors = [r for r in results if isinstance(r, BaseException)]
    assert not errors, errors
    return results

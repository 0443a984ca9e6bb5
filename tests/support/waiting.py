"""Waiting for something to happen: poll a condition until it holds or a
deadline passes. A fixed sleep is either too short on a busy machine (the test
fails under load and passes alone) or too long everywhere else."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

# Generous: a deadline is only reached when something is wrong, so it costs
# nothing on a quiet machine and saves a false failure on a loaded one.
DEFAULT_TIMEOUT = 20.0
# The same for a page's own waits (Playwright counts in milliseconds).
PAGE_TIMEOUT_MS = 20_000


def busyness() -> float:
    """How much busier the machine is than its cores (1.0: no busier): the load
    average over the last minute per core."""
    return max(1.0, os.getloadavg()[0] / (os.cpu_count() or 1))


def within(seconds: float) -> float:
    """A bound on how long something takes, stretched when the machine is busier
    than its cores: the bound is about the code, not about the neighbours (on a
    quiet machine it is ``seconds`` as written)."""
    return seconds * busyness()


def wait_until(
    condition: Callable[[], T],
    *,
    timeout: float = DEFAULT_TIMEOUT,
    interval: float = 0.05,
    message: str | Callable[[], str] = "the condition never held",
) -> T:
    """Call ``condition`` until it returns something truthy, and return that;
    fail with ``message`` once ``timeout`` seconds have passed."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise AssertionError(f"{message() if callable(message) else message} (waited {timeout:g} s)")
        time.sleep(interval)


def held_within(condition: Callable[[], object], *, timeout: float, interval: float = 0.05) -> bool:
    """Whether ``condition`` held within ``timeout`` seconds (polled every ``interval``)."""
    try:
        wait_until(condition, timeout=timeout, interval=interval)
    except AssertionError:
        return False
    return True


def stays(
    condition: Callable[[], object], *, for_seconds: float, interval: float = 0.05, message: str = "it changed"
) -> None:
    """Check that ``condition`` holds for the whole of ``for_seconds``: for what
    must NOT happen (a redelivered task that sends nothing), the one case where
    waiting a fixed time is the test itself."""
    deadline = time.monotonic() + for_seconds
    while time.monotonic() < deadline:
        assert condition(), message
        time.sleep(interval)
    assert condition(), message

"""Database work for the streams, off the event loop.

Streams run on the event loop and read the database in the loop's shared,
bounded thread pool rather than in a thread of their own: a thousand open
streams then hold a handful of database connections, not a thousand. Those
threads live longer than any request, so their connections are checked (and
closed when too old or broken) around every call, as a request would.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from asgiref.sync import sync_to_async
from django.db import close_old_connections

T = TypeVar("T")


def _with_fresh_connection(function: Callable[[], T]) -> T:
    close_old_connections()
    try:
        return function()
    finally:
        close_old_connections()


async def run_sync(function: Callable[[], T]) -> T:
    """``function()`` in the shared thread pool, with the database connection checked."""
    return await sync_to_async(_with_fresh_connection, thread_sensitive=False)(function)

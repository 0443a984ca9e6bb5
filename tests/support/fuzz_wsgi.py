"""The API fuzzer (tests/support/fuzz.py) served in-process: the schema read from
Django's WSGI application, requests that leave the test's database connection open,
and the traceback of any exception a view raised behind its 500."""

from __future__ import annotations

import contextlib
import traceback
from collections.abc import Callable, Iterator
from typing import Any

from tests.support.fuzz import SCHEMA_PATH, SCHEMATHESIS_CONFIG, Fuzzer


@contextlib.contextmanager
def capture_exceptions(fuzzer: Callable[[], Fuzzer | None]) -> Iterator[None]:
    """Keep the traceback of any exception a view raises (Django answers it with a 500)."""
    from django.core.signals import got_request_exception

    def keep(sender: Any, request: Any = None, **kwargs: Any) -> None:
        current = fuzzer()
        if current is not None:
            current.exception = traceback.format_exc()

    got_request_exception.connect(keep, dispatch_uid="fuzz.capture")
    try:
        yield
    finally:
        got_request_exception.disconnect(dispatch_uid="fuzz.capture")


@contextlib.contextmanager
def keep_connections() -> Iterator[None]:
    """As Django's test client does: requests do not close the database
    connection (inside a test's transaction, closing it would end the test)."""
    from django.core.signals import request_finished, request_started
    from django.db import close_old_connections

    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        yield
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)


def wsgi_schema(app: Any) -> Any:
    import schemathesis

    config = schemathesis.Config.from_dict(SCHEMATHESIS_CONFIG)
    # The event streams are served by the ASGI application alone (under WSGI they answer
    # 503 streams_need_asgi by design); tests/streams drives them through a live server.
    return schemathesis.openapi.from_wsgi(SCHEMA_PATH, app, config=config).exclude(tag="streams")

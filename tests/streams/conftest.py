"""A live ASGI server (uvicorn in a thread) and a real SSE client for the stream tests."""

from __future__ import annotations

import contextlib
import json
import queue
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
import uvicorn
from django.db import connection


@dataclass
class Event:
    id: str | None
    data: dict[str, Any]


class AsgiServer:
    """The site's ASGI application served by uvicorn on a free port of 127.0.0.1."""

    def __init__(self) -> None:
        self.socket = socket.socket()
        self.socket.bind(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.socket.getsockname()[1]}"
        config = uvicorn.Config(
            "manhattan_site.asgi:application", log_level="warning", lifespan="off", timeout_graceful_shutdown=1
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.socket]}, daemon=True)

    def __enter__(self) -> AsgiServer:
        self.thread.start()
        deadline = time.monotonic() + 10
        while not self.server.started:
            assert time.monotonic() < deadline, "the ASGI server did not start"
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


def backend_pid() -> int | None:
    """The PostgreSQL session of this thread's (and context's) connection."""
    if connection.vendor != "postgresql":
        return None
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return int(cursor.fetchone()[0])


def end_other_sessions(keep: set[int | None] | None = None) -> None:
    """The server's threads keep their database connections past the test; PostgreSQL
    will not drop the test database while they are open."""
    if connection.vendor == "postgresql":
        kept = [pid for pid in (keep or set()) if pid is not None]
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                " WHERE datname = current_database() AND pid <> pg_backend_pid() AND NOT pid = ANY(%s)",
                [kept],
            )


@pytest.fixture
def asgi_server(transactional_db: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[AsgiServer]:
    with AsgiServer() as server:
        yield server
    end_other_sessions()


@dataclass
class SseClient:
    """Reads one stream in a thread, as a client would, and hands over its events."""

    url: str
    headers: dict[str, str] = field(default_factory=dict)
    events: queue.Queue[Event | BaseException | None] = field(default_factory=queue.Queue)
    comments: list[str] = field(default_factory=list)
    status: int | None = None
    body: bytes = b""
    content_type: str = ""

    def __post_init__(self) -> None:
        self._opened = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        assert self._opened.wait(10), "the stream did not answer"

    def _run(self) -> None:
        try:
            with (
                httpx.Client(timeout=httpx.Timeout(5, read=60)) as client,
                client.stream("GET", self.url, headers=self.headers) as response,
            ):
                self._response = response
                self.status = response.status_code
                self.content_type = response.headers.get("content-type", "")
                if response.status_code != 200:
                    self.body = response.read()
                    self._opened.set()
                    return
                self._opened.set()
                event_id: str | None = None
                data: list[str] = []
                for line in response.iter_lines():
                    if self._stop.is_set():
                        return
                    if line.startswith(":"):
                        self.comments.append(line)
                    elif line.startswith("id: "):
                        event_id = line[4:]
                    elif line.startswith("data: "):
                        data.append(line[6:])
                    elif line == "" and data:
                        self.events.put(Event(event_id, json.loads("\n".join(data))))
                        data = []
        except BaseException as error:  # handed to the test
            self.events.put(error)
        finally:
            self._opened.set()
            self.events.put(None)

    def next(self, timeout: float = 5) -> Event:
        item = self.events.get(timeout=timeout)
        if isinstance(item, BaseException):
            raise item
        assert item is not None, "the stream ended"
        return item

    def until(self, predicate: Any, timeout: float = 5) -> Event:
        deadline = time.monotonic() + timeout
        while True:
            event = self.next(max(0.01, deadline - time.monotonic()))
            if predicate(event):
                return event

    def close(self) -> None:
        self._stop.set()
        response = getattr(self, "_response", None)
        if response is not None:
            # Hang up as a closed browser tab does: the socket itself, under the reading thread.
            sock = response.extensions["network_stream"].get_extra_info("socket")
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
        self._thread.join(timeout=5)


@pytest.fixture
def sse() -> Iterator[Any]:
    opened: list[SseClient] = []

    def open_stream(url: str, **headers: str) -> SseClient:
        client = SseClient(url, headers=headers)
        opened.append(client)
        return client

    yield open_stream
    for client in opened:
        client.close()

"""A real Server-Sent Events client: reads one stream in a thread, as a
browser would, and hands its events to the test."""

from __future__ import annotations

import contextlib
import json
import queue
import socket
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import httpx

from tests.support.waiting import within


@dataclass
class Event:
    id: str | None
    data: dict[str, Any]
    name: str = "message"  # the SSE event name


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
                name = "message"
                data: list[str] = []
                for line in response.iter_lines():
                    if self._stop.is_set():
                        return
                    if line.startswith(":"):
                        self.comments.append(line)
                    elif line.startswith("event: "):
                        name = line[7:]
                    elif line.startswith("id: "):
                        event_id = line[4:]
                    elif line.startswith("data: "):
                        data.append(line[6:])
                    elif line == "" and data:
                        self.events.put(Event(event_id, json.loads("\n".join(data)), name))
                        data, name = [], "message"
        except BaseException as error:  # handed to the test
            self.events.put(error)
        finally:
            self._opened.set()
            self.events.put(None)

    def next(self, timeout: float = 5) -> Event:
        item = self.events.get(timeout=within(timeout))  # a deadline: longer on a busy machine
        if isinstance(item, BaseException):
            raise item
        assert item is not None, "the stream ended"
        return item

    def until(self, predicate: Any, timeout: float = 5) -> Event:
        deadline = time.monotonic() + within(timeout)
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

"""Fixtures for the webhook tests: a stub resolver standing in for DNS, and a
real HTTP receiver on a free local port that the allow-list lets through."""

from __future__ import annotations

import contextlib
import http.server
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from tests.support.waiting import held_within
from webhooks import ssrf


class Resolver:
    """Host names to addresses, as a DNS server would answer (unknown names fail)."""

    def __init__(self) -> None:
        self.answers: dict[str, list[str]] = {"hooks.example.com": ["93.184.216.34"]}
        self.asked: list[str] = []

    def __call__(self, host: str, port: int) -> list[str]:
        self.asked.append(host)
        if host not in self.answers:
            raise OSError(f"[Errno -2] Name or service not known: {host}")
        return list(self.answers[host])


@pytest.fixture(autouse=True)
def resolver(monkeypatch: pytest.MonkeyPatch) -> Resolver:
    """No test asks the real DNS."""
    stub = Resolver()
    monkeypatch.setattr(ssrf, "resolve_host", stub)
    return stub


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class Receiver:
    """What the local receiver got, and how it answers (changeable per test)."""

    port: int = 0
    requests: list[Received] = field(default_factory=list)
    status: int = 204
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0

    def url(self, path: str = "/hook", host: str = "receiver.test") -> str:
        return f"http://{host}:{self.port}{path}"

    def wait_for(self, count: int, timeout: float = 10.0) -> list[Received]:
        """What it was sent, once ``count`` requests came (or ``timeout`` passed: the test says what is missing)."""
        held_within(lambda: len(self.requests) >= count, timeout=timeout)
        return self.requests


def _handler(receiver: Receiver) -> type[http.server.BaseHTTPRequestHandler]:
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length)
            receiver.requests.append(Received(self.path, {k.lower(): v for k, v in self.headers.items()}, body))
            if receiver.delay:
                time.sleep(receiver.delay)  # a slow receiver, on purpose: the behaviour under test
            self.send_response(receiver.status)
            for name, value in receiver.headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(receiver.body)))
            self.end_headers()
            with contextlib.suppress(OSError):  # the sender hung up (a capped or timed-out read)
                self.wfile.write(receiver.body)

        do_GET = do_POST

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


@pytest.fixture
def receiver(settings: Any, resolver: Resolver) -> Iterator[Receiver]:
    """A real HTTP server on 127.0.0.1 (a free port), reachable as ``receiver.test``
    through the stub resolver and let through by the allow-list."""
    settings.WEBHOOK_ALLOW_HTTP = True
    settings.WEBHOOK_ALLOWED_NETWORKS = ["127.0.0.0/8"]
    state = Receiver()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    server.daemon_threads = True
    state.port = server.server_address[1]
    resolver.answers["receiver.test"] = ["127.0.0.1"]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def endpoint_for(receiver: Receiver) -> Callable[..., Any]:
    """An endpoint of ``user`` pointing at the receiver, registered through the service."""
    from webhooks import services
    from webhooks.models import EventType

    def make(user: Any, event_types: list[str] | None = None, path: str = "/hook") -> services.NewEndpoint:
        types = event_types or [value for value, _ in EventType.choices]
        return services.create_endpoint(owner=user, url=receiver.url(path), event_types=types)

    return make


@dataclass
class Broker:
    """What the deliveries published: one list of delivery ids per task."""

    published: list[list[int]] = field(default_factory=list)

    def send_task(self, name: str, args: list[Any], **kwargs: Any) -> None:
        from webhooks import delivery

        if name == delivery.DELIVER_TASK:
            self.published.append(list(args[0]))

    @property
    def ids(self) -> list[int]:
        return [pk for batch in self.published for pk in batch]


@pytest.fixture
def broker(monkeypatch: pytest.MonkeyPatch) -> Broker:
    from celery import current_app

    recorder = Broker()
    monkeypatch.setattr(current_app, "send_task", recorder.send_task)
    return recorder

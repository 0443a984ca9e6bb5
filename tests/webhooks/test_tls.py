"""HTTPS to a checked address: the connection goes to the address the guard
checked, while the TLS server name (SNI), the certificate's name and the Host
header are the URL's host. A real TLS receiver with a certificate from a test
authority (trustme) stands in for the internet."""

from __future__ import annotations

import http.server
import ssl
import threading
from collections.abc import Generator, Iterator
from typing import Any

import pytest
import trustme
from standardwebhooks import Webhook

from webhooks import delivery, services
from webhooks.models import Delivery

pytestmark = pytest.mark.django_db


class TLSReceiver:
    def __init__(self) -> None:
        self.port = 0
        self.server_names: list[str | None] = []
        self.requests: list[tuple[dict[str, str], bytes]] = []


@pytest.fixture
def authority(tmp_path, settings) -> trustme.CA:
    ca = trustme.CA()
    ca_file = tmp_path / "ca.pem"
    ca.cert_pem.write_to_path(str(ca_file))
    settings.WEBHOOK_CA_FILE = str(ca_file)
    settings.WEBHOOK_ALLOWED_NETWORKS = ["127.0.0.0/8"]
    return ca


def _serve(certificate_for: str, authority: trustme.CA) -> Generator[TLSReceiver, None, None]:
    state = TLSReceiver()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            state.requests.append(({k.lower(): v for k, v in self.headers.items()}, body))
            self.send_response(204)
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            pass

    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    authority.issue_cert(certificate_for).configure_cert(context)
    context.sni_callback = lambda sock, name, ctx: state.server_names.append(name)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    state.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def tls_receiver(authority) -> Iterator[TLSReceiver]:
    yield from _serve("hooks.example.test", authority)


def test_https_goes_to_the_checked_address_with_the_hosts_name(alice, tls_receiver, resolver):
    resolver.answers["hooks.example.test"] = ["127.0.0.1"]
    new = services.create_endpoint(
        owner=alice, url=f"https://hooks.example.test:{tls_receiver.port}/hook", event_types=["game.move"]
    )
    test = services.send_test_event(endpoint=new.endpoint)

    assert delivery.deliver(test.pk) is True

    assert tls_receiver.server_names == ["hooks.example.test"]
    [(headers, body)] = tls_receiver.requests
    assert headers["host"] == f"hooks.example.test:{tls_receiver.port}"
    assert Webhook(new.secret).verify(body, headers)["type"] == "webhook.test"


def test_a_certificate_for_another_name_is_refused(alice, authority, resolver):
    """The name now points at a server whose certificate is not for it: not sent."""
    receiver = _serve("elsewhere.example.test", authority)
    state = next(receiver)
    try:
        resolver.answers["hooks.example.test"] = ["127.0.0.1"]
        new = services.create_endpoint(
            owner=alice, url=f"https://hooks.example.test:{state.port}/hook", event_types=["game.move"]
        )
        test = services.send_test_event(endpoint=new.endpoint)
        assert delivery.deliver(test.pk) is False
        test.refresh_from_db()
        assert test.status == Delivery.Status.FAILED
        assert test.last_error.startswith("tls_failed")
        assert "hostname mismatch" in test.last_error.lower(), test.last_error
        assert state.requests == []
    finally:
        receiver.close()

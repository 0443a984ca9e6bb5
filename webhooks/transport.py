"""POST a signed body to a checked target (``ssrf.Target``), and nothing more.

The connection goes to an address the SSRF guard checked, never to the host
name again, while the Host header and the TLS server name (SNI, and the name
the certificate must carry) stay the host's: a DNS answer that changes between
the check and the connection cannot move the request elsewhere. Redirects are
never followed (``http.client`` does not follow them, and a 3xx counts as a
failure), proxies from the environment are not used, the whole exchange has a
deadline (kept by a watchdog that hangs up, however slowly the answer drips),
and at most ``WEBHOOK_MAX_RESPONSE_BYTES`` of the answer are read.
"""

from __future__ import annotations

import contextlib
import http.client
import socket
import ssl
import threading
import time
from dataclasses import dataclass

from django.conf import settings

from .ssrf import Target

USER_AGENT = "Manhattan-by-mail-Webhooks/1.0"
_CHUNK = 8192


class TransportError(Exception):
    """The exchange failed before an answer was read in full; ``code`` says how."""

    def __init__(self, code: str, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status


@dataclass(frozen=True)
class Answer:
    status: int
    location: str  # of a redirect, which is reported and not followed
    body: bytes


class _PinnedHTTPConnection(http.client.HTTPConnection):
    """Connects to ``address`` while speaking to ``host``."""

    def __init__(self, host: str, port: int, *, address: str, timeout: float) -> None:
        super().__init__(host, port, timeout=timeout)
        self.address = address

    def connect(self) -> None:
        self.sock = socket.create_connection((self.address, self.port), self.timeout)


class _PinnedHTTPSConnection(http.client.HTTPSConnection):
    """Connects to ``address`` and checks the certificate against ``host`` (also the SNI)."""

    def __init__(self, host: str, port: int, *, address: str, timeout: float, context: ssl.SSLContext) -> None:
        super().__init__(host, port, timeout=timeout, context=context)
        self.address = address
        self.tls_context = context

    def connect(self) -> None:
        raw = socket.create_connection((self.address, self.port), self.timeout)
        try:
            self.sock = self.tls_context.wrap_socket(raw, server_hostname=self.host)
        except BaseException:
            raw.close()
            raise


def tls_context() -> ssl.SSLContext:
    """Certificates checked against the system's authorities (or ``WEBHOOK_CA_FILE``'s)."""
    return ssl.create_default_context(cafile=settings.WEBHOOK_CA_FILE or None)


def post(target: Target, body: bytes, headers: dict[str, str]) -> Answer:
    """POST ``body`` to ``target``, trying its checked addresses in order until one connects."""
    deadline = time.monotonic() + settings.WEBHOOK_TIMEOUT
    last_error: TransportError | None = None
    for address in target.addresses:
        try:
            return _post_to(address, target, body, headers, deadline)
        except TransportError as error:
            if error.code != "connect_failed":
                raise
            last_error = error
    raise last_error or TransportError("connect_failed", "The target has no address.")


def _post_to(address: str, target: Target, body: bytes, headers: dict[str, str], deadline: float) -> Answer:
    connect_timeout = max(0.1, min(settings.WEBHOOK_CONNECT_TIMEOUT, deadline - time.monotonic()))
    connection: http.client.HTTPConnection
    if target.scheme == "https":
        connection = _PinnedHTTPSConnection(
            target.host, target.port, address=address, timeout=connect_timeout, context=tls_context()
        )
    else:
        connection = _PinnedHTTPConnection(target.host, target.port, address=address, timeout=connect_timeout)
    try:
        try:
            connection.connect()
        except ssl.SSLError as error:
            raise TransportError("tls_failed", f"TLS with {target.host} failed: {error}") from error
        except OSError as error:
            raise TransportError("connect_failed", f"Could not connect to {address}:{target.port}: {error}") from error
        _set_timeout(connection, deadline)
        # A receiver that drips its answer a byte at a time stays within every
        # socket timeout; the watchdog ends the exchange at the deadline anyway.
        watchdog = threading.Timer(max(0.0, deadline - time.monotonic()), _hang_up, args=[connection])
        watchdog.daemon = True
        watchdog.start()
        try:
            connection.putrequest("POST", target.path, skip_host=True, skip_accept_encoding=True)
            for name, value in {
                "Host": target.host_header,
                "User-Agent": USER_AGENT,
                "Content-Type": "application/json",
                "Content-Length": str(len(body)),
                "Connection": "close",
                **headers,
            }.items():
                connection.putheader(name, value)
            connection.endheaders(body)
            response = connection.getresponse()
            location = response.getheader("Location", "") or ""
            answer = Answer(response.status, location[:500], _read_capped(response, connection, deadline))
            if time.monotonic() >= deadline:  # the watchdog hung up: what was read may be cut short
                raise TimeoutError("deadline passed")
        except (OSError, http.client.HTTPException) as error:
            if isinstance(error, TimeoutError) or time.monotonic() >= deadline:
                raise TransportError("timeout", f"No answer within {settings.WEBHOOK_TIMEOUT:g} s.") from error
            raise TransportError("exchange_failed", f"The exchange failed: {type(error).__name__}: {error}") from error
        finally:
            watchdog.cancel()
        return answer
    finally:
        connection.close()


def _hang_up(connection: http.client.HTTPConnection) -> None:
    """Unblock whatever is waiting on the connection's socket (from the watchdog's thread)."""
    sock = connection.sock
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)


def _set_timeout(connection: http.client.HTTPConnection, deadline: float) -> None:
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError("deadline passed")
    if connection.sock is not None:
        connection.sock.settimeout(left)


def _read_capped(response: http.client.HTTPResponse, connection: http.client.HTTPConnection, deadline: float) -> bytes:
    """The answer's body, refused past the cap (the receiver need not say much)."""
    cap = settings.WEBHOOK_MAX_RESPONSE_BYTES
    body = bytearray()
    while True:
        _set_timeout(connection, deadline)
        chunk = response.read(min(_CHUNK, cap + 1 - len(body)))
        if not chunk:
            return bytes(body)
        body += chunk
        if len(body) > cap:
            raise TransportError(
                "response_too_large", f"The answer is larger than {cap} bytes; it was cut off.", status=response.status
            )

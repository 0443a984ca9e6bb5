"""Handing emails to the mail server: one SMTP connection per worker thread,
reused from one email to the next.

Opening a connection (TCP, EHLO, and with a real relay TLS and AUTH) cost more
than sending a turn email over it. A connection is reused only while it is
fresh — used within the last ``MAX_IDLE_S`` and for fewer than
``MAX_PER_CONNECTION`` emails — well inside the idle timeout and the
per-connection limits of common servers. A connection that raised once is
closed and never reused. Reuse changes nothing in what is recorded: ``deliver``
still sends one message per call inside its locked row, and a failure is still
a failed attempt of that notification (retried with back-off, never twice
after a success).

With a DKIM key configured (``dkim_signing``) each email is signed over the
bytes handed to the server.

Other backends (the file backend of development, locmem in the tests, an API
backend) are used as before, one ``send()`` per email.
"""

from __future__ import annotations

import select
import threading
import time
from typing import Any

from django.conf import settings
from django.core.mail import EmailMessage, get_connection
from django.core.mail.message import sanitize_address

from . import dkim_signing

SMTP_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
MAX_IDLE_S = 10.0
MAX_PER_CONNECTION = 50


class _Connection(threading.local):
    backend: Any = None
    settings_key: tuple[Any, ...] = ()
    last_used = 0.0
    sent = 0


_local = _Connection()


def _settings_key() -> tuple[Any, ...]:
    return tuple(
        getattr(settings, name, None)
        for name in (
            "EMAIL_HOST",
            "EMAIL_PORT",
            "EMAIL_HOST_USER",
            "EMAIL_HOST_PASSWORD",
            "EMAIL_USE_TLS",
            "EMAIL_USE_SSL",
            "EMAIL_TIMEOUT",
        )
    )


def close() -> None:
    """Close this thread's connection, if it has one (quietly: it may be broken)."""
    backend, _local.backend = _local.backend, None
    if backend is not None:
        backend.close()  # Django's close() ignores the errors of a broken connection


def _hung_up(backend: Any) -> bool:
    """Whether the server closed a connection about to be reused.

    SMTP servers speak only when spoken to, so an idle connection has nothing
    to read: anything readable (a ``421`` goodbye, the end of the stream) means
    the server hung up while it sat idle. This is found out here, before any of
    the next message is sent, so opening a new connection cannot send anything
    twice — and without the round trip of a ``NOOP`` per email. A path that
    died silently is not seen here; ``MAX_IDLE_S`` keeps reuse well inside the
    idle timeouts where that happens, and a send over it fails that attempt.
    """
    sock = getattr(backend.connection, "sock", None)
    if sock is None:
        return True
    try:
        poller = select.poll()  # not select(): it fails on descriptors above 1023
        poller.register(sock, select.POLLIN)
        readable = poller.poll(0)
    except (OSError, ValueError):  # closed or invalid descriptor
        return True
    pending = getattr(sock, "pending", None)  # bytes TLS has already decrypted
    return bool(readable) or bool(pending and pending())


def _connection() -> Any:
    key = _settings_key()
    now = time.monotonic()
    stale = _local.settings_key != key or now - _local.last_used > MAX_IDLE_S or _local.sent >= MAX_PER_CONNECTION
    if _local.backend is not None and (stale or _hung_up(_local.backend)):
        close()
    if _local.backend is None:
        backend = get_connection(SMTP_BACKEND)
        backend.open()
        _local.backend, _local.settings_key, _local.sent = backend, key, 0
    return _local.backend


def send(message: EmailMessage) -> None:
    """Send ``message``; raises when the server did not take it."""
    if settings.EMAIL_BACKEND != SMTP_BACKEND:
        message.send()
        return
    backend = _connection()
    try:
        if dkim_signing.enabled():
            # Signed over the very bytes sent (serialising again would make new MIME boundaries).
            sender = sanitize_address(message.from_email, message.encoding or settings.DEFAULT_CHARSET)
            recipients = [
                sanitize_address(a, message.encoding or settings.DEFAULT_CHARSET) for a in message.recipients()
            ]
            backend.connection.sendmail(sender, recipients, dkim_signing.signed_bytes(message))
        else:
            backend.send_messages([message])
    except BaseException:
        close()
        raise
    _local.sent += 1
    _local.last_used = time.monotonic()

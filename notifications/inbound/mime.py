"""A raw message parsed with its nesting bounded.

Python's email parser descends into nested multiparts (and attached
messages) recursively: a message nested a thousand levels deep would raise
``RecursionError`` before anything in it is read, and a 500 makes the mail
provider retry it for days. No reply a person writes is nested more than a
few levels, so a message that declares more than ``MAX_CONTAINERS``
containers is read by its headers only (its body is never looked at), and
``handle_inbound`` drops it politely as unreadable.

Only the first ``MAX_PARSED_BYTES`` of a message are parsed: the headers and
the reply's text come first (attachments after them), and parsing 10 MB
line by line would cost more than a second. What is cut is never read.
"""

from __future__ import annotations

import re
from email.message import Message
from email.parser import BytesParser
from email.policy import default as default_policy

from anymail.inbound import AnymailInboundMessage

MAX_CONTAINERS = 64
MAX_PARSED_BYTES = 2_000_000
# A header that opens a container: each one is a level the parser may descend.
_CONTAINER = re.compile(rb"^content-type:\s*(?:multipart|message)/", re.IGNORECASE | re.MULTILINE)
_UNREADABLE = "manhattan_unreadable"  # an attribute (no header: a sender could write one) of a message read so


def parse(raw: bytes) -> Message:
    """``raw`` (its first ``MAX_PARSED_BYTES``) as an inbound message; by its headers only when
    nested too deep to read safely."""
    raw = raw[:MAX_PARSED_BYTES]
    if sum(1 for _ in _CONTAINER.finditer(raw)) <= MAX_CONTAINERS:
        try:
            message: Message = AnymailInboundMessage.parse_raw_mime_bytes(raw)
            return message
        except RecursionError:
            pass
    headers: Message = BytesParser(AnymailInboundMessage, policy=default_policy).parsebytes(raw, headersonly=True)
    headers.set_payload("")
    setattr(headers, _UNREADABLE, True)
    return headers


def unreadable(message: Message) -> bool:
    """Whether ``message`` was read by its headers only (by ``parse``, not by what its sender wrote)."""
    return bool(getattr(message, _UNREADABLE, False))

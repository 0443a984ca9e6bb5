"""The development outbox: the emails the file backend wrote, decoded as a
mail client would (MIME headers, transfer encodings, charsets), each with its
text part and its HTML part."""

from __future__ import annotations

import email
from dataclasses import dataclass
from email.message import EmailMessage
from email.policy import default
from pathlib import Path

SEPARATOR = b"-" * 79  # what Django's file backend writes after each message
NEWEST = 50  # files read, newest first


@dataclass(frozen=True)
class OutboxMessage:
    to: str
    subject: str
    date: str
    text: str
    html: str


def _part(message: EmailMessage, kind: str) -> str:
    part = message.get_body(preferencelist=(kind,))
    return part.get_content() if part is not None and part.get_content_type() == f"text/{kind}" else ""


def _raw_messages(folder: Path) -> list[bytes]:
    """Every message's bytes, newest file first; cheap (no MIME parsing)."""
    raws: list[bytes] = []
    for path in sorted(folder.glob("*.log"), key=lambda p: p.stat().st_mtime, reverse=True)[:NEWEST]:
        raws.extend(raw.strip() for raw in path.read_bytes().split(SEPARATOR) if raw.strip())
    return raws


def read(folder: Path, offset: int = 0, limit: int | None = None) -> tuple[list[OutboxMessage], int]:
    """A page of the messages in ``folder`` (newest file first) and how many there
    are. Only the page's messages are parsed: decoding MIME is the slow part."""
    raws = _raw_messages(folder)
    page = raws[offset : None if limit is None else offset + limit]
    messages = []
    for raw in page:
        parsed = email.message_from_bytes(raw, policy=default)
        assert isinstance(parsed, EmailMessage)
        messages.append(
            OutboxMessage(
                to=str(parsed.get("To", "")),
                subject=str(parsed.get("Subject", "")),  # decoded: the default policy reads RFC 2047
                date=str(parsed.get("Date", "")),
                text=_part(parsed, "plain"),
                html=_part(parsed, "html"),
            )
        )
    return messages, len(raws)

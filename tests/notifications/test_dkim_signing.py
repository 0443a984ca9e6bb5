"""DKIM: with a key and selector configured, the mail handed to the SMTP
server is signed, and the signature verifies (dkimpy) against the key record
that ``manage.py mail_dns_records`` tells operators to publish; without them
mail goes out unsigned."""

from __future__ import annotations

import io
from collections.abc import Iterator
from typing import Any

import dkim
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from django.core.management import call_command

from notifications import outbox
from notifications.models import Kind
from tests.support.mail import latest, site_sends_to

pytestmark = [pytest.mark.django_db]


class Inbox:
    def __init__(self) -> None:
        self.received: list[bytes] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.received.append(envelope.original_content)
        return "250 OK"


@pytest.fixture
def smtp() -> Iterator[Inbox]:
    with site_sends_to(Inbox()) as inbox:
        yield inbox


@pytest.fixture
def dkim_key(settings) -> str:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()
    settings.DKIM_DOMAIN = "manhattan.example.org"
    settings.DKIM_SELECTOR = "mail2026"
    settings.DKIM_PRIVATE_KEY = pem
    return pem


def published_records() -> dict[str, str]:
    out = io.StringIO()
    call_command("mail_dns_records", stdout=out)
    records = {}
    for line in out.getvalue().splitlines():
        name, _kind, value = line.split("\t")
        records[name.rstrip(".")] = value.strip('"')
    return records


def test_a_sent_email_is_signed_and_verifies_against_the_published_key(started_game, smtp, dkim_key):
    assert outbox.deliver(latest(Kind.GAME_STARTED, seat=0).pk) is True
    [raw] = smtp.received
    assert raw.startswith(b"DKIM-Signature:")
    records = published_records()
    assert "v=spf1" in records["manhattan.example.org"]
    assert records["_dmarc.manhattan.example.org"].startswith("v=DMARC1;")
    key_record = records["mail2026._domainkey.manhattan.example.org"].encode()

    def dns(name: bytes, timeout: int = 5) -> bytes:
        assert name == b"mail2026._domainkey.manhattan.example.org."
        return key_record

    assert dkim.verify(raw, dnsfunc=dns)
    tampered = raw.replace(b"Manhattan", b"Manhatta n", 1)
    assert not dkim.verify(tampered, dnsfunc=dns)


def test_without_a_key_mail_goes_out_unsigned(started_game, smtp, settings):
    settings.DKIM_DOMAIN = ""
    assert outbox.deliver(latest(Kind.GAME_STARTED, seat=0).pk) is True
    assert b"DKIM-Signature" not in smtp.received[0]

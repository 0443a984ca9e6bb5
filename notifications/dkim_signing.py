"""DKIM signatures on the mail the service hands to an SMTP server itself.

With ``DKIM_DOMAIN``, ``DKIM_SELECTOR`` and a private key (``DKIM_PRIVATE_KEY``
as PEM, or ``DKIM_PRIVATE_KEY_FILE``), every email is signed (dkimpy, RSA-SHA256,
relaxed/relaxed) over the exact bytes sent: Django's MIME boundaries and Date
are made when a message is serialised, so the message is serialised once,
signed, and those bytes go to the server. Without them mail goes out unsigned,
as before (a relay or an API provider that signs for the domain does it then).

``dns_records`` says what to publish: the DKIM key record of the selector,
SPF and DMARC (``manage.py mail_dns_records``; docs/operators/email.md).
"""

from __future__ import annotations

import base64
from email.generator import BytesGenerator
from io import BytesIO
from pathlib import Path

import dkim
from cryptography.hazmat.primitives import serialization
from django.conf import settings
from django.core.mail import EmailMessage

SIGNED_HEADERS = (
    b"From", b"To", b"Cc", b"Subject", b"Date", b"Message-ID", b"Reply-To", b"In-Reply-To", b"References",
    b"MIME-Version", b"Content-Type", b"Content-Transfer-Encoding", b"List-Unsubscribe", b"List-Unsubscribe-Post",
    b"Auto-Submitted",
)  # fmt: skip


def private_key() -> bytes:
    """The configured private key (PEM), or b"" when signing is off."""
    pem = getattr(settings, "DKIM_PRIVATE_KEY", "") or ""
    path = getattr(settings, "DKIM_PRIVATE_KEY_FILE", "") or ""
    if not pem and path:
        pem = Path(path).read_text()
    return pem.replace("\\n", "\n").encode()


def enabled() -> bool:
    return bool(getattr(settings, "DKIM_DOMAIN", "") and getattr(settings, "DKIM_SELECTOR", "") and private_key())


def signed_bytes(message: EmailMessage) -> bytes:
    """``message`` serialised once as it is sent (CRLF), with its DKIM-Signature header on top."""
    serialised = BytesIO()
    BytesGenerator(serialised, mangle_from_=False).flatten(message.message(), linesep="\r\n")  # as Django's SMTP
    data = serialised.getvalue()
    signature = dkim.sign(
        data,
        settings.DKIM_SELECTOR.encode(),
        settings.DKIM_DOMAIN.encode(),
        private_key(),
        include_headers=list(SIGNED_HEADERS),
        canonicalize=(b"relaxed", b"relaxed"),
    )
    return bytes(signature) + data


def public_key_record() -> str:
    """The TXT record to publish at ``<selector>._domainkey.<domain>`` for the configured key."""
    key = serialization.load_pem_private_key(private_key(), password=None)
    der = key.public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    return f"v=DKIM1; k=rsa; p={base64.b64encode(der).decode()}"


def dns_records() -> list[tuple[str, str, str]]:
    """(name, type, value) of the records that let receivers trust the site's mail."""
    domain = settings.DKIM_DOMAIN
    records = [
        (domain, "TXT", "v=spf1 mx include:<your relay's SPF domain> -all"),
        (f"_dmarc.{domain}", "TXT", f"v=DMARC1; p=quarantine; adkim=r; aspf=r; rua=mailto:dmarc@{domain}"),
    ]
    if enabled():
        records.insert(1, (f"{settings.DKIM_SELECTOR}._domainkey.{domain}", "TXT", public_key_record()))
    return records

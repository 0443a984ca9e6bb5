"""What is dropped before a reply is read: automatic replies and forged
senders; and what is cleaned before anything of it is stored.

- Automatic replies (RFC 3834, RFC 5230: vacation notices, bounces, list
  mail) are dropped without an answer, so an autoresponder and our refusal
  emails can never answer each other in a loop.
- The sender is checked by the verdicts of the mail provider or of our own
  receiving server: SendGrid's ``SPF`` and ``dkim`` fields, or the topmost
  ``Authentication-Results`` header (the one our server added; with
  ``INBOUND_AUTHSERV_ID`` set, only the headers of that server). A reply whose
  SPF and DKIM both fail for the player's domain is refused; a reply with no
  verdicts at all is judged by its ``From`` alone, as before.
- Text that is stored (the move, Message-ID, sender) loses NUL bytes and other
  control characters, which PostgreSQL refuses and nobody types.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from email.message import Message
from typing import Any

from django.conf import settings

AUTOMATIC_PRECEDENCE = frozenset({"bulk", "junk", "list", "auto_reply"})
_COMMENT = re.compile(r"\([^()]*\)")
_DKIM_FIELD = re.compile(r"@?([A-Za-z0-9.-]+)\s*:\s*([a-z]+)")


def clean(text: str) -> str:
    """``text`` without NUL bytes and other control characters (line breaks and tabs stay)."""
    return "".join(c for c in text if c in "\n\t" or unicodedata.category(c) not in ("Cc", "Cs"))


def automatic(message: Message) -> str | None:
    """The header that marks ``message`` as sent by a machine, or None."""
    submitted = str(message.get("Auto-Submitted", "")).strip().lower()
    if submitted and submitted.split(";")[0].strip() != "no":
        return "Auto-Submitted"
    if str(message.get("Precedence", "")).strip().lower() in AUTOMATIC_PRECEDENCE:
        return "Precedence"
    for name in ("X-Autoreply", "X-Autorespond"):
        if message.get(name) is not None:
            return name
    return_path = message.get("Return-Path")
    if return_path is not None and str(return_path).strip() in ("", "<>"):
        return "Return-Path"
    return None


@dataclass
class Verdicts:
    """SPF's result (and the envelope sender's domain it is for) and DKIM's
    results (with each signature's domain), as a receiving server judged them."""

    spf: str | None = None
    spf_domain: str | None = None
    dkim: list[tuple[str, str]] = field(default_factory=list)

    @property
    def known(self) -> bool:
        return self.spf is not None or bool(self.dkim)


def _aligned(domain: str, player: str) -> bool:
    """DMARC's relaxed alignment: the same domain, or one a subdomain of the other."""
    domain, player = domain.lower().strip("."), player.lower().strip(".")
    return domain == player or domain.endswith("." + player) or player.endswith("." + domain)


def forged(verdicts: Verdicts, player_email: str) -> bool:
    """Whether SPF and DKIM both fail for the player's domain: neither passes
    for it, and at least one says fail (an unsigned message from a domain
    without SPF is not refused: nothing says it is forged)."""
    if not verdicts.known:
        return False
    player = player_email.rpartition("@")[2]
    spf_pass = verdicts.spf == "pass" and (verdicts.spf_domain is None or _aligned(verdicts.spf_domain, player))
    dkim_pass = any(result == "pass" and _aligned(domain, player) for result, domain in verdicts.dkim)
    if spf_pass or dkim_pass:
        return False
    spf_failed = verdicts.spf in ("fail", "softfail") or (verdicts.spf == "pass" and not spf_pass)
    dkim_failed = any(result in ("fail", "pass") for result, _domain in verdicts.dkim)  # a pass for another domain
    return spf_failed or dkim_failed


def from_provider(fields: dict[str, Any]) -> Verdicts:
    """SendGrid's inbound parse fields: ``SPF`` ("pass", "fail", …) and
    ``dkim`` ("{@example.com : pass}", several comma-separated, or "none")."""
    verdicts = Verdicts()
    spf = str(fields.get("SPF") or "").strip().lower()
    if spf:
        verdicts.spf = spf.split()[0]
    verdicts.dkim = [(result, domain) for domain, result in _DKIM_FIELD.findall(str(fields.get("dkim") or ""))]
    return verdicts


def from_headers(message: Message) -> Verdicts:
    """The verdicts of the trusted ``Authentication-Results`` header(s)."""
    headers = [str(h) for h in message.get_all("Authentication-Results") or []]
    trusted_id = getattr(settings, "INBOUND_AUTHSERV_ID", "")
    if trusted_id:
        headers = [h for h in headers if h.split(";", 1)[0].strip().lower() == trusted_id.lower()]
    else:
        headers = headers[:1]  # the topmost: added by the last server, ours; the sender can only add lower ones
    verdicts = Verdicts()
    for header in headers:
        for resinfo in _COMMENT.sub("", header).split(";")[1:]:
            words = resinfo.split()
            if not words or "=" not in words[0]:
                continue
            method, _, result = words[0].partition("=")
            props = dict(w.split("=", 1) for w in words[1:] if "=" in w)
            if method.lower() == "spf":
                verdicts.spf = result.lower()
                mailfrom = props.get("smtp.mailfrom", "")
                verdicts.spf_domain = mailfrom.rpartition("@")[2] or None
            elif method.lower() == "dkim":
                domain = props.get("header.d") or props.get("header.i", "").rpartition("@")[2]
                verdicts.dkim.append((result.lower(), domain))
    return verdicts

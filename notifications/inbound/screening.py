"""What is dropped before a reply is read: automatic replies and forged
senders; and what is cleaned before anything of it is stored.

- Automatic replies (RFC 3834, RFC 5230: vacation notices, bounces, list
  mail) are dropped without an answer, so an autoresponder and our refusal
  emails can never answer each other in a loop.
- The sender is checked by the verdicts of the mail provider or of our own
  receiving server: SendGrid's ``SPF`` (for the envelope sender) and ``dkim``
  fields, or the topmost ``Authentication-Results`` header (the one our server
  added; with ``INBOUND_AUTHSERV_ID`` set, only the headers of that server).
  As DMARC defines it, only a pass for a domain *aligned* with the ``From``
  domain counts (relaxed: the same organizational domain, by the public suffix
  list): a forger passes SPF and DKIM for their own domain easily. A reply with
  verdicts but no aligned pass is refused; a reply with no verdicts at all, or
  only "none" (a domain that publishes nothing), is judged by its ``From``.
- Text that is stored (the move, Message-ID, sender) loses NUL bytes and other
  control characters, which PostgreSQL refuses and nobody types.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from email.message import Message
from email.utils import parseaddr
from typing import Any

from django.conf import settings
from publicsuffixlist import PublicSuffixList

AUTOMATIC_PRECEDENCE = frozenset({"bulk", "junk", "list", "auto_reply"})
_COMMENT = re.compile(r"\([^()]*\)")
_DKIM_FIELD = re.compile(r"@?([A-Za-z0-9.-]+)\s*:\s*([a-z]+)")


# Unicode's control characters (category Cc) but line feed and tab, and lone surrogates (Cs).
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")


def clean(text: str) -> str:
    """``text`` without NUL bytes and other control characters (line breaks and tabs stay)."""
    return _CONTROL.sub("", text)


# Subjects autoresponders write without any of the headers above (Exchange, Gmail, Apple, Naver, …).
_AUTOMATIC_SUBJECT = re.compile(
    r"^\s*(?:out of (?:the )?office|automatic reply|auto(?:matic)?[- ]?(?:reply|response)|autoreply|"
    r"abwesenheitsnotiz|automatische antwort|abwesend|automatisch antwoord|afwezig(?:heid)?|niet op kantoor|"
    r"réponse automatique|reponse automatique|absence du bureau|absent(?:e)? du bureau|"
    r"자동 회신|자동 응답|부재중(?: 알림)?)\b\s*[:：-]?",
    re.IGNORECASE,
)
# What a vacation notice says when nothing marks it (the reply has no move).
_AWAY_TEXT = re.compile(
    r"out of (?:the )?office|on (?:annual )?leave until|away (?:from (?:the|my) (?:office|desk) )?until"
    r"|nicht im büro|außer haus|abwesend|im urlaub|niet op kantoor|afwezig|met vakantie"
    r"|absent(?:e)? du bureau|je suis absent|en congés?|부재중|휴가 중",
    re.IGNORECASE,
)
_MACHINE_SENDERS = frozenset({"mailer-daemon", "postmaster"})


def away_notice(text: str) -> bool:
    """Whether ``text`` (a reply's own text, which holds no move) reads as an out-of-office notice."""
    return _AWAY_TEXT.search(text[:2000]) is not None


def automatic(message: Message) -> str | None:
    """What marks ``message`` as sent by a machine (a header's name), or None:
    RFC 3834's headers, a mailing list's (RFC 2369, RFC 2919), a delivery
    report (a bounce, RFC 3464), or an autoresponder's subject."""
    found = _automatic_headers(message)
    if found is not None:
        return found
    if message.get("List-Id") is not None or message.get("List-Post") is not None:
        return "List-Id"  # a list's copy: the player's own reply reaches us directly
    if message.get_content_type() == "multipart/report" or any(
        part.get_content_type() in ("message/delivery-status", "message/disposition-notification")
        for part in message.walk()
    ):
        return "Content-Type"
    if parseaddr(str(message.get("From", "")))[1].partition("@")[0].lower() in _MACHINE_SENDERS:
        return "From"
    if _AUTOMATIC_SUBJECT.match(str(message.get("Subject", ""))):
        return "Subject"
    return None


def _automatic_headers(message: Message) -> str | None:
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


_SUFFIXES: PublicSuffixList | None = None
# Results that say something was checked; "none" (nothing published) and
# "neutral" say nothing about the sender.
_JUDGED = frozenset({"pass", "fail", "softfail", "policy", "permerror", "temperror"})


def organizational_domain(domain: str) -> str:
    """The registrable domain of ``domain`` (``mail.example.co.uk`` → ``example.co.uk``), by the public suffix list."""
    global _SUFFIXES
    if _SUFFIXES is None:
        _SUFFIXES = PublicSuffixList()
    domain = domain.lower().strip().strip(".")
    return _SUFFIXES.privatesuffix(domain) or domain


def aligned(domain: str | None, from_domain: str) -> bool:
    """DMARC's relaxed alignment: ``domain`` has the organizational domain of ``from_domain``."""
    if not domain:
        return False  # a pass for a domain nobody named aligns with nothing
    return organizational_domain(domain) == organizational_domain(from_domain)


def forged(verdicts: Verdicts, player_email: str) -> bool:
    """Whether the reply is not authenticated as its ``From`` (the player's
    address) as DMARC requires: neither SPF nor DKIM passes for a domain
    aligned with the player's, yet something was checked (a pass for another
    domain is the forger's own; a fail is a fail). A message with only "none"
    verdicts (a domain that publishes no SPF and signs nothing) is not
    refused: nothing could authenticate it."""
    if not verdicts.known:
        return False
    player = player_email.rpartition("@")[2]
    if verdicts.spf == "pass" and aligned(verdicts.spf_domain, player):
        return False
    if any(result == "pass" and aligned(domain, player) for result, domain in verdicts.dkim):
        return False
    return verdicts.spf in _JUDGED or any(result in _JUDGED for result, _domain in verdicts.dkim)


def from_provider(fields: dict[str, Any]) -> Verdicts:
    """SendGrid's inbound parse fields: ``SPF`` ("pass", "fail", …, judged
    for the envelope sender of the ``envelope`` field) and ``dkim``
    ("{@example.com : pass}", several comma-separated, or "none")."""
    verdicts = Verdicts()
    spf = str(fields.get("SPF") or "").strip().lower()
    if spf:
        verdicts.spf = spf.split()[0]
        verdicts.spf_domain = _envelope_domain(fields.get("envelope"))
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


def _envelope_domain(envelope: Any) -> str | None:
    """The domain of the envelope sender in SendGrid's ``envelope`` field (JSON), or None."""
    try:
        sender = json.loads(str(envelope))["from"] if envelope else ""
    except (ValueError, TypeError, KeyError):
        return None
    domain = str(sender or "").rpartition("@")[2].strip().strip(">")
    return domain or None

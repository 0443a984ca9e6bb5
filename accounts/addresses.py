"""Whether an email address can be a real mailbox of someone we invite."""

from __future__ import annotations

import ipaddress
import re

_LABEL = re.compile(r"^(?!-)[a-z0-9-]{1,63}(?<!-)$")


def has_mail_domain(email: str) -> bool:
    """A domain name with a dot, and not an address literal (``[192.0.2.1]``,
    ``[IPv6:…]``) nor a bare IP address: invitations go to people's mailboxes,
    not to machines (and a literal would let anyone mail any server)."""
    domain = email.rpartition("@")[2].strip().lower().rstrip(".")
    if not domain or domain.startswith("[") or "." not in domain:
        return False
    try:
        ipaddress.ip_address(domain)
    except ValueError:
        pass
    else:
        return False
    labels = domain.encode("idna").decode("ascii").split(".") if domain.isascii() else _idna(domain)
    return bool(labels) and all(_LABEL.match(label) for label in labels) and not labels[-1].isdigit()


def _idna(domain: str) -> list[str]:
    try:
        return domain.encode("idna").decode("ascii").split(".")
    except UnicodeError:
        return []

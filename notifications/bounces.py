"""Bouncing addresses: a permanent SMTP refusal (5xx) stops mail to an address.

A mail server's 5xx for the recipient (``550 5.1.1 no such user``) will not
change by retrying: the email fails at once and the address is marked as
bouncing (``Suppression``). No more mail goes to it — except sign-in links,
which are how its player confirms the address again: signing in with a fresh
sign-in link (accounts announces ``address_confirmed``) clears the mark.
Operators see bouncing addresses in the admin.

A 5xx for our own sender address, or any 4xx, is not the recipient's fault:
those are temporary failures, retried with back-off.
"""

from __future__ import annotations

import logging
import smtplib

from .models import Notification, Suppression

logger = logging.getLogger(__name__)


def is_permanent(error: BaseException) -> bool:
    """Whether the mail server refused the recipient for good (a 5xx)."""
    if isinstance(error, smtplib.SMTPRecipientsRefused):
        codes = [code for code, _message in error.recipients.values()]
        return bool(codes) and all(500 <= code < 600 for code in codes)
    if isinstance(error, smtplib.SMTPSenderRefused):
        return False  # our own address was refused: a configuration problem, not the player's
    if isinstance(error, smtplib.SMTPResponseException):  # e.g. a 550 after DATA (some servers check there)
        return 500 <= error.smtp_code < 600
    return False


def mark_bouncing(email: str, detail: str) -> None:
    Suppression.objects.update_or_create(
        email=email.lower(), reason=Suppression.Reason.BOUNCING, defaults={"detail": detail[:2000]}
    )


def confirm(email: str) -> None:
    """The player proved the address works (a fresh sign-in link reached them)."""
    Suppression.objects.filter(email=email.lower(), reason=Suppression.Reason.BOUNCING).delete()


def block_invitations(email: str) -> None:
    Suppression.objects.get_or_create(email=email.lower(), reason=Suppression.Reason.NO_INVITATIONS)


def is_suppressed(notification: Notification) -> bool:
    """Whether ``notification`` must not go out: its address bounces, or it is
    an invitation to an address that asked for no more."""
    reasons = [Suppression.Reason.BOUNCING]
    if notification.kind == "invitation":
        reasons.append(Suppression.Reason.NO_INVITATIONS)
    return Suppression.objects.filter(email=notification.email.lower(), reason__in=reasons).exists()

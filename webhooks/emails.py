"""The one email this app sends: the owner's endpoint was switched off.

Sent with Django's mail API and the project's email settings, in the owner's
language, from the worker that switched the endpoint off (once: only the
worker whose conditional UPDATE switched it off sends it). It is a notice, not
a game email, so it does not pass through the game emails' outbox and
preferences.
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.core.mail import EmailMessage
from django.template.loader import render_to_string
from django.utils import translation

from .models import Endpoint

logger = logging.getLogger(__name__)


def send_endpoint_disabled(endpoint: Endpoint) -> bool:
    """Tell the owner that ``endpoint`` was switched off and why; False if the mail failed."""
    owner = endpoint.owner
    last = endpoint.deliveries.exclude(last_error="").order_by("-next_attempt").first()
    context = {
        "user": owner,
        "endpoint": endpoint,
        "failures": endpoint.consecutive_failures,
        "last_error": last.last_error if last is not None else "",
        "site_url": settings.SITE_URL,
    }
    with translation.override(owner.language or settings.LANGUAGE_CODE):
        subject = render_to_string("webhooks/endpoint_disabled-subject.txt", context).strip()
        body = render_to_string("webhooks/endpoint_disabled-body.txt", context)
    try:
        EmailMessage(subject=" ".join(subject.split()), body=body, to=[owner.email]).send()
    except Exception:  # the endpoint stays off either way; the API and the admin show why
        logger.warning(
            "could not tell %s that webhook endpoint %s was switched off", owner.pk, endpoint.pk, exc_info=True
        )
        return False
    return True

"""Registering, changing and testing webhook endpoints (the use cases the API and the admin call)."""

from __future__ import annotations

import base64
import secrets
import uuid
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from accounts.models import User
from manhattan_site.api.codes import ProblemError

from . import delivery, payloads, ssrf
from .models import TEST_EVENT, Delivery, Endpoint


@dataclass(frozen=True)
class NewEndpoint:
    endpoint: Endpoint
    secret: str  # shown once, in the answer to the registration


def new_secret() -> str:
    """A Standard Webhooks signing secret: ``whsec_`` and 32 random bytes in base64."""
    return "whsec_" + base64.b64encode(secrets.token_bytes(32)).decode("ascii")


def checked_url(url: str) -> str:
    """``url`` if the SSRF guard lets the server call it; otherwise a refusal naming why."""
    try:
        ssrf.check_url(url)
    except ssrf.UnsafeURL as refused:
        raise ProblemError("webhook_url_refused", refused.message, field="url", reason=refused.reason) from refused
    return url.strip()


def create_endpoint(*, owner: User, url: str, event_types: list[str], description: str = "") -> NewEndpoint:
    url = checked_url(url)
    with transaction.atomic():
        # The owner's row is locked so that two registrations at once cannot both pass the limit.
        User.objects.select_for_update().filter(pk=owner.pk).first()
        limit = settings.WEBHOOK_MAX_ENDPOINTS_PER_USER
        if Endpoint.objects.filter(owner=owner).count() >= limit:
            raise ProblemError(
                "webhook_limit_reached", f"You have {limit} webhook endpoints, the most allowed; delete one first."
            )
        secret = new_secret()
        endpoint = Endpoint.objects.create(
            owner=owner, url=url, event_types=sorted(set(event_types)), description=description, secret=secret
        )
    return NewEndpoint(endpoint, secret)


def update_endpoint(
    *,
    endpoint: Endpoint,
    url: str | None = None,
    event_types: list[str] | None = None,
    description: str | None = None,
    enabled: bool | None = None,
) -> Endpoint:
    """Change what was given. Switching an endpoint back on forgets its failures."""
    if url is not None:
        endpoint.url = checked_url(url)
    if event_types is not None:
        endpoint.event_types = sorted(set(event_types))
    if description is not None:
        endpoint.description = description
    if enabled is True and not endpoint.enabled:
        endpoint.enabled, endpoint.consecutive_failures = True, 0
        endpoint.disabled_reason, endpoint.disabled_at = "", None
    elif enabled is False and endpoint.enabled:
        endpoint.enabled, endpoint.disabled_reason, endpoint.disabled_at = (
            False,
            "Switched off by its owner.",
            timezone.now(),
        )
    endpoint.save()
    return endpoint


def rotate_secret(*, endpoint: Endpoint) -> NewEndpoint:
    """A new signing secret for ``endpoint``. Every attempt is signed with it from now
    on, and for ``WEBHOOK_SECRET_OVERLAP_HOURS`` also with the old one (a second
    signature in the same header), so the receiver can switch at its own pace."""
    endpoint.previous_secret = endpoint.secret
    endpoint.previous_secret_until = timezone.now() + timedelta(hours=settings.WEBHOOK_SECRET_OVERLAP_HOURS)
    endpoint.secret = new_secret()
    endpoint.save(update_fields=["secret", "previous_secret", "previous_secret_until", "updated"])
    return NewEndpoint(endpoint, endpoint.secret)


def delete_endpoint(*, endpoint: Endpoint) -> None:
    endpoint.delete()  # its delivery log goes with it


def send_test_event(*, endpoint: Endpoint) -> Delivery:
    """Queue a ``webhook.test`` delivery to ``endpoint`` (tried once, even while it is switched off)."""
    now = timezone.now()
    data = {"endpoint": endpoint.pk, "message": "A test event: the endpoint is reachable and can verify signatures."}
    with transaction.atomic():
        test = Delivery.objects.create(
            endpoint=endpoint,
            event_id=f"msg_test_{uuid.uuid4().hex}",
            event_type=TEST_EVENT,
            payload=payloads.envelope(TEST_EVENT, now, data),
        )
        delivery.publish_on_commit([test.pk])
    return test

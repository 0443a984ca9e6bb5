"""System checks of the mail settings (``manage.py check --deploy``, and
every ``migrate`` and ``runserver``)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.checks import Error, Tags, register


@register(Tags.security)
def inbound_webhook_has_a_secret(app_configs: Any, **kwargs: Any) -> list[Error]:
    """In production the inbound webhook is shut unless it has a secret: refuse to start without one."""
    if settings.PRODUCTION and settings.INBOUND_PROVIDER and not settings.ANYMAIL.get("WEBHOOK_SECRET"):
        return [
            Error(
                "INBOUND_WEBHOOK_SECRET is not set, so the inbound mail webhook would accept anyone's posts.",
                hint="Set INBOUND_WEBHOOK_SECRET (user:password, as configured at the mail provider), "
                "or INBOUND_PROVIDER= (empty) to mount no inbound webhook.",
                id="notifications.E001",
            )
        ]
    return []

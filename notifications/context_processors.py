"""Template context of this app for every page."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import HttpRequest

DEV_OUTBOX_BACKEND = "django.core.mail.backends.filebased.EmailBackend"


def dev_outbox(request: HttpRequest) -> dict[str, Any]:
    """Lets the page header link to the development outbox (whose view 404s otherwise)."""
    return {"show_dev_outbox": settings.DEBUG and settings.EMAIL_BACKEND == DEV_OUTBOX_BACKEND}

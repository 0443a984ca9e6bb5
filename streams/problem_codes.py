"""The problem codes of the event streams, declared for the API layer's registry."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from manhattan_site.api.codes import ErrorCode

CODES = [
    ErrorCode("bad_last_event_id", 400, _("Last-Event-ID (or 'after') is not a cursor this stream gave out.")),
    ErrorCode("too_many_streams", 429, _("You have as many open event streams as allowed; close one first.")),
    ErrorCode(
        "streams_need_asgi", 503, _("Event streams are served by the ASGI server only; this server speaks WSGI.")
    ),
]

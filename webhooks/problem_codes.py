"""The problem codes of the webhooks API, declared for the API layer's registry."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from manhattan_site.api.codes import ErrorCode

CODES = [
    ErrorCode("webhook_limit_reached", 422, _("You have as many webhook endpoints as allowed.")),
    ErrorCode("webhook_not_found", 404, _("You have no webhook endpoint with this id.")),
    ErrorCode(
        "webhook_url_refused",
        422,
        _("The webhook URL may not be called (see 'reason'): https only, no private addresses."),
    ),
]

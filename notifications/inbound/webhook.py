"""The inbound-mail webhook: django-anymail's SendGrid view, made strict.

Anymail's parser assumes a well-formed payload; a malformed one raised deep
inside it and answered 500, which makes the provider retry forever. Here any
payload it cannot read is refused with 400.
"""

from __future__ import annotations

from typing import Any

from anymail.exceptions import AnymailWebhookValidationFailure
from anymail.webhooks.sendgrid import SendGridInboundWebhookView


class StrictSendGridInboundWebhookView(SendGridInboundWebhookView):  # type: ignore[misc]
    def parse_events(self, request: Any) -> Any:
        try:
            return super().parse_events(request)
        except (KeyError, TypeError, IndexError, AttributeError, LookupError, ValueError) as error:
            raise AnymailWebhookValidationFailure(f"unreadable inbound payload: {type(error).__name__}") from error

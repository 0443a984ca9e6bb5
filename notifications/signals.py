"""Inbound mail from django-anymail's webhooks becomes a move."""

from typing import Any

from anymail.signals import inbound
from django.dispatch import receiver

from .inbound import screening
from .replies import handle_inbound


@receiver(inbound)
def play_emailed_move(sender: Any, event: Any, esp_name: str, **kwargs: Any) -> None:
    # Our SendGrid view hands the provider's form fields over as a dict (with its SPF and DKIM verdicts).
    fields = event.esp_event if isinstance(event.esp_event, dict) else {}
    handle_inbound(event.message, verdicts=screening.from_provider(fields))

"""Inbound mail from django-anymail's webhooks becomes a move."""

from typing import Any

from anymail.signals import inbound
from django.dispatch import receiver

from .replies import handle_inbound


@receiver(inbound)
def play_emailed_move(sender: Any, event: Any, esp_name: str, **kwargs: Any) -> None:
    handle_inbound(event.message)

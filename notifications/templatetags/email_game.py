"""``{% game_part "name" %}``: a part of an email's game section (see
``notifications.email_parts``), built in Python from the context the template
is rendered with."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django import template

from notifications import email_parts

register = template.Library()

PARTS: dict[str, Callable[[dict[str, Any]], str]] = {
    "actions_html": email_parts.actions_html,
    "actions_text": email_parts.actions_text,
    "hand_html": email_parts.hand_html,
    "supply_html": email_parts.supply_html,
    "pieces_text": email_parts.pieces_text,
    "scores_html": email_parts.scores_html,
    "scores_text": email_parts.scores_text,
    "board_html": lambda context: email_parts.board_html(context["view"]),
}


@register.simple_tag(takes_context=True)
def game_part(context: template.Context, name: str) -> str:
    """The HTML parts are safe strings; the text parts are used with autoescaping off."""
    values: dict[str, Any] = {str(key): value for key, value in context.flatten().items()}
    return PARTS[name](values)

"""Why a move was refused, in the reader's language.

The engine refuses with a ``message_id`` and the ``params`` its English
template names. The templates are written once, in the engine
(``games/engine/messages.py``, marked there for ``makemessages``); each is the
message id of its translation in the site's catalogues, so here a refusal is
translated by looking its template up with ``gettext`` and filling in the
params (colours and parts of a move translated too), put after its rule once:
"R9: …". A refusal without a known ``message_id`` keeps the engine's English.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.utils.functional import Promise
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from games.engine.messages import NOTATION_MESSAGES, RULE_MESSAGES

from .vocabulary import COLOUR_LABELS

# message_id -> the engine's English template (the msgid of its translation).
TEMPLATES: dict[str, str] = {
    **{message_id: template for message_id, (_code, _rule, template) in RULE_MESSAGES.items()},
    **NOTATION_MESSAGES,
}
PARTS: dict[str, Promise] = {"card": _("card"), "city": _("city"), "size": _("size")}
_COLOUR_PARAMS = ("colour", "other_colour", "owner")


def _params(params: Mapping[str, Any]) -> dict[str, Any]:
    words = dict(params)
    for name in _COLOUR_PARAMS:
        if words.get(name) in COLOUR_LABELS:
            words[name] = str(COLOUR_LABELS[words[name]])
    if words.get("part") in PARTS:
        words["part"] = str(PARTS[words["part"]])
    return words


def refusal_text(message: str, *, rule: str = "", message_id: str = "", params: Mapping[str, Any] | None = None) -> str:
    """The refusal in the active language, without its rule (for a page that
    shows the rule as a badge). The engine's English ``message`` when its
    ``message_id`` is not one of the engine's."""
    english = message[len(rule) + 2 :] if rule and message.startswith(f"{rule}: ") else message
    template = TEMPLATES.get(message_id)
    if template is None:
        return english
    try:
        return gettext(template).format(**_params(params or {}))
    except (KeyError, IndexError, ValueError):  # a catalogue that lost a placeholder: the English is right
        return english


def explained(message: str, *, rule: str = "", message_id: str = "", params: Mapping[str, Any] | None = None) -> str:
    """The refusal in the active language, after its rule once: "R9: …"."""
    text = refusal_text(message, rule=rule, message_id=message_id, params=params)
    return f"{rule}: {text}" if rule else text

"""The problem codes of table talk (``games.talk.services``), declared for the API layer's registry."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from manhattan_site.api.codes import ErrorCode

CODES = [
    ErrorCode("message_empty", 422, _("A table message needs some text (control characters do not count).")),
    ErrorCode("message_too_long", 422, _("A table message has at most 'max_length' characters.")),
    ErrorCode("mute_self", 422, _("You cannot mute yourself.")),
    ErrorCode("too_many_messages", 429, _("You wrote too many table messages; wait 'Retry-After' seconds.")),
]

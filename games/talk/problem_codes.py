"""The problem codes of table talk (``games.talk.services``), declared for the API layer's registry,
with what the game page's table tells a player who meets them (``page_text``)."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from manhattan_site.api.codes import ErrorCode

CODES = [
    ErrorCode(
        "message_empty",
        422,
        _("A table message needs some text (control characters do not count)."),
        page_text=_("A message needs some text."),
    ),
    ErrorCode(
        "message_too_long",
        422,
        _("A table message has at most 'max_length' characters."),
        page_text=_("A message has at most %(max_length)s characters."),
    ),
    ErrorCode("mute_self", 422, _("You cannot mute yourself.")),
    ErrorCode(
        "too_many_messages",
        429,
        _("You wrote too many table messages; wait 'Retry-After' seconds."),
        page_text=_("That was a lot of messages: please wait a little before the next one."),
    ),
]

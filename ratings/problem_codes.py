"""The problem codes of the players API (profiles and leaderboards), declared for the API layer's registry."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from manhattan_site.api.codes import ErrorCode

CODES = [
    ErrorCode("player_not_found", 404, _("There is no player with this id, or their profile is hidden from you.")),
    ErrorCode("opponent_not_found", 404, _("There is no player with the 'opponent' id, or their profile is hidden.")),
    ErrorCode("not_your_profile", 403, _("Only a player changes their own profile.")),
]

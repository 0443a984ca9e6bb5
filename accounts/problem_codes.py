"""The problem codes of accounts (tokens, scopes, bot accounts, closing), declared for the API layer's registry."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from manhattan_site.api.codes import ErrorCode

CODES = [
    ErrorCode(
        "insufficient_scope",
        403,
        _("The token lacks the scope this endpoint needs (games:read, games:play, webhooks:manage)."),
    ),
    ErrorCode("staff_not_bot", 403, _("An operator's account cannot be a bot account.")),
    ErrorCode(
        "fresh_sign_in_required",
        403,
        _("Closing the account needs a browser session from a fresh sign-in link, not a token."),
    ),
    ErrorCode("token_not_found", 404, _("You have no API token with this id.")),
]

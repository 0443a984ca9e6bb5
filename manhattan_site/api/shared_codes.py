"""The codes of the API layer itself: DRF's own refusals, the strict input
(``manhattan_site.strict_input``), the database and the request's size, and the
list filters every app's lists share. An app's own codes are in its
``problem_codes`` module."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _
from rest_framework import exceptions

from .codes import ErrorCode

# DRF's exceptions and the code each answers with (unless raised with one of its own).
DRF_CODES: dict[type[exceptions.APIException], str] = {
    exceptions.ParseError: "malformed_request",
    exceptions.AuthenticationFailed: "authentication_failed",
    exceptions.NotAuthenticated: "not_authenticated",
    exceptions.PermissionDenied: "forbidden",
    exceptions.NotFound: "not_found",
    exceptions.MethodNotAllowed: "method_not_allowed",
    exceptions.NotAcceptable: "not_acceptable",
    exceptions.UnsupportedMediaType: "unsupported_media_type",
    exceptions.Throttled: "throttled",
    exceptions.ValidationError: "invalid",
}
_DRF_DESCRIPTIONS = {
    "malformed_request": _("The body is not valid JSON."),
    "authentication_failed": _("The token or session is not valid."),
    "not_authenticated": _("Sign in or send 'Authorization: Bearer <token>'."),
    "forbidden": _("You may not do this."),
    "not_found": _("There is no such resource or endpoint."),
    "method_not_allowed": _("This endpoint does not take this method."),
    "not_acceptable": _("The API answers in JSON only."),
    "unsupported_media_type": _("Send JSON ('Content-Type: application/json')."),
    "throttled": _("Too many requests; wait 'Retry-After' seconds."),
    "invalid": _("The request is not valid; 'errors' names each field and what is wrong with it."),
}

CODES = [
    *[ErrorCode(code, int(error.status_code), _DRF_DESCRIPTIONS[code]) for error, code in DRF_CODES.items()],
    ErrorCode("body_not_allowed", 400, _("This request takes no body.")),
    ErrorCode("body_too_large", 413, _("The request body is too large.")),
    ErrorCode("unknown_field", 422, _("The body has a field this endpoint does not take; 'field' names it.")),
    ErrorCode("database_unavailable", 503, _("The database was briefly unavailable; nothing was stored. Retry.")),
    # Every app's lists filter this way (games, lobby, watching, leaderboards).
    ErrorCode("bad_filter", 400, _("A list filter has a value the list does not know (see the parameter's enum).")),
]

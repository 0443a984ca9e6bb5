"""RFC 9457 problem details for every API error.

One exception handler turns service errors, engine errors and DRF's own
errors into ``application/problem+json`` with a stable ``code``, so clients
switch on the code and show the message.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied, RequestDataTooBig
from django.db import InterfaceError
from django.db import OperationalError as DatabaseOperationalError
from django.http import Http404, HttpRequest, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from rest_framework import exceptions
from rest_framework.response import Response
from rest_framework.views import exception_handler

from games.engine import NotationError, RuleError
from games.errors import GameError, from_rule_error
from manhattan_site.strict_input import InputRefused

from .permissions import hidden_refusal

PROBLEM_CONTENT_TYPE = "application/problem+json"

# What each service code means to HTTP; a code not listed is a refusal of
# what the request asked (422): the engine's rule codes and bad input.
STATUS_BY_CODE = {
    "bad_filter": 400,
    "bad_if_match": 400,
    "bad_idempotency_key": 400,
    "bad_after": 400,
    "not_a_player": 403,
    "no_seat": 403,
    "not_creator": 403,
    "not_invited": 403,
    "undo_forbidden": 403,
    "game_not_found": 404,
    "player_not_found": 404,
    "opponent_not_found": 404,
    "not_your_profile": 403,
    "no_such_event": 404,
    "game_started": 409,
    "already_seated": 409,
    "seats_open": 409,
    "game_lobby": 409,
    "game_active": 409,
    "game_finished": 409,
    "game_abandoned": 409,
    "game_not_finished": 409,
    "review_not_available": 409,
    "stale_version": 409,
    "corrupt_log": 409,
    "precondition_failed": 412,
    "version_required": 428,
    "too_many_messages": 429,
    # Answered where they arise, with these statuses (listed here so that the
    # problem pages, games.api.catalogue, read every status from this table).
    "malformed_request": 400,
    "bad_last_event_id": 400,
    "insufficient_scope": 403,
    "staff_not_bot": 403,
    "fresh_sign_in_required": 403,
    "body_not_allowed": 400,
    "token_not_found": 404,
    "webhook_not_found": 404,
    "body_too_large": 413,
    "too_many_streams": 429,
    "database_unavailable": 503,
    "streams_need_asgi": 503,
}


def status_for(code: str) -> int:
    return STATUS_BY_CODE.get(code, 422)


DRF_CODES = {
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


def problem(status: int, code: str, detail: str, **extra: Any) -> dict[str, Any]:
    return {
        "type": f"/api/v1/problems/{code}",
        "title": code.replace("_", " ").capitalize(),
        "status": status,
        "code": code,
        "detail": detail,
        **extra,
    }


def problem_response(
    status: int, code: str, detail: str, headers: dict[str, str] | None = None, **extra: Any
) -> Response:
    return Response(
        problem(status, code, detail, **extra), status=status, headers=headers, content_type=PROBLEM_CONTENT_TYPE
    )


def problem_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    exc = hidden_refusal(exc, context)  # a stranger's refusal about a private game: the unknown id's 404
    if isinstance(exc, RuleError):
        exc = from_rule_error(exc)
    if isinstance(exc, NotationError):
        return problem_response(
            422, exc.code, exc.message, position=exc.position, token=exc.token, pointer=exc.pointer()
        )
    if isinstance(exc, InputRefused):
        return problem_response(exc.status_code, exc.problem_code, exc.message, **exc.extra)
    if isinstance(exc, GameError):
        wait = exc.extra.get("retry_after")
        headers = {"Retry-After": str(wait)} if wait is not None else None
        return problem_response(status_for(exc.code), exc.code, exc.message, headers=headers, **exc.extra)
    if isinstance(exc, (DatabaseOperationalError, InterfaceError)):
        # The transaction rolled back: retrying is safe (versions and
        # Idempotency-Keys cover a commit whose answer was lost).
        return problem_response(
            503, "database_unavailable", "The database is briefly unavailable; try again.", headers={"Retry-After": "1"}
        )
    if isinstance(exc, RecursionError):  # JSON nested too deeply for the parser
        return problem_response(400, "malformed_request", "The JSON body is nested too deeply.")
    if isinstance(exc, RequestDataTooBig):
        return problem_response(413, "body_too_large", "The request body is too large.")
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied()
    response = exception_handler(exc, context)
    if response is None or not isinstance(exc, exceptions.APIException):
        return response
    code = next((c for cls, c in DRF_CODES.items() if isinstance(exc, cls)), "error")
    own = exc.get_codes()
    if isinstance(own, str) and own != exc.default_code:  # raised with a code of its own
        code = own
    extra: dict[str, Any] = {}
    if isinstance(exc, exceptions.ValidationError):
        extra["errors"] = response.data
        detail = "The request is not valid; see 'errors'."
    else:
        data = response.data
        detail = str(data.get("detail", exc.detail)) if isinstance(data, dict) else str(exc.detail)
    headers = {k: v for k, v in response.items() if k in ("Retry-After", "WWW-Authenticate", "Allow")}
    return problem_response(response.status_code, code, detail, headers=headers, **extra)


@csrf_exempt  # any method gets the same 404, not Django's CSRF page
def api_not_found(request: HttpRequest, *args: Any, **kwargs: Any) -> JsonResponse:
    """Unknown URLs under /api/ answer in problem+json too, not an HTML page."""
    return JsonResponse(
        problem(404, "not_found", "There is no such API endpoint."), status=404, content_type=PROBLEM_CONTENT_TYPE
    )

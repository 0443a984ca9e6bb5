"""RFC 9457 problem details for every API error.

One exception handler (``REST_FRAMEWORK["EXCEPTION_HANDLER"]``) turns the apps'
refusals (:class:`~manhattan_site.api.codes.ProblemError`), the strict input's,
the database's and DRF's own errors into ``application/problem+json`` with a
stable ``code``, so clients switch on the code and show the message. The status
and title of a code come from the registry (``codes``). An app whose errors are
not problem errors (the engine's, which know nothing of Django) registers a
translator that turns them into one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.core.exceptions import PermissionDenied, RequestDataTooBig
from django.db import InterfaceError
from django.db import OperationalError as DatabaseOperationalError
from django.http import Http404, HttpRequest, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from rest_framework import exceptions
from rest_framework.response import Response
from rest_framework.views import exception_handler

from manhattan_site.strict_input import InputRefused

from .codes import ProblemError, title_for
from .shared_codes import DRF_CODES

PROBLEM_CONTENT_TYPE = "application/problem+json"

# exception, the view's context -> the exception to answer (the same one, or another)
Translator = Callable[[Exception, dict[str, Any]], Exception]
_translators: list[Translator] = []


def register_translator(translator: Translator) -> None:
    """Let an app turn its own exceptions into problem errors before they are
    answered (called from its ``AppConfig.ready``)."""
    if translator not in _translators:
        _translators.append(translator)


def problem(status: int, code: str, detail: str, **extra: Any) -> dict[str, Any]:
    return {
        "type": f"/api/v1/problems/{code}",
        "title": title_for(code),
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
    for translate in _translators:
        exc = translate(exc, context)
    if isinstance(exc, InputRefused):
        return problem_response(exc.status_code, exc.problem_code, exc.message, **exc.extra)
    if isinstance(exc, ProblemError):
        wait = exc.extra.get("retry_after")
        headers = {"Retry-After": str(wait)} if wait is not None else None
        return problem_response(exc.status, exc.code, exc.message, headers=headers, **exc.extra)
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

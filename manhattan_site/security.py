"""A Content-Security-Policy on every response.

Pages may run only scripts the server nonced (``<script nonce="{{ request.csp_nonce }}">``),
load nothing from other origins, and never be framed. The admin and the Swagger
UI, which carry inline scripts of their own and are used by staff and developers,
get a policy that allows inline scripts but is otherwise as strict.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

RELAXED_PATHS = ("/admin/", "/api/v1/docs/")


def policy(nonce: str, *, relaxed: bool) -> str:
    scripts = "'self' 'unsafe-inline'" if relaxed else f"'self' 'nonce-{nonce}'"
    return "; ".join(
        [
            "default-src 'self'",
            f"script-src {scripts}",
            "style-src 'self' 'unsafe-inline'",
            "img-src 'self' data:",
            "object-src 'none'",
            "base-uri 'none'",
            "form-action 'self'",
            "frame-ancestors 'none'",
        ]
    )


class ContentSecurityPolicyMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        nonce = secrets.token_urlsafe(16)
        request.csp_nonce = nonce  # type: ignore[attr-defined]
        response = self.get_response(request)
        if "Content-Security-Policy" not in response:
            response["Content-Security-Policy"] = policy(nonce, relaxed=request.path.startswith(RELAXED_PATHS))
        return response

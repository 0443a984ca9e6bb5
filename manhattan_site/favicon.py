"""``/favicon.ico``: browsers ask for it on every page, so it is served (as an
SVG, which they accept under any name) rather than answered with a 404."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_safe

# A tower, as the game page's own icon draws it when it is not your turn.
TOWER = (
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16">'
    '<rect x="3" y="2" width="10" height="13" fill="#24332d"/>'
    '<rect x="5" y="4" width="2" height="2" fill="#fff"/><rect x="9" y="4" width="2" height="2" fill="#fff"/>'
    "</svg>"
)


@require_safe
@cache_control(public=True, max_age=86400)
def favicon(request: HttpRequest) -> HttpResponse:
    return HttpResponse(TOWER, content_type="image/svg+xml")

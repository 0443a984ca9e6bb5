"""Template context of this app for every page: the signed-in person's own ratings,
so that a page offering bot levels (the new-game page) can show them beside the
levels' ratings and a player can pick an opponent near their own strength.

The ratings are read only when a page uses them (a lazy object): other pages pay
nothing. ``games`` never imports this app; its template shows the line when the
value is there.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from django.utils.functional import SimpleLazyObject

from .models import Rating


def my_ratings(request: HttpRequest) -> dict[str, Any]:
    """``my_ratings``: the signed-in person's ratings by number of players (``{2: Rating}``)."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}
    return {
        "my_ratings": SimpleLazyObject(lambda: {rating.players: rating for rating in Rating.objects.filter(user=user)})
    }

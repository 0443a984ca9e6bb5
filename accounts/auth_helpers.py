"""Small helpers for views that need the signed-in user as a ``User``."""

from __future__ import annotations

from typing import Any

from .models import User


def request_user(request: Any) -> User:
    """The authenticated user of a request that a permission has already checked."""
    user = request.user
    if not isinstance(user, User):
        raise TypeError("this view needs an authenticated user")
    return user

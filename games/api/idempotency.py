"""``Idempotency-Key``: a client's retry gets the stored answer, and no new event.

This is the API's own concern: the service plays the action and returns a
plain result; here the answer is stored in the same transaction as the move,
so a retry with the same key and body gets it again, and a reuse of the key
with another body is refused.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction

from accounts.models import User
from games.errors import GameError, StaleVersion
from games.models import Game, IdempotencyKey


def fingerprint(body: Any, version: int) -> str:
    """What makes two requests "the same": the body and the version acted on."""
    return hashlib.sha256(json.dumps([body, version], sort_keys=True, default=str).encode()).hexdigest()


def check_key(key: str | None) -> None:
    if key is not None and not 1 <= len(key) <= 255:
        raise GameError("bad_idempotency_key", "Idempotency-Key must be 1 to 255 characters.")


def _stored(user: User, game_id: Any, key: str, print_: str) -> dict[str, Any] | None:
    stored = IdempotencyKey.objects.filter(user=user, game__public_id=game_id, key=key).first()
    if stored is None:
        return None
    if stored.fingerprint != print_:
        raise GameError("idempotency_key_reused", "This Idempotency-Key was already used with a different request.")
    response: dict[str, Any] = stored.response
    return response


def once(
    *, user: User, game_id: Any, key: str, print_: str, act: Callable[[], tuple[Game, dict[str, Any]]]
) -> dict[str, Any]:
    """The stored answer for ``key``, or ``act()``'s (which plays the action
    and returns the game and the answer), stored with the move."""
    with transaction.atomic():
        try:
            # Nothing is locked yet: a stored answer is returned without waiting for the game.
            stored = _stored(user, game_id, key, print_)
        except (ValueError, TypeError, ValidationError):  # not a UUID: the service says so
            stored = None
        if stored is not None:
            return stored
        try:
            game, body = act()
        except StaleVersion:
            # A retry racing the request it repeats waited for its lock and
            # finds the game moved on: by the first one, whose answer is stored now.
            stored = _stored(user, game_id, key, print_)
            if stored is not None:
                return stored
            raise
        IdempotencyKey.objects.create(user=user, game=game, key=key, fingerprint=print_, status_code=200, response=body)
        return body

"""What games adds to the API layer's problem handler (``manhattan_site.api.problems``).

The engine knows nothing of Django, so its refusals are not problem errors:
a rule's refusal becomes a ``GameError`` with its rule and message id, and a
move that could not be read one with the place of the bad token. And a
stranger's refusal about a private game becomes the unknown id's 404, so that
a refusal never tells that the game exists. Registered in ``GamesConfig.ready``.
"""

from __future__ import annotations

from typing import Any

from games.engine import NotationError, RuleError
from games.errors import GameError, from_rule_error

from .permissions import hidden_refusal


def as_problem(exc: Exception, context: dict[str, Any]) -> Exception:
    exc = hidden_refusal(exc, context)
    if isinstance(exc, RuleError):
        return from_rule_error(exc)
    if isinstance(exc, NotationError):
        return GameError(exc.code, exc.message, position=exc.position, token=exc.token, pointer=exc.pointer())
    return exc

"""The service layer's one error type: every refusal a use case gives is a ``GameError``,
a problem error of the API layer.

Each error has a stable ``code`` (for rule errors, the engine's own code), a
human message in English and, in ``extra``, machine-readable details such as
the current version of a game. What a code means to HTTP (its status, title
and description) is registered in ``games.problem_codes``; the pages and the
emails translate the message from the code.

What it owns: ``GameError``, ``StaleVersion`` (a move made against a version the game
has moved past), ``not_found`` and ``from_rule_error`` (the engine's refusal carried
over with its rule, ``message_id`` and params, so it can be translated later).

Why it is safe: an error holds only what its caller may already know (the code, the
rule, the params of the caller's own action and hand, the game's version), never hidden
information, so every interface can show it whole; and it is raised before anything is
written, or inside the transaction it rolls back, so a refused action leaves no trace
in the game's log. Clients switch on the codes: every code raised has a documented
problem page (``tests/games/test_api_index.py``).
"""

from __future__ import annotations

from typing import Any

from games.engine import RuleError
from manhattan_site.api.codes import ProblemError


class GameError(ProblemError):
    """A refusal by the games services (``code``, ``message``, ``extra``: see ProblemError)."""


class StaleVersion(GameError):
    """The action was made against a version the game has moved past."""

    def __init__(self, message: str, **extra: Any) -> None:
        super().__init__("stale_version", message, **extra)


def not_found() -> GameError:
    return GameError("game_not_found", "There is no game with this id.")


def from_rule_error(error: RuleError) -> GameError:
    """An engine refusal: the action was understood but the rules forbid it."""
    extra: dict[str, Any] = {"rule": error.rule} if error.rule else {}
    if error.params:
        extra["params"] = error.params
    if error.message_id:
        extra["message_id"] = error.message_id
    return GameError(error.code, error.message, **extra)

"""The service layer's one error type, mapped to problem+json by the API.

Each error has a stable ``code`` (for rule errors, the engine's own code), an
HTTP status and a human message; ``extra`` carries machine-readable details
such as the current version of a game.
"""

from __future__ import annotations

from typing import Any

from games.engine import RuleError


class GameError(Exception):
    status = 400
    code = "bad_request"

    def __init__(self, message: str, *, code: str | None = None, status: int | None = None, **extra: Any) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        if status is not None:
            self.status = status
        self.extra = extra


class NotFound(GameError):
    status = 404
    code = "not_found"


class Forbidden(GameError):
    status = 403
    code = "forbidden"


class Conflict(GameError):
    status = 409
    code = "conflict"


class StaleVersion(Conflict):
    code = "stale_version"


class VersionRequired(GameError):
    status = 428
    code = "version_required"


class Unprocessable(GameError):
    status = 422
    code = "unprocessable"


def from_rule_error(error: RuleError) -> GameError:
    """An engine refusal: the action was understood but the rules forbid it."""
    if error.rule:
        return Unprocessable(error.message, code=error.code, rule=error.rule)
    return Unprocessable(error.message, code=error.code)

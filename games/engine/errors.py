"""The one error type the engine raises for an illegal command."""

from __future__ import annotations


class RuleError(Exception):
    """A command that the rules do not allow.

    ``code`` is stable and machine readable (API clients switch on it);
    ``message`` is for people and names the rule that refused the command.
    """

    def __init__(self, code: str, message: str, *, rule: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.rule = rule

    def __repr__(self) -> str:
        return f"RuleError({self.code!r}, {self.message!r})"

    def as_dict(self) -> dict[str, str | None]:
        return {"code": self.code, "message": self.message, "rule": self.rule}


class NotationError(ValueError):
    """A move written in notation that could not be read.

    ``position`` is the 0-based column of the offending token in the text, so
    a reply can point at it.
    """

    code = "bad_notation"

    def __init__(self, message: str, *, text: str, position: int, token: str) -> None:
        super().__init__(message)
        self.message = message
        self.text = text
        self.position = position
        self.token = token

    def pointer(self) -> str:
        """The text with a caret under the wrong token, for plain-text replies."""
        return f"{self.text}\n{' ' * self.position}^"

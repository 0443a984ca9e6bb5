"""The two error types the engine raises: ``RuleError`` for a command the
rules (or the engine's boundaries) refuse, ``NotationError`` for a move that
could not be read. Both carry a stable ``code``, an English ``message``, and
the ``message_id`` and ``params`` of that message in ``messages.py``, so a site
can say the same thing in its own words and languages."""

from __future__ import annotations

from .messages import NOTATION_MESSAGES, RULE_MESSAGES

Params = dict[str, int | str]


class RuleError(Exception):
    """A command that the rules do not allow.

    ``code`` is stable and machine readable (API clients switch on it);
    ``message`` is for people and names the rule that refused the command;
    ``message_id`` and ``params`` identify its template (``messages.py``).
    """

    def __init__(
        self,
        code: str,
        message: str,
        *,
        rule: str | None = None,
        params: Params | None = None,
        message_id: str | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.rule = rule
        self.params: Params = dict(params or {})
        self.message_id = message_id or code

    def __repr__(self) -> str:
        return f"RuleError({self.code!r}, {self.message!r})"

    def as_dict(self) -> dict[str, str | Params | None]:
        return {
            "code": self.code,
            "message": self.message,
            "rule": self.rule,
            "message_id": self.message_id,
            "params": dict(self.params),
        }


def refuse(message_id: str, **params: int | str) -> RuleError:
    """The ``RuleError`` of catalogue entry ``message_id``, its message filled in from ``params``."""
    code, rule, template = RULE_MESSAGES[message_id]
    text = template.format(**params)
    message = f"{rule}: {text}" if rule else text
    return RuleError(code, message, rule=rule, params=params, message_id=message_id)


class NotationError(ValueError):
    """A move written in notation that could not be read.

    ``position`` is the 0-based column of the offending token in the text, so
    a reply can point at it. ``code`` is always ``bad_notation``; which of the
    messages of ``messages.NOTATION_MESSAGES`` it is says ``message_id``.
    (A ``ValueError``, as it has always been, so ``except ValueError`` keeps working.)
    """

    code = "bad_notation"
    rule = None

    def __init__(
        self,
        message: str,
        *,
        text: str,
        position: int,
        token: str,
        message_id: str = "bad_notation",
        params: Params | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.text = text
        self.position = position
        self.token = token
        self.message_id = message_id
        self.params: Params = dict(params or {})

    def pointer(self) -> str:
        """The text with a caret under the wrong token, for plain-text replies."""
        return f"{self.text}\n{' ' * self.position}^"

    def as_dict(self) -> dict[str, str | int | Params | None]:
        return {
            "code": self.code,
            "message": self.message,
            "rule": None,
            "message_id": self.message_id,
            "params": dict(self.params),
            "position": self.position,
            "token": self.token,
        }


def unreadable(message_id: str, *, text: str, position: int, token: str = "", **params: int | str) -> NotationError:
    """The ``NotationError`` of catalogue entry ``message_id``."""
    if "{column}" in NOTATION_MESSAGES[message_id]:
        params = {"token": token, "column": position + 1, **params}
    message = NOTATION_MESSAGES[message_id].format(**params)
    return NotationError(message, text=text, position=position, token=token, message_id=message_id, params=params)

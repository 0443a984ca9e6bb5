"""Strict input for every API write: one serializer base and one JSON parser.

An ignored field looks accepted: a misspelt ``scopes`` on a new token would mint
a token with every scope, and a typo in ``expected_versoin`` would turn a guarded
move into an unguarded one. So every request body is read by a serializer built
on :class:`StrictSerializer`, which refuses a field it does not declare (a 422
``unknown_field`` problem naming it), in nested objects too.

The parser refuses what no field can hold (a lone UTF-16 surrogate, which no
response could even echo, and NUL, which PostgreSQL cannot store) before any view
sees it, as a 400 ``malformed_request`` problem.

A write that takes no body at all (starting a game, revoking a token) would
otherwise ignore whatever is sent to it; :func:`takes_no_body` marks its handler
so that a body holding anything is refused (a 400 ``body_not_allowed`` problem)
before the handler acts. ``{}`` holds nothing that could be ignored, and many
clients send it with every POST, so it counts as no body.

This module lives in the project package, not in an app, because every app's API
uses it (accounts cannot import games).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from rest_framework import exceptions, parsers, serializers
from rest_framework.request import Request

Handler = TypeVar("Handler", bound=Callable[..., Any])


class InputRefused(exceptions.APIException):
    """A refusal of the request's input with a stable code and details of its own
    (``extra``); the project's problem handler renders it as problem+json."""

    def __init__(self, status: int, code: str, detail: str, **extra: Any) -> None:
        super().__init__(detail, code)
        self.status_code = status
        self.problem_code = code
        self.message = detail
        self.extra = extra


def unknown_field(path: str) -> InputRefused:
    return InputRefused(422, "unknown_field", f"Unknown field '{path}': it is not part of this request.", field=path)


def refuse_unknown_fields(serializer: serializers.BaseSerializer[Any], data: Any, path: str = "") -> None:
    """Raise ``unknown_field`` for the first field of ``data`` that ``serializer``
    (and the serializers nested in it) does not declare as writable; other
    mistakes (wrong types) are left to the serializer's own validation."""
    if isinstance(serializer, serializers.ListSerializer):
        if isinstance(data, list):
            for index, item in enumerate(data):
                refuse_unknown_fields(serializer.child, item, f"{path}[{index}]")  # type: ignore[arg-type]
        return
    if isinstance(serializer, serializers.ListField):
        return
    if not isinstance(serializer, serializers.Serializer) or not isinstance(data, Mapping):
        return
    fields = serializer.fields
    for name, value in data.items():
        where = f"{path}.{name}" if path else str(name)
        field = fields.get(name)
        if field is None or field.read_only:
            raise unknown_field(where)
        if isinstance(field, serializers.BaseSerializer):
            refuse_unknown_fields(field, value, where)


class StrictSerializer(serializers.Serializer[Any]):
    """The base of every serializer that reads a request body: a field it does
    not declare (or declares read-only) is refused, never dropped. Nested
    serializers are checked through the outermost one, which names the path
    (``options.playres``, ``seats[1].mail``)."""

    def is_valid(self, *, raise_exception: bool = False) -> bool:
        if hasattr(self, "initial_data"):
            refuse_unknown_fields(self, self.initial_data)
        return super().is_valid(raise_exception=raise_exception)


class StrictCharField(serializers.CharField):
    """A string, and only a string: DRF's CharField would store the number 8576
    as "8576", and a list or an object as its Python text."""

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        return str(super().to_internal_value(data))


class StrictBooleanField(serializers.BooleanField):
    """A JSON true or false, and only that: DRF's BooleanField also takes "yes", "off", 1 and 0."""

    def to_internal_value(self, data: Any) -> bool:
        if not isinstance(data, bool):
            self.fail("invalid", input=data)
        return data


class StrictIntegerField(serializers.IntegerField):
    """A JSON integer, and only that: DRF's IntegerField also takes "12" and 12.0."""

    def to_internal_value(self, data: Any) -> int:
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("invalid")
        return int(super().to_internal_value(data))


def _holds_unstorable_text(value: Any) -> str | None:
    """What is wrong with a string somewhere in ``value`` (keys too), or None."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if "\x00" in item:
                return "NUL (\\u0000) in a string"
            if any("\ud800" <= ch <= "\udfff" for ch in item):
                return "a lone UTF-16 surrogate in a string"
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return None


class StrictJSONParser(parsers.JSONParser):
    """JSON, refusing text no field can hold (see the module's docstring)."""

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError as error:
            raise exceptions.ParseError("The JSON body is nested too deeply.") from error
        except (ValueError, json.JSONDecodeError) as error:  # pragma: no cover - DRF raises ParseError
            raise exceptions.ParseError("The body is not valid JSON.") from error
        wrong = _holds_unstorable_text(data)
        if wrong is not None:
            raise exceptions.ParseError(f"The JSON body holds {wrong}, which is not accepted.")
        return data


def refuse_any_body(request: Request) -> None:
    """Refuse a request whose body holds anything, so a client never believes an
    operation read something it sent. An empty body and ``{}`` pass; a body
    that is not JSON is refused by the parser (415, or 400 if malformed)."""
    if request.body and request.data != {}:
        raise exceptions.ParseError("This request takes no body.", code="body_not_allowed")


def takes_no_body(handler: Handler) -> Handler:
    """Mark a view's write handler (whose schema says ``request=None``) as taking no
    body: one sent anyway is refused before the handler runs, after the checks
    of who may call it."""

    @functools.wraps(handler)
    def refusing(view: Any, request: Request, *args: Any, **kwargs: Any) -> Any:
        refuse_any_body(request)
        return handler(view, request, *args, **kwargs)

    return refusing  # type: ignore[return-value]

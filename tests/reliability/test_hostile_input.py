"""Hostile input on every operation of the schema: never a 5xx, always a problem.

Where tests/reliability/test_fuzz_api.py draws requests the schema describes
(and some that break it), this one sends what a careless or hostile client
does: JSON of any type where an object or a string is expected, lone UTF-16
surrogates, NUL, a 10 MB body, nesting ten thousand deep, bodies that are not
JSON at all, garbage in the conditional, idempotency and content headers, and
path values no route expects (percent-encoded invalid UTF-8, NUL, huge
numbers). The operations come from the schema, so a new one is covered the
day it is added. Every answer must be below 500, and every 4xx a problem+json
with a code; a stranger's or a player's session each drive every operation.
"""

from __future__ import annotations

import json
import re
import time
from collections import Counter
from typing import Any

import pytest
from django.test import Client
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from accounts.models import User
from games.models import Game

# slow: hostile input on every operation (left out by `dev.py test --fast`)
pytestmark = [pytest.mark.django_db, pytest.mark.slow]

EXAMPLES = 6  # per operation and identity, and each hostile body once: about 800 requests
BUDGET_SECONDS = 120
PARAMETER = re.compile(r"\{([a-z_]+)\}")

# JSON of every type, strings with the characters that used to break answers.
nasty_text = st.one_of(
    st.text(max_size=20),
    st.sampled_from(["\ud800", "a\udfffb", "\x00", "card 5\x00", "\u202e", "ﬀ", "𝟓", "\u200b" * 3, " " * 9]),
)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | nasty_text,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(nasty_text, inner, max_size=4),
    max_leaves=12,
)
FIELD_NAMES = ["action", "type", "seats", "options", "name", "scopes", "scope", "text", "public", "url", "players"]
objects = st.dictionaries(st.sampled_from(FIELD_NAMES) | nasty_text, json_values, max_size=4)


def _dumps(value: Any) -> bytes:
    return json.dumps(value).encode()  # ensure_ascii: a lone surrogate goes out as \\ud800, as clients send it


RAW_BODIES = [
    b"",
    b"{",
    b"null",
    b"[]",
    b'"just a string"',
    b"\xff\xfe\x00garbage",
    b'{"action": "\xed\xa0\x80"}',  # a surrogate encoded as (invalid) UTF-8
    b'{"action": "\\ud800"}',  # a lone surrogate, escaped as JSON allows
    b'{"action": {"type": "undo", "reason": "\\udfff"}, "text": "\\ud800", "name": "\\ud800"}',
    b'{"url": "https://\\ud800.example.com/", "event_types": ["\\ud800"], "players": "\\ud800"}',
    b'{"text": "a\\u0000b", "name": "a\\u0000", "action": "card 5\\u0000", "public": "\\u0000"}',
    b'{"action": {"type": {"$gt": ""}}, "seats": [{"kind": ["me"]}], "scopes": [{"a": 1}]}',
    b"[" * 10_000 + b"]" * 10_000,
    b'{"a":' * 10_000 + b"1" + b"}" * 10_000,
    b'{"action": "' + b"x" * (10 * 1024 * 1024) + b'"}',
    b"9" * 5000,
]
bodies = st.one_of(st.sampled_from(RAW_BODIES), objects.map(_dumps), json_values.map(_dumps))
# Mostly JSON, so that most bodies reach the parser and the serializers.
content_types = st.sampled_from(["application/json"] * 6 + ["application/json; charset=latin-1", "text/plain", ""])
header_values = st.one_of(
    st.sampled_from(['"3"', 'W/"1"', "*", '"', "\u00ff\u00fe", "9" * 400, "x" * 5000, "'; DROP", "-1", "1e9"]),
    st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=255), max_size=40),
)
headers = st.fixed_dictionaries(
    {},
    optional={
        "HTTP_IF_MATCH": header_values,
        "HTTP_IF_NONE_MATCH": header_values,
        "HTTP_IDEMPOTENCY_KEY": header_values,
        "HTTP_LAST_EVENT_ID": header_values,
        "HTTP_ACCEPT": st.sampled_from(["application/xml", "*/*", "text/html", "application/json;q=0", "\u00ff"]),
        "HTTP_ACCEPT_LANGUAGE": header_values,
    },
)
path_values = st.one_of(
    st.sampled_from(["%ED%A0%80", "%00", "%FF", "0", "-1", "9" * 40, "..%2F..", "%2e%2e", "x" * 3000, "%E2%80%AE"]),
    st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-_", min_size=1, max_size=40),
)


def operations(client: Client) -> list[tuple[str, str]]:
    schema = client.get("/api/v1/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    found = []
    for path, methods in schema["paths"].items():
        for method, operation in methods.items():
            if method in ("get", "post", "put", "patch", "delete") and "streams" not in operation.get("tags", []):
                found.append((method, path))
    return found


def assert_answer_is_sound(response: Any, what: str, seen: Counter[str]) -> None:
    code = ""
    if response.get("Content-Type") == "application/problem+json":
        code = json.loads(response.content).get("code", "")
    seen[f"{response.status_code} {code}".strip()] += 1
    assert response.status_code < 500, f"{what} -> {response.status_code}: {response.content[:300]!r}"
    if response.status_code >= 400:
        assert response["Content-Type"] == "application/problem+json", (what, response.status_code)
        body = json.loads(response.content)
        assert isinstance(body.get("code"), str), (what, body)
        assert body.get("status") == response.status_code, (what, body)


def drive(client: Client, method: str, path: str, real: dict[str, str], seen: Counter[str]) -> None:
    """Generated path values, bodies and headers on one operation."""

    @settings(
        max_examples=EXAMPLES,
        derandomize=True,
        database=None,
        deadline=None,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(
        values=st.fixed_dictionaries({name: st.sampled_from([real[name]] * 3) | path_values for name in real}),
        body=bodies,
        content_type=content_types,
        extra=headers,
    )
    def send(values: dict[str, str], body: bytes, content_type: str, extra: dict[str, str]) -> None:
        url = PARAMETER.sub(lambda m: values.get(m.group(1), "1"), path)
        if method == "get":
            response = client.get(url, **extra)
        else:
            response = client.generic(method.upper(), url, body, content_type=content_type, **extra)
        assert_answer_is_sound(response, f"{method.upper()} {url[:120]} body={body[:80]!r} {extra}", seen)

    send()


@pytest.mark.parametrize("who", ["player", "stranger"])
def test_hostile_input_on_every_operation_is_never_a_server_error(who, alice, stranger, started_game):
    user: User = alice if who == "player" else stranger
    client = Client(raise_request_exception=False)
    client.force_login(user)
    game: Game = started_game
    real = {"game_id": str(game.public_id), "player_id": str(user.pk), "n": "1", "index": "0"}
    found = operations(client)
    assert len(found) >= 30, found
    started = time.monotonic()
    seen: Counter[str] = Counter()

    for method, path in found:
        drive(client, method, path, real, seen)
        if method != "get":  # and every hostile body once where it surely reaches the parser
            url = PARAMETER.sub(lambda m: real.get(m.group(1), "1"), path)
            for body in RAW_BODIES:
                response = client.generic(method.upper(), url, body, content_type="application/json")
                assert_answer_is_sound(response, f"{method.upper()} {url} body={body[:80]!r}", seen)
    assert time.monotonic() - started < BUDGET_SECONDS
    # The hostile input reached the checks it was meant for, not only the router.
    for answer in ("400 malformed_request", "413 body_too_large", "404 game_not_found", "422 unknown_field"):
        assert seen[answer] > 0, (answer, dict(seen))
    assert sum(n for key, n in seen.items() if key.startswith("2")) > 0, seen

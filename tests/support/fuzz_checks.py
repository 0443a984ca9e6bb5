"""What the API fuzzer (tests/support/fuzz.py) checks and counts: the checks by
name (schemathesis's and our own), the problem+json check, and the tally of a
run with its report."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

EXAMPLES_KEPT = 3

SCHEMATHESIS_CHECKS = (
    "not_a_server_error",
    "status_code_conformance",
    "content_type_conformance",
    "response_headers_conformance",
    "response_schema_conformance",
    "negative_data_rejection",
    "positive_data_acceptance",
)
OWN_CHECKS = ("problem_json", "refusal_changed_game")
ALL_CHECKS = SCHEMATHESIS_CHECKS + OWN_CHECKS


@dataclass
class Tally:
    cases: int = 0
    statuses: Counter[str] = field(default_factory=Counter)
    failures: Counter[str] = field(default_factory=Counter)
    signatures: Counter[str] = field(default_factory=Counter)
    """Failures by check, operation, status and problem code."""
    examples: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    server_errors: list[dict[str, Any]] = field(default_factory=list)
    actions_played: int = 0
    games_replaced: int = 0
    generation_errors: list[str] = field(default_factory=list)
    invariant_errors: list[str] = field(default_factory=list)
    seconds: float = 0.0


def excerpt(value: Any, limit: int = 400) -> str:
    if isinstance(value, bytes):
        value = value.decode("utf-8", errors="replace")
    text = str(value)
    return text if len(text) <= limit else text[:limit] + f"… ({len(text)} characters)"


def problem_code(response: Any) -> str:
    try:
        body = json.loads(response.content)
    except ValueError:
        return ""
    return str(body.get("code", "")) if isinstance(body, dict) else ""


def problem_json_error(response: Any) -> str | None:
    """Why a 4xx response is not a proper problem, or None."""
    if not 400 <= response.status_code < 500:
        return None
    content_type = ", ".join(response.headers.get("content-type", []))
    if content_type.split(";")[0].strip() != "application/problem+json":
        return f"Content-Type is {content_type!r}, not application/problem+json"
    try:
        body = json.loads(response.content)
    except ValueError:
        return "the body is not JSON"
    if not isinstance(body, dict):
        return "the body is not a JSON object"
    if body.get("status") != response.status_code:
        return f"'status' is {body.get('status')!r}, the response's is {response.status_code}"
    for key in ("type", "title", "code", "detail"):
        if not isinstance(body.get(key), str) or not body[key]:
            return f"'{key}' is missing or not text"
    return None


def report(tally: Tally, title: str) -> str:
    """The figures, the failures with their first examples, and the server errors with tracebacks."""
    lines = [
        title,
        f"  cases run: {tally.cases} in {tally.seconds:.1f} s ({tally.cases / max(tally.seconds, 1e-9):.0f}/s)",
        f"  actions accepted: {tally.actions_played}; games replaced: {tally.games_replaced}",
        f"  server errors (5xx): {len(tally.server_errors)}",
        "  failures by check:",
        *(f"    {name:30} {tally.failures.get(name, 0)}" for name in ALL_CHECKS),
    ]
    if tally.signatures:
        lines.append("  failures:")
        lines += [f"    {count:6}  {key}" for key, count in sorted(tally.signatures.items())]
    lines.append("  statuses:")
    lines += [f"    {count:6}  {key}" for key, count in sorted(tally.statuses.items())]
    for signature, examples in tally.examples.items():
        lines.append(f"\n  {signature}:")
        lines += ["    " + json.dumps(example, ensure_ascii=False) for example in examples]
    for error in tally.server_errors[:EXAMPLES_KEPT]:
        lines.append("\n  server error: " + json.dumps({k: v for k, v in error.items() if k != "traceback"}))
        lines.append("    " + error["traceback"].replace("\n", "\n    "))
    lines += [f"  generation error: {line}" for line in tally.generation_errors]
    lines += [f"  broken log: {line}" for line in tally.invariant_errors]
    return "\n".join(lines)

"""Fuzz the HTTP API with schemathesis, from its own OpenAPI schema (/api/v1/schema/).

Every operation of the schema is fuzzed twice: with the API token of a seated
player of an active game, and with the token of a stranger who plays in no
game. For each operation, identity and generation mode (positive: data the
schema allows; negative: data it forbids) Hypothesis draws ``--examples`` cases
(``--action-examples``, three times as many by default, for ``POST …/actions``).

Path parameters are not left to chance alone. Each case first draws a *plan*:
``game_id`` names a real game (active; lobby with an open seat; lobby with every
seat taken, which its creator may start; finished) or is left to the fuzzer;
``n`` is the first or the latest event or the fuzzer's; ``token_id`` is a spare
token of the caller's, a token of someone else's or the fuzzer's. In positive
mode a plan may also replace the body of ``POST …/actions`` with one of the
caller's legal actions (as JSON, or in notation) made against the current
version (in the body or in If-Match), and the body of ``POST /games`` with a
valid game; so actions are really played and games really made. The opponent
answers in between, and a game that left its state (finished, joined,
started) is replaced by a fresh one, so play goes on for the whole run.

Every response goes through these checks:

* ``not_a_server_error`` (schemathesis): no 5xx.
* ``status_code_conformance`` (schemathesis): the status is documented for the operation.
* ``content_type_conformance`` (schemathesis): a documented body has its media
  type. The schema gives problem responses no content, so this checks the 2xx
  bodies only; ``problem_json`` covers the errors.
* ``response_schema_conformance`` and ``response_headers_conformance`` (schemathesis).
* ``negative_data_rejection`` (schemathesis): data that breaks the schema is refused with a 4xx.
* ``positive_data_acceptance`` (schemathesis): data the schema allows is not
  refused as malformed. 403, 404, 409, 412, 422, 428 and 429 depend on the
  game's state and on who asks, which a schema cannot express: those are
  accepted answers to well-formed data; a 400, 413 or 415 is not.
* ``problem_json`` (ours): every 4xx is ``application/problem+json`` with
  ``type``, ``title``, ``status`` (the response's), ``code`` and ``detail``.
* ``refusal_changed_game`` (ours): a refused request (4xx), and any GET, left
  the game it named as it was: same version, events, status and seats.

The schema is known to be looser than the API in places (``KNOWN_GAPS``, each
explained there): a failure that matches a known gap exactly (check, operation,
status and problem code) is counted apart as a known gap, so that anything new
fails. At the end every game's log is checked: as many events as its version,
and folding them gives that version.

Runs in-process through Django's WSGI application (the default; the traceback
of any exception is kept) or against a gunicorn server (``--server gunicorn``;
tracebacks are read from its log), on a fresh PostgreSQL database (``fuzz_api``
on 127.0.0.1 by default; the name must start with ``fuzz_`` because it is
dropped) with VAR_DIR in a temporary directory (so queued tasks and files stay
out of the repository's var/). API throttles are raised for the run
(THROTTLE_USER, THROTTLE_GAME_CREATE, THROTTLE_TOKEN_CREATE = 1000000/minute,
unless set), or most of the run would be answered 429.

    PYTHONPATH=. .venv/bin/python benchmarks/fuzz_api.py                  # 3,840 cases, in-process
    PYTHONPATH=. .venv/bin/python benchmarks/fuzz_api.py --server gunicorn
    PYTHONPATH=. .venv/bin/python benchmarks/fuzz_api.py --examples 10 --json

The exit status is 1 if a check failed outside the known gaps, 0 otherwise.
tests/reliability/test_fuzz_api.py runs the same harness briefly in the test suite.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

if TYPE_CHECKING:
    from accounts.models import User
    from games.models import Game

DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/fuzz_api"
DATABASE_MARKER = "fuzz_"  # the database is dropped: its name must contain this
SCHEMA_PATH = "/api/v1/schema/"
PLAYER, STRANGER = "player", "stranger"
IDENTITIES = (PLAYER, STRANGER)
FUZZED = "fuzzed"
ACTIONS = "POST /api/v1/games/{game_id}/actions"
GAME_KINDS = ("active", "lobby", "ready", "finished")
GAME_CHOICES = ("active", "active", "active", "lobby", "ready", "finished", FUZZED)  # the active game thrice as often
EXAMPLES_KEPT = 3
RAISED_THROTTLES = {
    "THROTTLE_USER": "1000000/minute",
    "THROTTLE_GAME_CREATE": "1000000/minute",
    "THROTTLE_TOKEN_CREATE": "1000000/minute",
}

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
SCHEMATHESIS_CONFIG: dict[str, Any] = {
    "checks": {
        # Well-formed data may still be refused because of the game's state or the caller.
        "positive_data_acceptance": {
            "expected-statuses": ["2xx", "3xx", "401", "403", "404", "409", "412", "422", "428", "429"]
        },
    },
}

# Where the schema is looser than the API: (check, operation, status, problem
# code) -> why. The API's answer is right in each; the schema should say so
# (docs/reliability.md lists the schema changes). Matching failures are
# counted as known gaps, not failures.
KNOWN_GAPS: dict[tuple[str, str, int, str], str] = {}
# For the gaps of code "invalid": the only fields whose errors the gap explains.
GAP_FIELDS: dict[tuple[str, str, int, str], set[str]] = {}


def is_known_gap(key: tuple[str, str, int, str], response: Any) -> bool:
    if key not in KNOWN_GAPS:
        return False
    fields = GAP_FIELDS.get(key)
    if fields is None:
        return True
    try:
        errors = json.loads(response.content).get("errors")
    except (ValueError, AttributeError):
        return False
    return isinstance(errors, dict) and set(errors) <= fields


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def _respond(result: Any) -> tuple[int, dict[str, Any]]:
    return 200, {}


# --- the world the fuzzer plays in ---------------------------------------------------------------


@dataclass
class World:
    """Users, tokens and games the cases point at."""

    users: dict[str, User]
    opponent: User
    tokens: dict[str, str]
    """Raw bearer token of each identity."""
    token_pks: dict[str, int]
    spare_tokens: dict[str, int]
    """A second token of each identity, for DELETE /tokens/{token_id}."""
    games: dict[str, Game] = field(default_factory=dict)
    replaced: int = 0
    rng: random.Random = field(default_factory=lambda: random.Random(0))

    def make(self, kind: str) -> Game:
        from games import services
        from games.engine import Resign

        player = self.users[PLAYER]
        if kind == "active":
            return start_two_player_game(player, self.opponent)
        if kind == "finished":
            game = start_two_player_game(player, self.opponent)
            services.submit_action(
                game_id=game.public_id,
                user=self.opponent,
                action=Resign(),
                expected_version=game.version,
                respond=_respond,
            )
            game.refresh_from_db()
            return game
        open_seat = "open" if kind == "lobby" else "invite"
        game = services.create_game(
            creator=player,
            options={"players": 2},
            seats=[services.SeatSpec("me"), services.SeatSpec(open_seat, email=self.opponent.email)],
        )
        if kind == "ready":
            services.join_game(game=game, user=self.opponent)
        return game

    def in_its_state(self, kind: str, game: Game) -> bool:
        from games.models import Game

        if kind in ("active", "finished"):
            return game.status == kind
        if game.status != Game.Status.LOBBY:
            return False
        filled = [seat.is_filled for seat in game.seats.all()]
        return all(filled) if kind == "ready" else not all(filled)

    def refresh(self) -> None:
        """Let the opponent move, and replace any game that left its state (finished, started, joined)."""
        self.let_the_opponent_move()
        for kind in GAME_KINDS:
            game = self.games.get(kind)
            if game is not None:
                game.refresh_from_db()
                if self.in_its_state(kind, game):
                    continue
                self.replaced += 1
            self.games[kind] = self.make(kind)
        self.let_the_opponent_move()

    def let_the_opponent_move(self) -> None:
        """While it is the opponent's turn in the active game, they make a random legal move (never resign)."""
        from games import engine, services
        from games.models import Game

        game = self.games.get("active")
        for _ in range(10):
            if game is None:
                return
            game.refresh_from_db()
            if game.status != Game.Status.ACTIVE or game.to_act_seat is None:
                return
            seat = game.seats.get(index=game.to_act_seat)
            if seat.user_id != self.opponent.pk:
                return
            state = services.load_state(game)
            assert state is not None
            choices = engine.enumerate_actions(engine.player_view(state, seat.index))
            moves = [a for a in choices if not isinstance(a, engine.Resign)] or choices
            services.submit_action(
                game_id=game.public_id,
                user=self.opponent,
                action=self.rng.choice(moves),
                expected_version=game.version,
                respond=_respond,
            )


def start_two_player_game(first: User, second: User) -> Game:
    from games import services

    game = services.create_game(
        creator=first,
        options={"players": 2, "start_player": 0},
        seats=[services.SeatSpec("me"), services.SeatSpec("invite", email=second.email)],
    )
    services.join_game(game=game, user=second)
    return services.start_game(game=game, user=first)


def build_world(prefix: str = "fuzz") -> World:
    """The player, the opponent and the stranger, the identities' tokens, and a game of each kind."""
    from accounts.models import User
    from accounts.services import create_api_token

    users = {
        PLAYER: User.objects.create_user(email=f"{prefix}-player@example.com"),
        STRANGER: User.objects.create_user(email=f"{prefix}-stranger@example.com"),
    }
    opponent = User.objects.create_user(email=f"{prefix}-opponent@example.com")
    tokens, token_pks, spare = {}, {}, {}
    for name, user in users.items():
        new = create_api_token(user=user, name="fuzzing")
        tokens[name], token_pks[name] = new.raw, new.token.pk
        spare[name] = create_api_token(user=user, name="spare").token.pk
    world = World(users=users, opponent=opponent, tokens=tokens, token_pks=token_pks, spare_tokens=spare)
    world.refresh()
    return world


# Valid bodies for POST /games (the fuzzer alone rarely meets the rules across fields).
GAME_BODIES: list[dict[str, Any]] = [
    {"seats": [{"kind": "me"}, {"kind": "open"}]},
    {"options": {"players": 3, "six_rounds": True}, "seats": [{"kind": "me"}, {"kind": "open"}, {"kind": "open"}]},
    {"seats": [{"kind": "open"}, {"kind": "bot", "bot": "greedy"}]},
    {
        "options": {"players": 4, "sides": ["N", "E", "S", "W"], "start_player": 3, "copies_per_position": 2},
        "seats": [
            {"kind": "me"},
            {"kind": "invite", "email": "someone@example.com"},
            {"kind": "bot", "bot": "random"},
            {"kind": "open"},
        ],
    },
]


# --- what a case does ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Plan:
    """Where a case points, drawn before the case itself."""

    game: str | None = None
    n: str | None = None
    token: str | None = None
    legal: int | None = None
    """Which of the caller's legal actions to send (modulo their number), if any."""
    form: str = "json"
    body: int | None = None
    """Which of GAME_BODIES to send, if any."""

    def describe(self) -> str:
        parts = [f"{k}={v}" for k, v in (("game", self.game), ("n", self.n), ("token", self.token)) if v]
        if self.legal is not None:
            parts.append(f"legal action as {self.form}")
        if self.body is not None:
            parts.append(f"valid game body {self.body}")
        return ", ".join(parts)


@dataclass
class Tally:
    cases: int = 0
    by_operation: Counter[str] = field(default_factory=Counter)
    statuses: Counter[str] = field(default_factory=Counter)
    failures: Counter[str] = field(default_factory=Counter)
    signatures: Counter[str] = field(default_factory=Counter)
    """Failures by check, operation, status and problem code."""
    examples: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    known_gaps: Counter[str] = field(default_factory=Counter)
    gap_examples: dict[str, dict[str, Any]] = field(default_factory=dict)
    """The first case behind each known gap, to see that it is what KNOWN_GAPS says."""
    server_errors: list[dict[str, Any]] = field(default_factory=list)
    actions_played: int = 0
    games_replaced: int = 0
    generation_errors: list[str] = field(default_factory=list)
    invariant_errors: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def failed(self) -> bool:
        return bool(
            sum(self.failures.values()) or self.server_errors or self.invariant_errors or self.generation_errors
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "cases": self.cases,
            "seconds": round(self.seconds, 1),
            "actions_played": self.actions_played,
            "games_replaced": self.games_replaced,
            "server_errors": len(self.server_errors),
            "failures_by_check": {name: self.failures.get(name, 0) for name in ALL_CHECKS},
            "failures": dict(sorted(self.signatures.items())),
            "known_gaps": dict(sorted(self.known_gaps.items())),
            "gap_examples": self.gap_examples,
            "statuses": dict(sorted(self.statuses.items())),
            "by_operation": dict(sorted(self.by_operation.items())),
            "examples": self.examples,
            "server_error_details": self.server_errors,
            "generation_errors": self.generation_errors,
            "invariant_errors": self.invariant_errors,
        }


def _excerpt(value: Any, limit: int = 400) -> str:
    if isinstance(value, bytes):
        value = value.decode("utf-8", errors="replace")
    text = str(value)
    return text if len(text) <= limit else text[:limit] + f"… ({len(text)} characters)"


def _problem_code(response: Any) -> str:
    try:
        body = json.loads(response.content)
    except ValueError:
        return ""
    return str(body.get("code", "")) if isinstance(body, dict) else ""


def _game_snapshot(game_pk: int) -> tuple[Any, ...]:
    from games.models import Game, GameEvent

    game = Game.objects.get(pk=game_pk)
    seats = tuple(game.seats.order_by("index").values_list("user_id", "invited_email"))
    return game.version, GameEvent.objects.filter(game_id=game_pk).count(), game.status, seats


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


class Fuzzer:
    """Draws cases with schemathesis + Hypothesis, sends them, checks the answers."""

    def __init__(
        self,
        schema: Any,
        world: World,
        *,
        app: Any = None,
        base_url: str | None = None,
        server_log: Callable[[], str] | None = None,
        seed: int = 0,
    ) -> None:
        import schemathesis.checks

        self.schema = schema
        self.world = world
        self.app = app
        self.base_url = base_url
        self.server_log = server_log
        self.tally = Tally()
        self.seed = seed
        schemathesis.checks.load_all_checks()
        self.checks = {name: getattr(schemathesis.checks, name) for name in SCHEMATHESIS_CHECKS}
        self.exception: str | None = None
        """The traceback of the exception the last request raised in-process, if any."""

    # -- drawing ---------------------------------------------------------------------------

    def operations(self) -> list[Any]:
        return sorted((result.ok() for result in self.schema.get_all_operations()), key=lambda op: op.label)

    def strategy(self, operation: Any, identity: str, mode: Any) -> Any:
        """(plan, case) pairs. The plan's choices are fixed lists, so what is drawn
        never depends on the database; the values it names are read when drawn."""
        from hypothesis import strategies as st

        names = {p.name for p in operation.path_parameters}
        label = operation.label
        positive = mode.is_positive
        plans = st.builds(
            Plan,
            game=st.sampled_from(GAME_CHOICES) if "game_id" in names else st.none(),
            n=st.sampled_from(["first", "latest", FUZZED]) if "n" in names else st.none(),
            token=st.sampled_from(["spare", "foreign", FUZZED]) if "token_id" in names else st.none(),
            legal=st.none() | st.integers(0, 10_000) if positive and label.endswith("/actions") else st.none(),
            form=st.sampled_from(["json", "notation", "if-match"]),
            body=st.none() | st.integers(0, len(GAME_BODIES) - 1)
            if positive and label == "POST /api/v1/games"
            else st.none(),
        )

        def for_plan(plan: Plan) -> Any:
            return st.tuples(st.just(plan), self._case_strategy(operation, identity, mode, plan))

        return plans.flatmap(for_plan)

    def _case_strategy(self, operation: Any, identity: str, mode: Any, plan: Plan) -> Any:
        fixed: dict[str, Any] = {}
        if plan.game in GAME_KINDS:
            game = self.world.games[plan.game]
            fixed["game_id"] = str(game.public_id)
            if plan.n == "first":
                fixed["n"] = 1
            elif plan.n == "latest":
                fixed["n"] = max(game.version, 1)
        if plan.token == "spare":
            fixed["token_id"] = self.world.spare_tokens[identity]
        elif plan.token == "foreign":
            other = STRANGER if identity == PLAYER else PLAYER
            fixed["token_id"] = self.world.spare_tokens[other]
        kwargs: dict[str, Any] = {"path_parameters": fixed} if fixed else {}
        if plan.body is not None:
            kwargs["body"] = GAME_BODIES[plan.body]
        return operation.as_strategy(mode, **kwargs)

    def _legal_body(self, identity: str, plan: Plan, case: Any) -> None:
        """Replace the generated body with one of the caller's legal actions, if they have one."""
        from games import engine, services

        if plan.legal is None or plan.game not in GAME_KINDS:
            return
        game = self.world.games[plan.game]
        seat = services.seat_of(game, self.world.users[identity])
        state = services.load_state(game)
        if seat is None or state is None:
            return
        view = engine.player_view(state, seat.index)
        actions = [a for a in engine.enumerate_actions(view) if not isinstance(a, engine.Resign)]
        if not actions:
            return
        action = actions[plan.legal % len(actions)]
        sent = engine.format_action(action) if plan.form == "notation" else engine.action_to_json(action)
        if case.headers is None:
            case.headers = {}
        if plan.form == "if-match":
            case.body = {"action": sent}
            case.headers["If-Match"] = f'"{game.version}"'
        else:
            case.body = {"action": sent, "expected_version": game.version}
            case.headers.pop("If-Match", None)  # a generated If-Match would win over the body's version

    # -- running ---------------------------------------------------------------------------

    def run(
        self,
        *,
        identities: tuple[str, ...] = IDENTITIES,
        modes: tuple[str, ...] = ("positive", "negative"),
        examples: int = 25,
        more_examples: dict[str, int] | None = None,
        derandomize: bool = False,
        progress: bool = False,
    ) -> Tally:
        """Fuzz every operation as each identity in each mode; ``more_examples``
        gives some operations (by label) another number of examples."""
        started = time.perf_counter()
        for identity in identities:
            for operation in self.operations():
                for mode_name in modes:
                    before = self.tally.cases
                    count = (more_examples or {}).get(operation.label, examples)
                    try:
                        self._fuzz(operation, identity, mode_name, examples=count, derandomize=derandomize)
                    except Exception as error:
                        self.tally.generation_errors.append(
                            f"{identity} {operation.label} {mode_name}: {type(error).__name__}: {_excerpt(error, 300)}"
                        )
                    if progress:
                        log(f"  {identity:8} {mode_name:8} {operation.label}: {self.tally.cases - before} cases")
        self.check_logs()
        self.tally.games_replaced = self.world.replaced
        self.tally.seconds = time.perf_counter() - started
        return self.tally

    def _fuzz(self, operation: Any, identity: str, mode_name: str, *, examples: int, derandomize: bool) -> None:
        from hypothesis import HealthCheck, Phase, Verbosity, given, settings
        from hypothesis import seed as hypothesis_seed
        from schemathesis import GenerationMode

        @settings(
            max_examples=examples,
            derandomize=derandomize,
            database=None,
            deadline=None,
            phases=[Phase.explicit, Phase.generate],
            suppress_health_check=list(HealthCheck),
            verbosity=Verbosity.quiet,
            report_multiple_bugs=False,
        )
        @given(drawn=self.strategy(operation, identity, GenerationMode(mode_name)))
        def fuzz(drawn: tuple[Plan, Any]) -> None:
            plan, case = drawn
            self.execute(identity, mode_name, plan, case)

        if not derandomize:
            fuzz = hypothesis_seed(self.seed)(fuzz)
        fuzz()

    def _send(self, identity: str, case: Any) -> tuple[Any, dict[str, Any]]:
        headers = {"Authorization": f"Bearer {self.world.tokens[identity]}"}
        self.exception = None
        if self.app is not None:
            return case.call(headers=headers, app=self.app), {"app": self.app}
        return case.call(base_url=self.base_url, headers=headers, timeout=30), {"base_url": self.base_url}

    def execute(self, identity: str, mode: str, plan: Plan, case: Any) -> None:
        label = case.operation.label
        self._legal_body(identity, plan, case)
        game = self.world.games.get(plan.game or "")
        before = _game_snapshot(game.pk) if game is not None else None
        response, transport_kwargs = self._send(identity, case)
        self.tally.cases += 1
        self.tally.by_operation[f"{identity} {mode} {label}"] += 1
        context = {"identity": identity, "mode": mode, "plan": plan.describe(), "operation": label}
        code = _problem_code(response)
        self.tally.statuses[f"{label} -> {response.status_code} {code}".rstrip()] += 1

        if response.status_code >= 500:
            trace = self.exception or (self.server_log() if self.server_log else "")
            self.tally.server_errors.append({**context, **self._describe(response), "traceback": trace[-4000:]})
        for name, check in self.checks.items():
            message = self._run_check(case, response, check, transport_kwargs)
            if message is not None:
                self._fail(name, label, code, context, response, message)
        problem = problem_json_error(response)
        if problem:
            self._fail("problem_json", label, code, context, response, problem)
        if game is not None and before is not None:
            after = _game_snapshot(game.pk)
            refused = 400 <= response.status_code < 500 or case.method.upper() == "GET"
            if refused and after != before:
                message = f"game {plan.game}: {before} -> {after}"
                self._fail("refusal_changed_game", label, code, context, response, message)
            elif after[0] > before[0] and label.endswith("/actions"):
                self.tally.actions_played += 1
        self.after_case(label, response.status_code)

    def _run_check(self, case: Any, response: Any, check: Any, transport_kwargs: dict[str, Any]) -> str | None:
        from schemathesis.core.failures import Failure, FailureGroup

        try:
            case.validate_response(response, checks=[check], transport_kwargs=transport_kwargs)
        except FailureGroup as group:
            return "; ".join(f"{f.title}: {f.message}" for f in group.exceptions)
        except Failure as failure:
            return f"{failure.title}: {failure.message}"
        except Exception as error:
            return f"{type(error).__name__}: {error}"
        return None

    def _describe(self, response: Any) -> dict[str, Any]:
        request = response.request
        headers = {k: v for k, v in request.headers.items() if k.lower() not in ("authorization", "user-agent")}
        return {
            "request": f"{request.method} {request.url}",
            "request_headers": _excerpt(headers, 300),
            "request_body": _excerpt(request.body or "", 300),
            "status": response.status_code,
            "content_type": ", ".join(response.headers.get("content-type", [])),
            "response_body": _excerpt(response.content, 300),
        }

    def _fail(self, name: str, label: str, code: str, context: dict[str, Any], response: Any, message: str) -> None:
        signature = f"{name}: {label} -> {response.status_code} {code}".rstrip()
        if is_known_gap((name, label, response.status_code, code), response):
            self.tally.known_gaps[signature] += 1
            self.tally.gap_examples.setdefault(signature, {**context, **self._describe(response)})
            return
        self.tally.failures[name] += 1
        self.tally.signatures[signature] += 1
        kept = self.tally.examples.setdefault(signature, [])
        if len(kept) < EXAMPLES_KEPT:
            kept.append({**context, **self._describe(response), "message": _excerpt(message, 600)})

    # -- keeping the world playable ----------------------------------------------------------

    def after_case(self, label: str, status: int) -> None:
        """After a write the API accepted: undo the fuzzer's revocation of its own
        token, let the opponent move, and replace games that left their state."""
        from accounts.models import ApiToken

        if label.startswith("GET ") or not 200 <= status < 300:
            return
        ApiToken.objects.filter(pk__in=self.world.token_pks.values(), revoked__isnull=False).update(revoked=None)
        self.world.refresh()

    def check_logs(self) -> None:
        """Every game's log is whole: as many events as its version, folding to it."""
        from games import services
        from games.models import Game, GameEvent

        for game in Game.objects.all():
            count = GameEvent.objects.filter(game=game).count()
            if count != game.version:
                self.tally.invariant_errors.append(f"game {game.public_id}: {count} events, version {game.version}")
                continue
            state = services.load_state(game)
            if state is not None and state.seq != game.version:
                self.tally.invariant_errors.append(f"game {game.public_id}: folds to {state.seq}, not {game.version}")


# --- in-process WSGI -------------------------------------------------------------------------------


@contextlib.contextmanager
def capture_exceptions(fuzzer: Callable[[], Fuzzer | None]) -> Iterator[None]:
    """Keep the traceback of any exception a view raises (Django answers it with a 500)."""
    from django.core.signals import got_request_exception

    def keep(sender: Any, request: Any = None, **kwargs: Any) -> None:
        current = fuzzer()
        if current is not None:
            current.exception = traceback.format_exc()

    got_request_exception.connect(keep, dispatch_uid="fuzz_api.capture")
    try:
        yield
    finally:
        got_request_exception.disconnect(dispatch_uid="fuzz_api.capture")


@contextlib.contextmanager
def keep_connections() -> Iterator[None]:
    """As Django's test client does: requests do not close the database
    connection (inside a test's transaction, closing it would end the test)."""
    from django.core.signals import request_finished, request_started
    from django.db import close_old_connections

    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        yield
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)


def wsgi_schema(app: Any) -> Any:
    import schemathesis

    config = schemathesis.Config.from_dict(SCHEMATHESIS_CONFIG)
    return schemathesis.openapi.from_wsgi(SCHEMA_PATH, app, config=config)


def url_schema(base_url: str) -> Any:
    import schemathesis

    config = schemathesis.Config.from_dict(SCHEMATHESIS_CONFIG)
    return schemathesis.openapi.from_url(base_url + SCHEMA_PATH, config=config)


# --- the command line ----------------------------------------------------------------------------


@contextlib.contextmanager
def gunicorn(env: dict[str, str], workers: int, log_file: Path) -> Iterator[str]:
    import requests

    from tests.reliability.faultkit import free_port

    port = free_port()
    command = [sys.executable, "-m", "gunicorn", "manhattan_site.wsgi", "-b", f"127.0.0.1:{port}"]
    command += ["-w", str(workers), "--timeout", "60"]
    with log_file.open("w") as sink:
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=sink, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if requests.get(base + SCHEMA_PATH, timeout=10).status_code == 200:
                    break
            except requests.RequestException:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"gunicorn did not start:\n{log_file.read_text()[-2000:]}")
            time.sleep(0.2)
        yield base
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def report(tally: Tally, title: str) -> str:
    """The figures, the failures with their first examples, and the server errors with tracebacks."""
    lines = [
        title,
        f"  cases run: {tally.cases} in {tally.seconds:.1f} s ({tally.cases / max(tally.seconds, 1e-9):.0f}/s)",
        f"  actions accepted: {tally.actions_played}; games replaced: {tally.games_replaced}",
        f"  server errors (5xx): {len(tally.server_errors)}",
        "  failures by check (known gaps apart):",
        *(f"    {name:30} {tally.failures.get(name, 0)}" for name in ALL_CHECKS),
    ]
    if tally.signatures:
        lines.append("  failures:")
        lines += [f"    {count:6}  {key}" for key, count in sorted(tally.signatures.items())]
    lines.append("  known schema gaps (and the answer to the first case of each):")
    for key, count in sorted(tally.known_gaps.items()):
        lines.append(f"    {count:6}  {key}")
        example = tally.gap_examples.get(key)
        if example:
            lines.append(f"            e.g. {example['request_body'][:120]!r} -> {example['response_body'][:200]}")
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--server", choices=["wsgi", "gunicorn"], default="wsgi", help="in-process WSGI or gunicorn")
    parser.add_argument(
        "--database-url", default=DEFAULT_DATABASE_URL, help="a PostgreSQL database whose name contains fuzz_ (dropped)"
    )
    parser.add_argument("--examples", type=int, default=60, help="cases per operation, identity and mode")
    parser.add_argument(
        "--action-examples", type=int, help="cases for POST …/actions per identity and mode (3 × --examples)"
    )
    parser.add_argument("--seed", type=int, default=1, help="Hypothesis seed")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers")
    parser.add_argument("--identity", choices=[*IDENTITIES, "both"], default="both")
    parser.add_argument("--keep-database", action="store_true", help="do not drop the database at the end")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    args = parser.parse_args(argv)

    from tests.reliability.faultkit import drop_database, recreate_database

    recreate_database(args.database_url, marker=DATABASE_MARKER)
    var_dir = tempfile.TemporaryDirectory(prefix="fuzz-api-var-")
    env = dict(os.environ, DATABASE_URL=args.database_url, DJANGO_SETTINGS_MODULE="manhattan_site.settings")
    env.update(VAR_DIR=var_dir.name, DJANGO_ENV="development", DEBUG="false", LOG_LEVEL="WARNING")
    env.pop("REDIS_URL", None)  # no worker: tasks are queued in VAR_DIR and thrown away with it
    for name, value in RAISED_THROTTLES.items():
        env.setdefault(name, value)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    os.environ.update(env)
    try:
        import django

        django.setup()
        from django.core.management import call_command

        call_command("migrate", verbosity=0)
        world = build_world()
        identities = IDENTITIES if args.identity == "both" else (args.identity,)
        more = {ACTIONS: args.action_examples or 3 * args.examples}
        if args.server == "wsgi":
            from django.core.handlers.wsgi import WSGIHandler

            app = WSGIHandler()
            current: list[Fuzzer] = []
            with capture_exceptions(lambda: current[0] if current else None):
                fuzzer = Fuzzer(wsgi_schema(app), world, app=app, seed=args.seed)
                current.append(fuzzer)
                tally = fuzzer.run(identities=identities, examples=args.examples, more_examples=more, progress=True)
        else:
            log_file = Path(var_dir.name) / "gunicorn.log"
            with gunicorn(env, args.workers, log_file) as base:

                def server_log() -> str:
                    text = log_file.read_text(errors="replace")
                    index = text.rfind("Traceback (most recent call last)")
                    return text[index:] if index >= 0 else ""

                fuzzer = Fuzzer(url_schema(base), world, base_url=base, server_log=server_log, seed=args.seed)
                tally = fuzzer.run(identities=identities, examples=args.examples, more_examples=more, progress=True)
        if args.json:
            print(json.dumps(tally.as_dict(), indent=2, default=str))
        else:
            title = (
                f"API fuzzing ({args.server}, seed {args.seed}, {args.examples} examples per operation, identity and"
                f" mode, {more[ACTIONS]} for actions)"
            )
            print(report(tally, title))
        return 1 if tally.failed else 0
    finally:
        from django.db import connections

        connections.close_all()
        if not args.keep_database:
            drop_database(args.database_url, marker=DATABASE_MARKER)
        var_dir.cleanup()


if __name__ == "__main__":
    sys.exit(main())

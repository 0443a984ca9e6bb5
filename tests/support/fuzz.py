"""The API fuzzer behind tests/reliability/test_fuzz_api.py: schemathesis draws requests
from the API's own OpenAPI schema (/api/v1/schema/) and sends them in-process through
Django's WSGI application, with the API token of a seated player of an active game or of
a stranger who plays in no game.

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
* ``content_type_conformance`` (schemathesis): a documented body has its media type.
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

At the end every game's log is checked: as many events as its version, and
folding them gives that version. The long run is the same test with more examples
(``FUZZ_EXAMPLES``, docs/reliability.md).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from tests.support.fuzz_checks import (
    EXAMPLES_KEPT,
    SCHEMATHESIS_CHECKS,
    Tally,
    excerpt,
    problem_code,
    problem_json_error,
)
from tests.support.fuzz_world import GAME_BODIES, GAME_KINDS, IDENTITIES, PLAYER, STRANGER, World

SCHEMA_PATH = "/api/v1/schema/"
FUZZED = "fuzzed"
ACTIONS = "POST /api/v1/games/{game_id}/actions"
GAME_CHOICES = ("active", "active", "active", "lobby", "ready", "finished", FUZZED)  # the active game thrice as often
SCHEMATHESIS_CONFIG: dict[str, Any] = {
    # NUL is refused in every string, as a whole body (400 malformed_request, docs/api.md),
    # which the schema cannot say: drawn into "valid" data, it made a valid case of an
    # invalid one (POST /webhooks, description "a\x00"). tests/reliability/test_hostile_input.py sends it.
    "generation": {"allow-x00": False},
    "checks": {
        # Well-formed data may still be refused because of the game's state or the caller.
        "positive_data_acceptance": {
            "expected-statuses": ["2xx", "3xx", "401", "403", "404", "409", "412", "422", "428", "429"]
        },
    },
}


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


def _game_snapshot(game_pk: int) -> tuple[Any, ...]:
    from games.models import Game, GameEvent

    game = Game.objects.get(pk=game_pk)
    seats = tuple(game.seats.order_by("index").values_list("user_id", "invited_email"))
    return game.version, GameEvent.objects.filter(game_id=game_pk).count(), game.status, seats


class Fuzzer:
    """Draws cases with schemathesis + Hypothesis, sends them, checks the answers."""

    def __init__(
        self,
        schema: Any,
        world: World,
        *,
        app: Any,
    ) -> None:
        import schemathesis.checks

        self.schema = schema
        self.world = world
        self.app = app
        self.tally = Tally()
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
        from games import engine, store

        if plan.legal is None or plan.game not in GAME_KINDS:
            return
        game = self.world.games[plan.game]
        loaded = store.load(game.public_id)
        seat = loaded.seat_of(self.world.users[identity])
        state = loaded.state
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
        seed: int | None = None,
    ) -> Tally:
        """Fuzz every operation as each identity in each mode; ``more_examples``
        gives some operations (by label) another number of examples."""
        from hypothesis.errors import Unsatisfiable

        started = time.perf_counter()
        for identity in identities:
            for operation in self.operations():
                for mode_name in modes:
                    count = (more_examples or {}).get(operation.label, examples)
                    try:
                        self._fuzz(operation, identity, mode_name, examples=count, seed=seed)
                    except Exception as error:
                        if isinstance(error, Unsatisfiable) and mode_name == "negative":
                            continue  # an operation that takes nothing (the API index) has no input to break
                        self.tally.generation_errors.append(
                            f"{identity} {operation.label} {mode_name}: {type(error).__name__}: {excerpt(error, 300)}"
                        )
        self.check_logs()
        self.tally.games_replaced = self.world.replaced
        self.tally.seconds = time.perf_counter() - started
        return self.tally

    def _fuzz(self, operation: Any, identity: str, mode_name: str, *, examples: int, seed: int | None) -> None:
        from hypothesis import HealthCheck, Phase, Verbosity, given, settings
        from hypothesis import seed as hypothesis_seed
        from schemathesis import GenerationMode

        @settings(
            max_examples=examples,
            derandomize=seed is None,
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

        if seed is not None:
            fuzz = hypothesis_seed(seed)(fuzz)
        fuzz()

    def _send(self, identity: str, case: Any) -> tuple[Any, dict[str, Any]]:
        headers = {"Authorization": f"Bearer {self.world.tokens[identity]}"}
        self.exception = None
        return case.call(headers=headers, app=self.app), {"app": self.app}

    def execute(self, identity: str, mode: str, plan: Plan, case: Any) -> None:
        label = case.operation.label
        self._legal_body(identity, plan, case)
        game = self.world.games.get(plan.game or "")
        before = _game_snapshot(game.pk) if game is not None else None
        response, transport_kwargs = self._send(identity, case)
        self.tally.cases += 1
        context = {"identity": identity, "mode": mode, "plan": plan.describe(), "operation": label}
        code = problem_code(response)
        self.tally.statuses[f"{label} -> {response.status_code} {code}".rstrip()] += 1

        if response.status_code >= 500:
            trace = self.exception or ""
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
            "request_headers": excerpt(headers, 300),
            "request_body": excerpt(request.body or "", 300),
            "status": response.status_code,
            "content_type": ", ".join(response.headers.get("content-type", [])),
            "response_body": excerpt(response.content, 300),
        }

    def _fail(self, name: str, label: str, code: str, context: dict[str, Any], response: Any, message: str) -> None:
        signature = f"{name}: {label} -> {response.status_code} {code}".rstrip()
        self.tally.failures[name] += 1
        self.tally.signatures[signature] += 1
        kept = self.tally.examples.setdefault(signature, [])
        if len(kept) < EXAMPLES_KEPT:
            kept.append({**context, **self._describe(response), "message": excerpt(message, 600)})

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
        from games import store
        from games.models import Game, GameEvent

        for game in Game.objects.all():
            count = GameEvent.objects.filter(game=game).count()
            if count != game.version:
                self.tally.invariant_errors.append(f"game {game.public_id}: {count} events, version {game.version}")
                continue
            state = store.state_of(game)
            if state is not None and state.seq != game.version:
                self.tally.invariant_errors.append(f"game {game.public_id}: folds to {state.seq}, not {game.version}")

"""The games API: translate HTTP to service calls and the engine's views back.

Nothing here decides a rule or touches a secret: services do the writes, the
engine's ``player_view``/``redact_events`` decide what a caller may see.
"""

from __future__ import annotations

import re
from typing import Any

from django.db.models import F, QuerySet
from django.utils.http import quote_etag
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import BaseThrottle
from rest_framework.views import APIView

from accounts.auth_helpers import request_user
from accounts.scopes import GAMES_PLAY, GAMES_READ
from accounts.throttles import ScopedRateThrottle
from games import engine, services, store
from games.engine import SIDE_NAMES, Action
from games.errors import GameError, StaleVersion
from games.models import Game
from games.services import open_games, play
from games.table import LoadedGame
from manhattan_site.strict_input import takes_no_body

from . import talk
from .answers import action_answer
from .bodies import EventsSerializer, LegalActionsSerializer, RecordSerializer, StateAtSerializer
from .events import visible_events
from .examples import ACTION_EXAMPLES, CREATE_EXAMPLES, LEGAL_ACTIONS_EXAMPLE
from .permissions import seen_game
from .serializers import (
    ActionRequestSerializer,
    ActionResultSerializer,
    CreateGameSerializer,
    GameSerializer,
    GameSummarySerializer,
    JoinSerializer,
)
from .strict import refuse_unknown_action_fields

# What a token needs (accounts/scopes.py): reading needs games:read; creating,
# joining, starting and moving need games:play.
READS = {"GET": GAMES_READ}
PLAYS = {"POST": GAMES_PLAY}

PROBLEM = OpenApiResponse(description="An RFC 9457 problem (application/problem+json) with a stable 'code'.")


def game_body(loaded: LoadedGame, request: Request) -> dict[str, Any]:
    """The caller's view of a game: the summary plus the board as their seat sees it."""
    return dict(GameSerializer(loaded.game, context=_context(loaded, request)).data)


def _context(loaded: LoadedGame, request: Request) -> dict[str, Any]:
    seat = loaded.seat_of(request_user(request))
    state = loaded.state
    view = engine.player_view(state, seat.index if seat else None).to_json() if state else None
    return {"request": request, "view": view, "seats": loaded.seats}


def _etag(game: Game) -> str:
    if game.status == Game.Status.ACTIVE:
        return quote_etag(str(game.version))
    return f'W/"{game.version}-{game.status}-{game.updated.timestamp()}"'


class GameListView(APIView):
    throttle_scope = "game_create"
    required_scopes = {**READS, **PLAYS}

    def get_throttles(self) -> list[BaseThrottle]:
        # The scoped limit applies to creating only; every request has the user limit.
        throttles = list(super().get_throttles())
        return [*throttles, ScopedRateThrottle()] if self.request.method == "POST" else throttles

    @extend_schema(
        operation_id="games_list",
        summary="My games",
        parameters=[
            OpenApiParameter(
                "status", str, enum=[s.value for s in Game.Status], description="Only games in this status."
            ),
            OpenApiParameter(
                "my_turn",
                {"type": "string", "enum": ["true", "false", "1", "0"]},
                description="Only games where it is my turn (true or 1), or all of them.",
            ),
        ],
        responses={200: GameSummarySerializer(many=True), 400: PROBLEM},
    )
    def get(self, request: Request) -> Response:
        games: QuerySet[Game] = store.games_of(request_user(request))
        wanted = request.query_params.get("status")
        if wanted is not None:  # present, even empty: one of the documented values
            if wanted not in Game.Status.values:
                raise GameError("bad_filter", f"Unknown status {wanted!r}.")
            games = games.filter(status=wanted)
        my_turn = request.query_params.get("my_turn", "false")
        if my_turn not in ("true", "false", "1", "0"):
            raise GameError("bad_filter", "'my_turn' is true or false (or 1 or 0).")
        if my_turn in ("true", "1"):
            games = games.filter(
                status=Game.Status.ACTIVE, seats__user=request_user(request), seats__index=F("to_act_seat")
            )
        data = GameSummarySerializer(games[:200], many=True, context={"request": request}).data
        return Response(data)

    @extend_schema(
        operation_id="games_create",
        summary="Create a game",
        request=CreateGameSerializer,
        examples=CREATE_EXAMPLES,
        responses={201: GameSerializer, 400: PROBLEM, 422: PROBLEM, 429: PROBLEM},
    )
    def post(self, request: Request) -> Response:
        serializer = CreateGameSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        options = dict(data.get("options") or {"players": len(data["seats"])})
        options.setdefault("players", len(data["seats"]))
        if options.get("sides") is not None:
            options["sides"] = [SIDE_NAMES.index(s) for s in options["sides"]]
        seats = [
            services.SeatSpec(kind=s["kind"], email=s.get("email", ""), bot=s.get("bot", "")) for s in data["seats"]
        ]
        policy = services.ReminderPolicy(**data["reminders"]) if data.get("reminders") else None
        game = services.create_game(
            creator=request_user(request), options=options, seats=seats, reminders=policy, name=data.get("name", "")
        )
        return Response(game_body(store.load(game.public_id), request), status=status.HTTP_201_CREATED)


class GameDetailView(APIView):
    required_scopes = READS

    @extend_schema(
        operation_id="game_get", summary="A game as I see it", responses={200: GameSerializer, 304: None, 404: PROBLEM}
    )
    def get(self, request: Request, game_id: str) -> Response:
        loaded = store.loaded(seen_game(request, game_id))
        etag = _etag(loaded.game)
        if request.headers.get("If-None-Match") == etag:
            return Response(
                status=status.HTTP_304_NOT_MODIFIED, headers={"ETag": etag, "Vary": "Authorization, Cookie"}
            )
        response = Response(game_body(loaded, request), headers={"ETag": etag})
        response["Vary"] = "Authorization, Cookie"
        return response


class JoinView(APIView):
    required_scopes = PLAYS

    @extend_schema(
        operation_id="game_join",
        summary="Take my seat (an invitation, or an open seat: a full open game starts)",
        request=JoinSerializer,
        responses={200: GameSerializer, 403: PROBLEM, 409: PROBLEM, 422: PROBLEM},
    )
    def post(self, request: Request, game_id: str) -> Response:
        data = request.data
        # An empty object means "any seat"; other falsy JSON ("", 0, []) is not an object.
        game = store.get(game_id)  # an unknown game is a 404 whatever the body
        serializer = JoinSerializer(data={} if isinstance(data, dict) and not data else data)
        serializer.is_valid(raise_exception=True)
        open_games.take_seat(game=game, user=request_user(request), seat_index=serializer.validated_data.get("seat"))
        return Response(game_body(store.load(game_id), request))


class StartView(APIView):
    required_scopes = PLAYS

    @extend_schema(
        operation_id="game_start",
        summary="Deal and start",
        request=None,
        responses={200: GameSerializer, 403: PROBLEM, 409: PROBLEM},
    )
    @takes_no_body
    def post(self, request: Request, game_id: str) -> Response:
        services.start_game(game=store.get(game_id), user=request_user(request))
        return Response(game_body(store.load(game_id), request))


class LegalActionsView(APIView):
    required_scopes = READS

    @extend_schema(
        operation_id="game_legal_actions",
        summary="What I may do now",
        examples=[LEGAL_ACTIONS_EXAMPLE],
        responses={200: LegalActionsSerializer, 403: PROBLEM, 409: PROBLEM},
    )
    def get(self, request: Request, game_id: str) -> Response:
        # The state is folded up to the version read with the game: the state
        # and the version answered agree.
        loaded = store.loaded(seen_game(request, game_id))
        seat = loaded.seat_of(request_user(request))
        if seat is None:
            raise GameError("not_a_player", "You have no seat in this game.")
        if loaded.state is None:
            raise GameError("game_lobby", "The game has not started.")
        body = engine.legal_actions(engine.player_view(loaded.state, seat.index)).to_json()
        body["version"] = loaded.game.version
        return Response(body)


def parse_action(raw: Any) -> Action:
    """An action from JSON, or from a string in move notation."""
    refuse_unknown_action_fields(raw)
    if isinstance(raw, str):
        if len(raw) > 500:
            raise GameError("bad_notation", "A move in notation is at most 500 characters.")
        return engine.parse_action(raw)
    return engine.action_from_json(raw)


# What If-Match may hold (``_expected_version``): the schema states the same.
IF_MATCH_PATTERN = r'^\s*(W/)?"?([0-9]{1,12})"?\s*$'


def _is_small_number(value: str) -> bool:
    """ASCII digits only (``isdigit`` also accepts "²" and "١"), and short."""
    return value.isascii() and value.isdigit() and len(value) <= 12


def _expected_version(request: Request, body: dict[str, Any]) -> tuple[int, bool]:
    """The version the action was made against, and whether If-Match said so.
    Both may be sent, but then they must agree: which one would win is a guess."""
    header = request.headers.get("If-Match")
    in_body = body.get("expected_version")
    if header is not None:
        match = re.fullmatch(IF_MATCH_PATTERN, header)
        if match is None:
            raise GameError("bad_if_match", 'If-Match must be the game\'s version in quotes, e.g. "12".')
        if in_body is not None and in_body != int(match[2]):
            raise GameError(
                "versions_disagree",
                f"If-Match says version {int(match[2])} and expected_version says {in_body}: send one, or the same.",
            )
        return int(match[2]), True
    if in_body is not None:
        return int(in_body), False
    raise GameError(
        "version_required", 'Send the version your action was made against: If-Match: "<version>" or expected_version.'
    )


class ActionsView(APIView):
    required_scopes = PLAYS

    @extend_schema(
        operation_id="game_act",
        summary="Take an action",
        request=ActionRequestSerializer,
        examples=ACTION_EXAMPLES,
        parameters=[
            OpenApiParameter(
                "If-Match",
                {"type": "string", "pattern": IF_MATCH_PATTERN},
                OpenApiParameter.HEADER,
                description='The game version the action was made against, in quotes: "12" (or W/"12").',
            ),
            OpenApiParameter(
                "Idempotency-Key",
                {"type": "string", "minLength": 1, "maxLength": 200, "pattern": "^[\\x20-\\x7e]+$"},
                OpenApiParameter.HEADER,
                description="Makes retries safe: the same key and body get the first answer again, and no new event. "
                "1 to 200 printable ASCII characters.",
            ),
        ],
        responses={
            200: ActionResultSerializer,
            400: PROBLEM,
            403: PROBLEM,
            409: PROBLEM,
            412: PROBLEM,
            422: PROBLEM,
            428: PROBLEM,
        },
    )
    def post(self, request: Request, game_id: str) -> Response:
        # In: the body, the version and the key, read and checked here; the move is the
        # service's, in its one transaction; out: the answer, built after the commit.
        serializer = ActionRequestSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        body = serializer.validated_data
        action = parse_action(body["action"])
        version, via_if_match = _expected_version(request, body)
        key = request.headers.get("Idempotency-Key")
        user = request_user(request)
        try:
            result = play.submit_action(
                game_id=game_id,
                user=user,
                action=action,
                expected_version=version,
                key=key,
                asked=request.data,
            )
        except StaleVersion as error:
            if via_if_match:
                raise GameError("precondition_failed", error.message, **error.extra) from error
            raise
        data = action_answer(result, request)
        return Response(data, headers={"ETag": quote_etag(str(data["version"]))})


class EventsView(APIView):
    required_scopes = READS

    @extend_schema(
        operation_id="game_events",
        summary="The game's log as I may see it",
        parameters=[
            OpenApiParameter(
                "after",
                {"type": "integer", "minimum": 0, "maximum": 999_999_999_999},
                description="Only events after this sequence number.",
            )
        ],
        responses={200: EventsSerializer, 400: PROBLEM, 404: PROBLEM},
    )
    def get(self, request: Request, game_id: str) -> Response:
        loaded = seen_game(request, game_id)
        after_raw = request.query_params.get("after", "0")
        if not _is_small_number(after_raw):
            raise GameError("bad_after", "'after' must be a whole number.")
        events = visible_events(loaded, request_user(request), after=int(after_raw))
        body: dict[str, Any] = {"version": loaded.game.version, "events": events}
        if loaded.seat_of(request_user(request)) is not None:  # the table talk is the players' alone
            body["messages"] = talk.messages_of(loaded, request)
        return Response(body)


class StateAtView(APIView):
    required_scopes = READS

    @extend_schema(
        operation_id="game_state_at",
        summary="The public state after event n (replays)",
        responses={200: StateAtSerializer, 404: PROBLEM},
    )
    def get(self, request: Request, game_id: str, n: int) -> Response:
        loaded = store.loaded(seen_game(request, game_id), upto=n)
        version = loaded.game.version
        if not 1 <= n <= version or loaded.state is None:
            raise GameError("no_such_event", f"Event {n} does not exist; the game is at version {version}.")
        return Response({"n": n, "version": version, "state": engine.spectator_view(loaded.state).to_json()})


class RecordView(APIView):
    required_scopes = READS

    @extend_schema(
        operation_id="game_record",
        summary="The game record (finished games)",
        responses={200: RecordSerializer, 409: PROBLEM},
    )
    def get(self, request: Request, game_id: str) -> Response:
        game = seen_game(request, game_id).game
        if game.status != Game.Status.FINISHED:
            raise GameError("game_not_finished", "A record is made only once the game is finished.")
        return Response(engine.game_record(store.event_payloads(game)))

"""The games API: translate HTTP to service calls and the engine's views back.

Nothing here decides a rule or touches a secret: services do the writes, the
engine's ``player_view``/``redact_events`` decide what a caller may see.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from django.db.models import F, QuerySet
from django.utils.http import quote_etag
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import permissions, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import BaseThrottle
from rest_framework.views import APIView

from accounts.auth_helpers import request_user
from accounts.throttles import ScopedRateThrottle
from games import engine, services
from games.engine import SIDE_NAMES, Action
from games.errors import GameError, StaleVersion, Unprocessable, VersionRequired
from games.models import Game

from .serializers import (
    ActionRequestSerializer,
    CreateGameSerializer,
    GameSummarySerializer,
    JoinSerializer,
)

PROBLEM = OpenApiResponse(description="An RFC 9457 problem (application/problem+json) with a stable 'code'.")
JSON_OBJECT = OpenApiTypes.OBJECT


def _summary(game: Game, request: Request) -> dict[str, Any]:
    return dict(GameSummarySerializer(game, context={"request": request}).data)


def game_body(game: Game, request: Request, state: engine.GameState | None = None) -> dict[str, Any]:
    """The caller's view of a game: the summary plus the board as their seat sees it."""
    body = _summary(game, request)
    if state is None and game.status != Game.Status.LOBBY:
        state = services.load_state(game)
    seat = services.seat_of(game, request_user(request))
    body["state"] = engine.player_view(state, seat.index if seat else None).to_json() if state else None
    return body


def _etag(game: Game) -> str:
    if game.status == Game.Status.ACTIVE:
        return quote_etag(str(game.version))
    return f'W/"{game.version}-{game.status}-{game.updated.timestamp()}"'


class GameListView(APIView):
    throttle_scope = "game_create"

    def get_throttles(self) -> list[BaseThrottle]:
        # The scoped limit applies to creating only; every request has the user limit.
        throttles = list(super().get_throttles())
        return [*throttles, ScopedRateThrottle()] if self.request.method == "POST" else throttles

    @extend_schema(
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
        games: QuerySet[Game] = services.games_of(request_user(request)).prefetch_related("seats__user")
        wanted = request.query_params.get("status")
        if wanted is not None:  # present, even empty: one of the documented values
            if wanted not in Game.Status.values:
                raise Unprocessable(f"Unknown status {wanted!r}.", code="bad_filter", status=400)
            games = games.filter(status=wanted)
        my_turn = request.query_params.get("my_turn", "false")
        if my_turn not in ("true", "false", "1", "0"):
            raise Unprocessable("'my_turn' is true or false (or 1 or 0).", code="bad_filter", status=400)
        if my_turn in ("true", "1"):
            games = games.filter(
                status=Game.Status.ACTIVE, seats__user=request_user(request), seats__index=F("to_act_seat")
            )
        data = GameSummarySerializer(games[:200], many=True, context={"request": request}).data
        return Response(data)

    @extend_schema(
        summary="Create a game",
        request=CreateGameSerializer,
        responses={201: JSON_OBJECT, 400: PROBLEM, 422: PROBLEM, 429: PROBLEM},
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
        game = services.create_game(creator=request_user(request), options=options, seats=seats, reminders=policy)
        return Response(game_body(game, request), status=status.HTTP_201_CREATED)


class GameDetailView(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(summary="A game as I see it", responses={200: JSON_OBJECT, 304: None, 404: PROBLEM})
    def get(self, request: Request, game_id: str) -> Response:
        game = services.get_game(game_id)
        etag = _etag(game)
        if request.headers.get("If-None-Match") == etag:
            return Response(
                status=status.HTTP_304_NOT_MODIFIED, headers={"ETag": etag, "Vary": "Authorization, Cookie"}
            )
        response = Response(game_body(game, request), headers={"ETag": etag})
        response["Vary"] = "Authorization, Cookie"
        return response


class JoinView(APIView):
    @extend_schema(
        summary="Take my seat", request=JoinSerializer, responses={200: JSON_OBJECT, 403: PROBLEM, 409: PROBLEM}
    )
    def post(self, request: Request, game_id: str) -> Response:
        data = request.data
        # An empty object means "any seat"; other falsy JSON ("", 0, []) is not an object.
        serializer = JoinSerializer(data={} if isinstance(data, dict) and not data else data)
        serializer.is_valid(raise_exception=True)
        game = services.get_game(game_id)
        services.join_game(game=game, user=request_user(request), seat_index=serializer.validated_data.get("seat"))
        game.refresh_from_db()
        return Response(game_body(game, request))


class StartView(APIView):
    @extend_schema(summary="Deal and start", request=None, responses={200: JSON_OBJECT, 403: PROBLEM, 409: PROBLEM})
    def post(self, request: Request, game_id: str) -> Response:
        game = services.start_game(game=services.get_game(game_id), user=request_user(request))
        return Response(game_body(game, request))


class LegalActionsView(APIView):
    @extend_schema(summary="What I may do now", responses={200: JSON_OBJECT, 403: PROBLEM, 409: PROBLEM})
    def get(self, request: Request, game_id: str) -> Response:
        game, seat = services.game_and_seat_index(game_id, request_user(request))
        if seat is None:
            raise GameError("You have no seat in this game.", code="not_a_player", status=403)
        # Up to the version read with the game: the state and the version
        # answered agree, and a state this process holds at that version is
        # used as it is, with no query for newer events.
        state = services.load_state(game, upto=game.version)
        if state is None:
            raise GameError("The game has not started.", code="game_lobby", status=409)
        body = engine.legal_actions(engine.player_view(state, seat)).to_json()
        body["version"] = game.version
        return Response(body)


def parse_action(raw: Any) -> Action:
    """An action from JSON, or from a string in move notation."""
    if isinstance(raw, str):
        if len(raw) > 500:
            raise Unprocessable("A move in notation is at most 500 characters.", code="bad_notation")
        return engine.parse_action(raw)
    return engine.action_from_json(raw)


# What If-Match may hold (``_expected_version``): the schema states the same.
IF_MATCH_PATTERN = r'^\s*(W/)?"?([0-9]{1,12})"?\s*$'


def _is_small_number(value: str) -> bool:
    """ASCII digits only (``isdigit`` also accepts "²" and "١"), and short."""
    return value.isascii() and value.isdigit() and len(value) <= 12


def _expected_version(request: Request, body: dict[str, Any]) -> tuple[int, bool]:
    """The version the action was made against, and whether If-Match said so."""
    header = request.headers.get("If-Match")
    if header is not None:
        match = re.fullmatch(IF_MATCH_PATTERN, header)
        if match is None:
            raise GameError(
                'If-Match must be the game\'s version in quotes, e.g. "12".', code="bad_if_match", status=400
            )
        return int(match[2]), True
    if body.get("expected_version") is not None:
        return int(body["expected_version"]), False
    raise VersionRequired('Send the version your action was made against: If-Match: "<version>" or expected_version.')


class ActionsView(APIView):
    @extend_schema(
        summary="Take an action",
        request=ActionRequestSerializer,
        parameters=[
            OpenApiParameter(
                "If-Match",
                {"type": "string", "pattern": IF_MATCH_PATTERN},
                OpenApiParameter.HEADER,
                description='The game version the action was made against, in quotes: "12" (or W/"12").',
            ),
            OpenApiParameter(
                "Idempotency-Key",
                {"type": "string", "minLength": 1, "maxLength": 255},
                OpenApiParameter.HEADER,
                description="Makes retries safe: the same key and body get the stored answer, and no new event.",
            ),
        ],
        responses={
            200: JSON_OBJECT,
            400: PROBLEM,
            403: PROBLEM,
            409: PROBLEM,
            412: PROBLEM,
            422: PROBLEM,
            428: PROBLEM,
        },
    )
    def post(self, request: Request, game_id: str) -> Response:
        serializer = ActionRequestSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        body = serializer.validated_data
        action = parse_action(body["action"])
        version, via_if_match = _expected_version(request, body)
        key = request.headers.get("Idempotency-Key")
        if key is not None and not 1 <= len(key) <= 255:
            raise GameError("Idempotency-Key must be 1 to 255 characters.", code="bad_idempotency_key", status=400)
        fingerprint = hashlib.sha256(
            json.dumps([request.data, version], sort_keys=True, default=str).encode()
        ).hexdigest()

        def respond(result: services.ActionResult) -> tuple[int, dict[str, Any]]:
            events = engine.redact_events(result.events, result.seat)
            return 200, {
                "version": result.game.version,
                "events": events,
                "game": game_body(result.game, request, result.state),
            }

        try:
            code, data = services.submit_action(
                game_id=game_id,
                user=request_user(request),
                action=action,
                expected_version=version,
                respond=respond,
                idempotency_key=key,
                fingerprint=fingerprint,
            )
        except StaleVersion as error:
            if via_if_match:
                error.status = 412
                error.code = "precondition_failed"
            raise
        return Response(data, status=code, headers={"ETag": quote_etag(str(data.get("version", "")))})


class EventsView(APIView):
    @extend_schema(
        summary="The game's log as I may see it",
        parameters=[
            OpenApiParameter(
                "after",
                {"type": "integer", "minimum": 0, "maximum": 999_999_999_999},
                description="Only events after this sequence number.",
            )
        ],
        responses={200: JSON_OBJECT, 400: PROBLEM, 404: PROBLEM},
    )
    def get(self, request: Request, game_id: str) -> Response:
        game, seat = services.game_and_seat_index(game_id, request_user(request))
        after_raw = request.query_params.get("after", "0")
        if not _is_small_number(after_raw):
            raise GameError("'after' must be a whole number.", code="bad_after", status=400)
        after = int(after_raw)
        rows = game.events.filter(seq__gt=after).order_by("seq").values("seq", "payload", "created")[:1000]
        events = [
            {
                "seq": row["seq"],
                "created": row["created"],
                **engine.redact_event(row["payload"], seat),
            }
            for row in rows
        ]
        return Response({"version": game.version, "events": events})


class StateAtView(APIView):
    @extend_schema(summary="The public state after event n (replays)", responses={200: JSON_OBJECT, 404: PROBLEM})
    def get(self, request: Request, game_id: str, n: int) -> Response:
        game = services.get_game(game_id, seats=False)
        if not 1 <= n <= game.version:
            raise GameError(
                f"Event {n} does not exist; the game is at version {game.version}.", code="no_such_event", status=404
            )
        state = services.load_state(game, upto=n)
        assert state is not None
        return Response({"n": n, "version": game.version, "state": engine.spectator_view(state).to_json()})


class RecordView(APIView):
    @extend_schema(summary="The game record (finished games)", responses={200: JSON_OBJECT, 409: PROBLEM})
    def get(self, request: Request, game_id: str) -> Response:
        game = services.get_game(game_id, seats=False)
        if game.status != Game.Status.FINISHED:
            raise GameError("A record is made only once the game is finished.", code="game_not_finished", status=409)
        return Response(engine.game_record(services.event_payloads(game)))

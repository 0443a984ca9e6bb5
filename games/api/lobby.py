"""The open games API: the public lobby, "play now", opening a game, rematches."""

from __future__ import annotations

from typing import Any

from django.utils import timezone
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import permissions, serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.auth_helpers import request_user
from accounts.scopes import GAMES_PLAY, GAMES_READ, ScopeRequired
from games import store
from games.errors import GameError
from games.models import Game
from games.services import open_games
from manhattan_site.strict_input import StrictBooleanField, StrictSerializer, takes_no_body

from .serializers import GameSerializer, SeatSerializer
from .views import game_body

PROBLEM = OpenApiResponse(description="An RFC 9457 problem (application/problem+json) with a stable 'code'.")
PACES = list(open_games.PACES)


class PolicySerializer(serializers.Serializer[Any]):
    first_hours = serializers.IntegerField(source="reminder_first_hours")
    every_hours = serializers.IntegerField(source="reminder_every_hours")
    timeout_hours = serializers.IntegerField(allow_null=True)


class OpenGameSerializer(serializers.Serializer[Any]):
    """A game in the public lobby (its seats loaded with it)."""

    id = serializers.UUIDField(source="public_id")
    players = serializers.IntegerField(min_value=2, max_value=4)
    six_rounds = serializers.SerializerMethodField()
    pace = serializers.SerializerMethodField()
    reminders = PolicySerializer(source="*", help_text="When absent players are reminded, and the bot steps in.")
    creator = serializers.CharField(source="creator.public_name")
    seats = SeatSerializer(many=True, source="seats.all")
    open_seats = serializers.SerializerMethodField()
    created = serializers.DateTimeField()
    waiting_seconds = serializers.SerializerMethodField(help_text="How long the game has waited for players.")
    fill_with_bots_at = serializers.DateTimeField(
        allow_null=True, help_text="When bots take the seats still open and the game starts; null: never."
    )

    def get_six_rounds(self, game: Game) -> bool:
        return bool(game.options.get("six_rounds", False))

    @staticmethod
    def _pace(game: Game) -> str:
        return open_games.pace_of(game)

    def get_pace(self, game: Game) -> str:
        return self._pace(game)

    def get_open_seats(self, game: Game) -> int:
        return sum(1 for s in game.seats.all() if s.user_id is None and not s.bot and not s.invited_email)

    def get_waiting_seconds(self, game: Game) -> int:
        return max(int((timezone.now() - game.created).total_seconds()), 0)


class PlayNowSerializer(StrictSerializer):
    players = serializers.ChoiceField(choices=[2, 3, 4])
    pace = serializers.ChoiceField(choices=PACES, default="normal")
    bots_after_hours = serializers.IntegerField(
        min_value=1,
        max_value=open_games.MAX_BOT_HOURS,
        required=False,
        allow_null=True,
        help_text="If a new game is opened and seats are still open after this many hours, bots take them.",
    )


class OpenGameRequestSerializer(PlayNowSerializer):
    six_rounds = StrictBooleanField(default=False)
    public = StrictBooleanField(default=True, help_text="Anyone may watch it (false: players and their link).")


class SeatedSerializer(serializers.Serializer[Any]):
    joined = serializers.BooleanField(help_text="True: a seat in a waiting game (or the rematch made already).")
    game = GameSerializer()


def _seated(seated: open_games.Seated, request: Request) -> Response:
    body = {"joined": seated.joined, "game": game_body(store.load(seated.game.public_id), request)}
    return Response(body, status=status.HTTP_200_OK if seated.joined else status.HTTP_201_CREATED)


def _choice(request: Request, name: str, choices: list[str]) -> str | None:
    raw = request.query_params.get(name)
    if raw is not None and raw not in choices:
        raise GameError("bad_filter", f"'{name}' is one of {', '.join(choices)}.")
    return raw


class LobbyView(APIView):
    required_scopes = {"GET": GAMES_READ, "POST": GAMES_PLAY}

    def get_permissions(self) -> list[Any]:
        # Anyone may look at the lobby; taking a seat needs an account.
        if self.request.method == "GET":
            return [permissions.AllowAny(), ScopeRequired()]  # a token still needs games:read
        return list(super().get_permissions())

    @extend_schema(
        summary="Open games anyone may join",
        parameters=[
            OpenApiParameter("players", {"type": "string", "enum": ["2", "3", "4"]}, description="Only this size."),
            OpenApiParameter("pace", {"type": "string", "enum": PACES}, description="Only this pace."),
        ],
        responses={200: OpenGameSerializer(many=True), 400: PROBLEM},
    )
    def get(self, request: Request) -> Response:
        players = _choice(request, "players", ["2", "3", "4"])
        pace = _choice(request, "pace", PACES)
        games = open_games.open_lobby(players=int(players) if players else None, pace=pace)
        return Response(OpenGameSerializer(games[:200], many=True).data)

    @extend_schema(
        summary="Open a game in the lobby",
        request=OpenGameRequestSerializer,
        responses={201: GameSerializer, 400: PROBLEM, 422: PROBLEM},
    )
    def post(self, request: Request) -> Response:
        serializer = OpenGameRequestSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        game = open_games.open_game(
            creator=request_user(request),
            players=int(data["players"]),
            pace=data["pace"],
            six_rounds=data["six_rounds"],
            bots_after_hours=data.get("bots_after_hours"),
            public=data["public"],
        )
        return Response(game_body(store.load(game.public_id), request), status=status.HTTP_201_CREATED)


class PlayNowView(APIView):
    required_scopes = {"POST": GAMES_PLAY}

    @extend_schema(
        summary="Play now: a seat in a waiting game that fits, or a new open game",
        request=PlayNowSerializer,
        responses={200: SeatedSerializer, 201: SeatedSerializer, 400: PROBLEM, 422: PROBLEM},
    )
    def post(self, request: Request) -> Response:
        serializer = PlayNowSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        seated = open_games.play_now(
            user=request_user(request),
            players=int(data["players"]),
            pace=data["pace"],
            bots_after_hours=data.get("bots_after_hours"),
        )
        return _seated(seated, request)


class RematchView(APIView):
    required_scopes = {"POST": GAMES_PLAY}

    @extend_schema(
        summary="Rematch: the same players in a new game",
        request=None,
        responses={200: SeatedSerializer, 201: SeatedSerializer, 403: PROBLEM, 409: PROBLEM},
    )
    @takes_no_body
    def post(self, request: Request, game_id: str) -> Response:
        return _seated(open_games.rematch(game=store.get(game_id), user=request_user(request)), request)

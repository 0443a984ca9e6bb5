"""The watching API: the public games, and a game's visibility. A spectator
reads a game through ``GET /games/{id}`` and ``/events``, which answer the
public view to anyone without a seat."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import permissions
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.auth_helpers import request_user
from accounts.scopes import GAMES_PLAY, GAMES_READ, ScopeRequired
from games import store
from games.errors import GameError
from games.models import Game
from games.services import watching
from manhattan_site.strict_input import StrictBooleanField, StrictSerializer

from .serializers import GameSummarySerializer

WATCHED = [Game.Status.ACTIVE.value, Game.Status.FINISHED.value]
PROBLEM = OpenApiResponse(description="An RFC 9457 problem (application/problem+json) with a stable 'code'.")


class VisibilitySerializer(StrictSerializer):
    public = StrictBooleanField(help_text="Listed, and anyone may watch; false: players and the watch link.")


class WatchListView(APIView):
    permission_classes = [permissions.AllowAny, ScopeRequired]  # anyone; a token needs games:read
    required_scopes = {"GET": GAMES_READ}

    @extend_schema(
        summary="Public games to watch",
        parameters=[
            OpenApiParameter(
                "status", {"type": "string", "enum": WATCHED}, description="Only games being played, or finished."
            )
        ],
        responses={200: GameSummarySerializer(many=True), 400: PROBLEM},
    )
    def get(self, request: Request) -> Response:
        games = watching.watchable_games()
        wanted = request.query_params.get("status")
        if wanted is not None:
            if wanted not in WATCHED:
                raise GameError("bad_filter", f"'status' is one of {', '.join(WATCHED)}.")
            games = games.filter(status=wanted)
        games = games[:100]
        return Response(GameSummarySerializer(games, many=True, context={"request": request}).data)


class VisibilityView(APIView):
    required_scopes = {"PUT": GAMES_PLAY}

    @extend_schema(
        summary="Make a game public or private (its players)",
        request=VisibilitySerializer,
        responses={200: VisibilitySerializer, 403: PROBLEM},
    )
    def put(self, request: Request, game_id: str) -> Response:
        serializer = VisibilitySerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        game = watching.set_public(
            game=store.get(game_id), user=request_user(request), public=serializer.validated_data["public"]
        )
        return Response({"public": game.public})

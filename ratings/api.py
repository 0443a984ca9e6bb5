"""The players API: profiles, the hide setting, and the leaderboards."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import exceptions
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.auth_helpers import request_user
from accounts.scopes import ACCOUNT_HOLDER, GAMES_READ
from manhattan_site.api.codes import ProblemError

from . import profiles
from .serializers import LeaderboardSerializer, ProfileSerializer, ProfileSettingsSerializer

PROBLEM = OpenApiResponse(description="An RFC 9457 problem (application/problem+json) with a stable 'code'.")
NOT_FOUND = OpenApiResponse(description="No such player, or their profile is hidden (code 'player_not_found').")


def _player(player_id: str, viewer: Any) -> Any:
    try:
        return profiles.visible_player(player_id, viewer)
    except profiles.ProfileNotFound as error:
        raise exceptions.NotFound("There is no player with this id.", code="player_not_found") from error


def _whole_number(request: Request, name: str, default: str | None = None) -> int | None:
    raw = request.query_params.get(name, default)
    if raw is None:
        return None
    if not (raw.isascii() and raw.isdigit() and len(raw) <= 12):
        raise ProblemError("bad_filter", f"'{name}' is a whole number.")
    return int(raw)


class PlayerView(APIView):
    required_scopes = {"GET": GAMES_READ, "PATCH": ACCOUNT_HOLDER}  # hiding one's profile is the person's

    @extend_schema(
        summary="A player's profile",
        parameters=[
            OpenApiParameter("player_id", {"type": "integer", "minimum": 1}, OpenApiParameter.PATH),
            OpenApiParameter(
                "opponent", {"type": "integer", "minimum": 1}, description="Add the head-to-head against this player."
            ),
        ],
        responses={200: ProfileSerializer, 400: PROBLEM, 404: NOT_FOUND},
    )
    def get(self, request: Request, player_id: str) -> Response:
        viewer = request_user(request)
        user = _player(player_id, viewer)
        opponent_id = _whole_number(request, "opponent")
        opponent = None
        if opponent_id is not None:
            try:
                opponent = profiles.visible_player(opponent_id, viewer)
            except profiles.ProfileNotFound as error:
                raise exceptions.NotFound("There is no opponent with this id.", code="opponent_not_found") from error
            if opponent.pk == user.pk:
                raise exceptions.ValidationError({"opponent": "A player has no head-to-head against themselves."})
        return Response(ProfileSerializer(profiles.profile_of(user, reader=viewer, opponent=opponent)).data)

    @extend_schema(
        summary="Hide or show my profile",
        parameters=[OpenApiParameter("player_id", {"type": "integer", "minimum": 1}, OpenApiParameter.PATH)],
        request=ProfileSettingsSerializer,
        responses={200: ProfileSettingsSerializer, 403: PROBLEM, 404: NOT_FOUND},
    )
    def patch(self, request: Request, player_id: str) -> Response:
        viewer = request_user(request)
        user = _player(player_id, viewer)
        if user.pk != viewer.pk:
            raise exceptions.PermissionDenied("Only the player can change their profile.", code="not_your_profile")
        serializer = ProfileSettingsSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        profiles.set_hidden(user=user, hidden=serializer.validated_data["hidden"])
        return Response({"hidden": serializer.validated_data["hidden"]})


class LeaderboardView(APIView):
    required_scopes = {"GET": GAMES_READ}

    @extend_schema(
        summary="The leaderboard of one player count",
        parameters=[
            OpenApiParameter("players", {"type": "integer", "enum": [2, 3, 4]}, description="Default 4."),
            OpenApiParameter(
                "established",
                {"type": "string", "enum": ["true", "false", "1", "0"]},
                description="Only ratings with at least 10 games.",
            ),
            OpenApiParameter("limit", {"type": "integer", "minimum": 1, "maximum": 500}, description="Default 100."),
        ],
        responses={200: LeaderboardSerializer, 400: PROBLEM},
    )
    def get(self, request: Request) -> Response:
        players = _whole_number(request, "players", "4")
        if players not in profiles.PLAYER_COUNTS:
            raise ProblemError("bad_filter", "'players' is 2, 3 or 4.")
        limit = _whole_number(request, "limit", "100")
        if limit is None or not 1 <= limit <= 500:
            raise ProblemError("bad_filter", "'limit' is between 1 and 500.")
        established = request.query_params.get("established", "false")
        if established not in ("true", "false", "1", "0"):
            raise ProblemError("bad_filter", "'established' is true or false (or 1 or 0).")
        entries = profiles.leaderboard(players, established_only=established in ("true", "1"), limit=limit)
        return Response(LeaderboardSerializer({"players": players, "entries": entries}).data)

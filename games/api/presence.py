"""Presence through the API: a client tells the server that it is showing a game to
its player now, as the game page does with its heartbeat.

While a player's client says so (again at least every ``PRESENCE_SECONDS``), the
notifications app sends them no "your turn" email and no reminder for that game, as
for a player with the page open (``games.services.presence``): someone playing in an
app is at the table and needs no mail to come back to it.
"""

from __future__ import annotations

from typing import Any

from django.core.validators import RegexValidator
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.auth_helpers import request_user
from accounts.scopes import GAMES_PLAY
from games import store
from games.errors import GameError
from games.services import presence
from manhattan_site.strict_input import StrictCharField, StrictSerializer

PROBLEM = OpenApiResponse(description="An RFC 9457 problem (application/problem+json) with a stable 'code'.")
# Stored beside the pages' own ids, which never hold a colon: a client never replaces a page's row.
CLIENT_PREFIX = "api:"


class PresenceSerializer(StrictSerializer):
    client = StrictCharField(
        validators=[RegexValidator(r"^[A-Za-z0-9-]*$")],
        allow_blank=True,
        max_length=60,
        required=False,
        default="",
        help_text=(
            "An id your client makes up for itself (up to 60 letters, digits or dashes), so that one "
            "client's 'hidden' leaves another's presence (a second device, a game page) in place."
        ),
    )
    state = serializers.ChoiceField(
        ["visible", "hidden"],
        required=False,
        default="visible",
        help_text="visible: the game is on the player's screen now; hidden: it no longer is.",
    )


class PresenceView(APIView):
    """Say that the game is on the player's screen in your client (or no longer)."""

    required_scopes = {"PUT": GAMES_PLAY}

    @extend_schema(
        operation_id="set_presence",
        summary="The game is on my screen (or no longer)",
        description=(
            "While the game is shown to its player, send this again at least every two minutes "
            "(PRESENCE_SECONDS; once a minute is enough): until then the player gets no 'your turn' "
            "email and no reminder for this game. Send state 'hidden' when the game leaves the screen, "
            "and the emails resume from the next turn. Only a player of the game may send it."
        ),
        request=PresenceSerializer,
        responses={204: None, 400: PROBLEM, 403: PROBLEM, 404: PROBLEM, 422: PROBLEM},
    )
    def put(self, request: Request, game_id: str) -> Response:
        body = PresenceSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        asked: dict[str, Any] = body.validated_data
        loaded = store.load(game_id, fold=False)
        user = request_user(request)
        if loaded.seat_of(user) is None:
            raise GameError("not_a_player", "Only the players of a game are at its table.")
        visible = asked["state"] == "visible"
        presence.mark(game=loaded.game, user=user, visible=visible, page=CLIENT_PREFIX + asked["client"])
        return Response(status=status.HTTP_204_NO_CONTENT)

"""Table talk through the API: read and write a game's messages, mute a player.

Only the players of a game read its table: anyone else gets 403 with the
code ``not_a_player`` (the game's public view stays readable for them).
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.auth_helpers import request_user
from accounts.scopes import GAMES_PLAY, GAMES_READ
from games import store
from games.errors import GameError
from games.table import LoadedGame
from games.talk import services as talk
from games.talk.models import MAX_LENGTH, TableMessage
from manhattan_site.strict_input import StrictCharField, StrictSerializer, takes_no_body

from .permissions import seen_game

PROBLEM = OpenApiResponse(description="An RFC 9457 problem (application/problem+json) with a stable 'code'.")


class MessageSerializer(serializers.Serializer[TableMessage]):
    id = serializers.IntegerField(read_only=True)
    seat = serializers.IntegerField(read_only=True, help_text="The author's seat index.")
    player = serializers.CharField(source="author.public_name", read_only=True)
    text = serializers.CharField(read_only=True, help_text="Plain text; never markup.")
    via = serializers.CharField(read_only=True, help_text="web, api or email.")
    created = serializers.DateTimeField(read_only=True)


class MessageTextField(StrictCharField):
    """Message text, tidied before it is validated: control characters (NUL
    too) are dropped rather than refused, and blank text is the service's
    ``message_empty`` (422), as on the page and by email."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(allow_blank=True, trim_whitespace=False, **kwargs)

    def to_internal_value(self, data: Any) -> str:
        return talk.tidy(super().to_internal_value(data).replace("\x00", ""))


class NewMessageSerializer(StrictSerializer):
    text = MessageTextField(max_length=MAX_LENGTH)


class MessagesBodySerializer(serializers.Serializer[Any]):
    messages = MessageSerializer(many=True)


def messages_of(loaded: LoadedGame, request: Request, after: int = 0) -> list[dict[str, Any]]:
    """The messages the caller, a player, may read; GameError otherwise."""
    user = request_user(request)
    if loaded.seat_of(user) is None:
        raise GameError("not_a_player", "Only the players of a game read its table.")
    visible = talk.visible_to(loaded.game, user, after=after)
    return list(MessageSerializer(visible, many=True).data)  # type: ignore[arg-type]  # many=True takes a list


class MessagesView(APIView):
    required_scopes = {"GET": GAMES_READ, "POST": GAMES_PLAY}

    @extend_schema(
        operation_id="list_messages",
        summary="The table talk of a game I play in",
        parameters=[
            OpenApiParameter(
                "after",
                {"type": "integer", "minimum": 0, "maximum": 999_999_999_999},
                description="Only messages with a greater id.",
            )
        ],
        responses={200: MessagesBodySerializer, 400: PROBLEM, 403: PROBLEM, 404: PROBLEM},
    )
    def get(self, request: Request, game_id: str) -> Response:
        after = request.query_params.get("after", "0")
        if not (after.isascii() and after.isdigit() and len(after) < 13):
            raise GameError("bad_after", "'after' must be a whole number.")
        loaded = seen_game(request, game_id)
        return Response({"messages": messages_of(loaded, request, int(after))})

    @extend_schema(
        operation_id="post_message",
        summary="Write at the table",
        request=NewMessageSerializer,
        responses={201: MessageSerializer, 403: PROBLEM, 404: PROBLEM, 422: PROBLEM, 429: PROBLEM},
    )
    def post(self, request: Request, game_id: str) -> Response:
        body = NewMessageSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        message = talk.post_message(game_id, request_user(request), body.validated_data["text"], via="api")
        return Response(MessageSerializer(message).data, status=status.HTTP_201_CREATED)


class MuteView(APIView):
    """Mute (PUT) or unmute (DELETE) the person in a seat of a game I play in:
    their messages disappear for me, in every game."""

    required_scopes = {"PUT": GAMES_PLAY, "DELETE": GAMES_PLAY}

    def _other(self, request: Request, game_id: str, index: int) -> Any:
        loaded = store.load(game_id, fold=False)
        if loaded.seat_of(request_user(request)) is None:
            raise GameError("not_a_player", "Only the players of a game mute at its table.")
        seat = loaded.seat_at(index)
        if seat is None or seat.user is None:
            raise GameError("no_seat", "Nobody sits in that seat.")
        return seat.user

    @extend_schema(
        operation_id="mute_seat",
        summary="Mute a player",
        request=None,
        responses={204: None, 403: PROBLEM, 422: PROBLEM},  # 422 mute_self
    )
    @takes_no_body
    def put(self, request: Request, game_id: str, index: int) -> Response:
        talk.mute(request_user(request), self._other(request, game_id, index))
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(operation_id="unmute_seat", summary="Unmute a player", responses={204: None, 403: PROBLEM})
    @takes_no_body
    def delete(self, request: Request, game_id: str, index: int) -> Response:
        talk.unmute(request_user(request), self._other(request, game_id, index))
        return Response(status=status.HTTP_204_NO_CONTENT)

"""Request validation and response shapes of the games API.

Responses are built from the engine's views (which have already stripped
secrets); serializers here only validate input and document shapes.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.core.validators import RegexValidator
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from games.engine.bots import BOTS
from games.models import Game, Seat


class SeatSpecSerializer(serializers.Serializer[Any]):
    kind = serializers.ChoiceField(choices=["me", "invite", "open", "bot"])
    email = serializers.EmailField(required=False, allow_blank=False)
    bot = serializers.ChoiceField(choices=sorted(BOTS), required=False)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if attrs["kind"] == "invite" and not attrs.get("email"):
            raise serializers.ValidationError({"email": "An invited seat needs the invitee's email address."})
        if attrs["kind"] == "bot" and not attrs.get("bot"):
            raise serializers.ValidationError({"bot": f"Say which bot: {', '.join(sorted(BOTS))}."})
        return attrs


class GameOptionsSerializer(serializers.Serializer[Any]):
    players = serializers.IntegerField(min_value=2, max_value=4, required=False, default=4)
    six_rounds = serializers.BooleanField(required=False, default=False)
    copies_per_position = serializers.IntegerField(min_value=2, max_value=12, required=False, default=5)
    sides = serializers.ListField(
        child=serializers.ChoiceField(choices=["S", "W", "N", "E"]), required=False, allow_null=True
    )
    start_player = serializers.IntegerField(min_value=0, max_value=3, required=False, allow_null=True)


class ReminderPolicySerializer(serializers.Serializer[Any]):
    first_hours = serializers.IntegerField(min_value=1, max_value=720, required=False, default=24)
    every_hours = serializers.IntegerField(min_value=1, max_value=720, required=False, default=48)
    timeout_hours = serializers.IntegerField(
        min_value=1, max_value=1440, required=False, allow_null=True, default=168,
        help_text="After this long the greedy bot moves for an absent player; null: never.",
    )  # fmt: skip


class CreateGameSerializer(serializers.Serializer[Any]):
    options = GameOptionsSerializer(required=False)
    reminders = ReminderPolicySerializer(required=False)
    seats: serializers.ListSerializer[Any] = serializers.ListSerializer(
        child=SeatSpecSerializer(),
        min_length=2,
        max_length=4,
        error_messages={
            "min_length": "Manhattan is played by 2, 3 or 4 players: give 2 to 4 seats.",
            "max_length": "Manhattan is played by 2, 3 or 4 players: give 2 to 4 seats.",
        },
    )


class JoinSerializer(serializers.Serializer[Any]):
    seat = serializers.IntegerField(min_value=0, max_value=3, required=False, allow_null=True)


@extend_schema_field(
    {
        "oneOf": [
            {"type": "object", "required": ["type"], "properties": {"type": {"type": "string"}}},
            {"type": "string", "minLength": 1, "maxLength": 500},
        ]
    }
)
class ActionField(serializers.JSONField):
    """An action: a JSON object with a ``type``, or a move in notation (the
    engine says which actions are legal; the schema only gives the shape)."""


class ActionRequestSerializer(serializers.Serializer[Any]):
    action = ActionField(
        help_text="The action as JSON ({'type': 'place', 'card': 5, 'city': 3, 'size': 2}) "
        "or as a string in move notation ('card 5 city 3 size 2')."
    )
    expected_version = serializers.IntegerField(
        min_value=0, required=False, help_text="The version the action was made against (or send If-Match)."
    )


class SeatSerializer(serializers.ModelSerializer[Seat]):
    player = serializers.SerializerMethodField()
    invited = serializers.SerializerMethodField()

    class Meta:
        model = Seat
        fields = ("index", "side", "colours", "bot", "player", "invited")

    def get_player(self, seat: Seat) -> str | None:
        return seat.user.public_name if seat.user is not None else None

    def get_invited(self, seat: Seat) -> bool:
        """Whether the seat waits for an invitee (whose address is not shown)."""
        return bool(seat.invited_email) and seat.user_id is None


class GameSummarySerializer(serializers.ModelSerializer[Game]):
    id = serializers.UUIDField(source="public_id", read_only=True)
    seats = SeatSerializer(many=True, read_only=True)
    my_seat = serializers.SerializerMethodField()
    my_turn = serializers.SerializerMethodField()

    class Meta:
        model = Game
        fields = (
            "id",
            "status",
            "options",
            "version",
            "phase",
            "round",
            "to_act_seat",
            "turn_since",
            "created",
            "started",
            "finished",
            "reminder_first_hours",
            "reminder_every_hours",
            "timeout_hours",
            "seats",
            "my_seat",
            "my_turn",
        )

    def _my_seat(self, game: Game) -> int | None:
        user = self.context["request"].user
        for seat in game.seats.all():
            if seat.user_id == user.pk:
                return seat.index
        return None

    def get_my_seat(self, game: Game) -> int | None:
        return self._my_seat(game)

    def get_my_turn(self, game: Game) -> bool:
        seat = self._my_seat(game)
        return seat is not None and game.status == Game.Status.ACTIVE and game.to_act_seat == seat

    def to_representation(self, instance: Game) -> dict[str, Any]:
        """The fields declared above, written out by hand.

        This summary is in every move's response and every game read, and
        DRF's field-by-field walk costs about 1.5 ms for it, more than the
        move itself. The declared fields still document the shape (OpenAPI);
        ``tests/games/test_api_summary.py`` checks that this gives exactly
        what DRF's generic ``to_representation`` gives.
        """
        user_id = self.context["request"].user.pk
        seats = list(instance.seats.all())
        mine = next((seat.index for seat in seats if seat.user_id == user_id), None)
        return {
            "id": str(instance.public_id),
            "status": instance.status,
            "options": instance.options,
            "version": instance.version,
            "phase": instance.phase,
            "round": instance.round,
            "to_act_seat": instance.to_act_seat,
            "turn_since": _datetime(instance.turn_since),
            "created": _datetime(instance.created),
            "started": _datetime(instance.started),
            "finished": _datetime(instance.finished),
            "reminder_first_hours": instance.reminder_first_hours,
            "reminder_every_hours": instance.reminder_every_hours,
            "timeout_hours": instance.timeout_hours,
            "seats": [
                {
                    "index": seat.index,
                    "side": seat.side,
                    "colours": seat.colours,
                    "bot": seat.bot,
                    "player": seat.user.public_name if seat.user is not None else None,
                    "invited": bool(seat.invited_email) and seat.user_id is None,
                }
                for seat in seats
            ],
            "my_seat": mine,
            "my_turn": mine is not None and instance.status == Game.Status.ACTIVE and instance.to_act_seat == mine,
        }


_DATETIME = serializers.DateTimeField()


def _datetime(value: datetime | None) -> str | None:
    """A time as DRF writes it (ISO 8601 in the current time zone, "Z" for UTC)."""
    return None if value is None else _DATETIME.to_representation(value)


class StrictCharField(serializers.CharField):
    """A string, and only a string: DRF's CharField would store the number 8576
    as "8576", which the schema (type: string) says is refused."""

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        return str(super().to_internal_value(data))


class TokenSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField(read_only=True)
    # Names are trimmed: one of only spaces is blank, which the pattern says too.
    name = StrictCharField(max_length=80, validators=[RegexValidator(r"\S", "A name needs a visible character.")])
    prefix = serializers.CharField(read_only=True)
    created = serializers.DateTimeField(read_only=True)
    last_used = serializers.DateTimeField(read_only=True, allow_null=True)
    revoked = serializers.DateTimeField(read_only=True, allow_null=True)

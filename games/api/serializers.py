"""Request validation and the game bodies of the games API.

What comes from the engine (views, legal actions, events) has already had
its secrets stripped; ``games.api.bodies`` documents those shapes.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from games.engine.bots import SEAT_BOTS
from games.errors import GameError
from games.models import Game, Seat
from manhattan_site.strict_input import StrictBooleanField, StrictCharField, StrictIntegerField, StrictSerializer

from .bodies import LoggedEventSerializer, OptionsSerializer, PlayerViewSerializer, passthrough


class SeatSpecSerializer(StrictSerializer):
    kind = serializers.ChoiceField(choices=["me", "invite", "open", "bot"])
    email = serializers.EmailField(required=False, allow_blank=False)
    # Checked in ``validate``: a bot or level the server does not have is a refusal of its
    # own (422 ``unknown_bot``, with the choices), not a malformed field.
    bot = serializers.CharField(required=False, max_length=40, help_text="A bot (random, greedy, strong) or a level.")

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if attrs["kind"] == "invite" and not attrs.get("email"):
            raise serializers.ValidationError({"email": "An invited seat needs the invitee's email address."})
        if attrs["kind"] == "bot" and not attrs.get("bot"):
            raise serializers.ValidationError({"bot": f"Say which bot: {', '.join(SEAT_BOTS)}."})
        bot = attrs.get("bot")
        if bot is not None and bot not in SEAT_BOTS:
            raise GameError(
                "unknown_bot",
                f"There is no bot or bot level called {bot!r}: choose one of {', '.join(SEAT_BOTS)}.",
                choices=list(SEAT_BOTS),
            )
        return attrs


class GameOptionsSerializer(StrictSerializer):
    players = serializers.IntegerField(min_value=2, max_value=4, required=False, default=4)
    six_rounds = StrictBooleanField(required=False, default=False)
    copies_per_position = serializers.IntegerField(min_value=2, max_value=12, required=False, default=5)
    sides = serializers.ListField(
        child=serializers.ChoiceField(choices=["S", "W", "N", "E"]), required=False, allow_null=True
    )
    start_player = serializers.IntegerField(min_value=0, max_value=3, required=False, allow_null=True)


class ReminderPolicySerializer(StrictSerializer):
    first_hours = serializers.IntegerField(min_value=1, max_value=720, required=False, default=24)
    every_hours = serializers.IntegerField(min_value=1, max_value=720, required=False, default=48)
    timeout_hours = serializers.IntegerField(
        min_value=1, max_value=1440, required=False, allow_null=True, default=168,
        help_text="After this long the greedy bot moves for an absent player; null: never.",
    )  # fmt: skip


class CreateGameSerializer(StrictSerializer):
    name = StrictCharField(
        max_length=60, required=False, allow_blank=True, help_text="The game's name; empty: one is made up."
    )
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


class JoinSerializer(StrictSerializer):
    seat = serializers.IntegerField(min_value=0, max_value=3, required=False, allow_null=True)


def _action_schema(kind: str, required: list[str], **properties: Any) -> dict[str, Any]:
    return {
        "type": "object",
        "title": f"{kind.capitalize()}Action",
        "required": ["type", *required],
        "properties": {"type": {"type": "string", "enum": [kind]}, **properties},
        "additionalProperties": False,
    }


_COLOUR = {"type": "string", "enum": ["red", "blue", "green", "yellow"], "description": "Only to check: my colour."}


@extend_schema_field(
    {
        "oneOf": [
            _action_schema(
                "place",
                ["card", "city", "size"],
                card={"type": "integer", "minimum": 1, "maximum": 9, "description": "The card played (its lot)."},
                city={"type": "integer", "minimum": 1, "maximum": 6},
                size={"type": "integer", "minimum": 1, "maximum": 4},
                colour=_COLOUR,
            ),
            _action_schema(
                "select",
                ["pieces"],
                pieces={"type": "array", "items": {"type": "integer", "minimum": 1, "maximum": 4}},
                colour=_COLOUR,
            ),
            _action_schema("resign", []),
            _action_schema("undo", [], reason={"type": "string", "pattern": "^[^\\x00]*$"}),
            # No NUL: no JSON body may hold one (manhattan_site.strict_input), and the schema says so.
            {
                "type": "string",
                "minLength": 1,
                "maxLength": 500,
                "pattern": "^[^\\x00]+$",
                "description": "A move in notation.",
            },
        ]
    }
)
class ActionField(serializers.JSONField):
    """An action: a JSON object with a ``type``, or a move in notation (the
    engine says which actions are legal; the schema only gives the shape)."""


class ActionRequestSerializer(StrictSerializer):
    action = ActionField(
        help_text="The action as JSON ({'type': 'place', 'card': 5, 'city': 3, 'size': 2}) "
        "or as a string in move notation ('card 5 city 3 size 2')."
    )
    expected_version = StrictIntegerField(
        min_value=0,
        required=False,
        help_text="The version the action was made against, a JSON integer (or send If-Match; if both, they agree).",
    )


class SeatSerializer(serializers.Serializer[Any]):
    """A seat as anyone may see it (never an invitee's address)."""

    index = serializers.IntegerField()
    side = serializers.CharField(help_text="S, W, N or E once the game is dealt; empty before.")
    colours = serializers.ListField(child=serializers.CharField())
    bot = serializers.CharField(help_text="The bot's kind, or empty for a person.")
    player = serializers.SerializerMethodField()
    bot_account = serializers.SerializerMethodField(
        help_text="Whether the seat's player is a bot account (a program playing through the API)."
    )
    invited = serializers.SerializerMethodField()

    def get_player(self, seat: Seat) -> str | None:
        return seat.user.public_name if seat.user is not None else None

    def get_bot_account(self, seat: Seat) -> bool:
        return seat.user is not None and seat.user.is_bot

    def get_invited(self, seat: Seat) -> bool:
        """Whether the seat waits for an invitee (whose address is not shown)."""
        return bool(seat.invited_email) and seat.user_id is None


class GameSummarySerializer(serializers.Serializer[Any]):
    """A game in a list: who sits where, whose turn, the policy. Its seats
    must be loaded with it (``store.with_seats``).

    Declared field by field rather than derived from the model: a
    ModelSerializer builds its fields from the model on every use, which cost
    more than the rest of a move's response."""

    id = serializers.UUIDField(source="public_id")
    name = serializers.CharField(source="title", help_text="The game's name, given by its creator or made up.")
    status = serializers.ChoiceField(choices=Game.Status.choices)
    options = passthrough(OptionsSerializer, help_text="The game's options (players, six_rounds, sides, ...).")
    version = serializers.IntegerField(help_text="The sequence number of the game's last event.")
    phase = serializers.CharField()
    round = serializers.IntegerField()
    to_act_seat = serializers.IntegerField(allow_null=True)
    turn_since = serializers.DateTimeField(allow_null=True)
    created = serializers.DateTimeField()
    started = serializers.DateTimeField(allow_null=True)
    finished = serializers.DateTimeField(allow_null=True)
    reminder_first_hours = serializers.IntegerField()
    reminder_every_hours = serializers.IntegerField()
    timeout_hours = serializers.IntegerField(allow_null=True)
    public = serializers.BooleanField(help_text="Anyone may watch it (and it is listed under /watch).")
    seats: serializers.Field[Any, Any, Any, Any] = SeatSerializer(many=True, source="seats.all")
    my_seat = serializers.SerializerMethodField()
    my_turn = serializers.SerializerMethodField()

    def get_my_seat(self, game: Game) -> int | None:
        user = self.context["request"].user
        return next((seat.index for seat in game.seats.all() if seat.user_id == user.pk), None)

    def get_my_turn(self, game: Game) -> bool:
        seat = self.get_my_seat(game)
        return seat is not None and game.status == Game.Status.ACTIVE and game.to_act_seat == seat


class GameSerializer(GameSummarySerializer):
    """A game as the caller sees it: the summary and the board from their seat
    (``context["view"]``, the engine's view as JSON; null before the deal)."""

    # Its seats are the ones read with it (context["seats"]): store.load reads them
    # in the game's own statement, and that leaves game.seats unfilled.
    seats = serializers.SerializerMethodField()
    state = serializers.SerializerMethodField()

    @extend_schema_field(SeatSerializer(many=True))
    def get_seats(self, game: Game) -> list[dict[str, Any]]:
        return list(SeatSerializer(self.context["seats"], many=True).data)

    def get_my_seat(self, game: Game) -> int | None:
        user = self.context["request"].user
        return next((seat.index for seat in self.context["seats"] if seat.user_id == user.pk), None)

    @extend_schema_field(PlayerViewSerializer(allow_null=True))
    def get_state(self, game: Game) -> dict[str, Any] | None:
        view: dict[str, Any] | None = self.context.get("view")
        return view


class ActionResultSerializer(serializers.Serializer[Any]):
    """The answer to an accepted action: the new version, the events it made
    (as the caller may see them) and the game after it."""

    version = serializers.IntegerField()
    events = passthrough(LoggedEventSerializer, many=True, help_text="The events it made, as GET …/events gives them.")
    game = GameSerializer()

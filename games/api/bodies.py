"""The shapes of the API's response bodies that come from the engine.

A player view, the legal actions, a redacted event and a game record are
built by the engine (``to_json``) after it has stripped every secret; these
serializers only describe them, so that the OpenAPI schema gives each body
its real type. ``passthrough`` puts such a value into a response as it is,
documented by one of them.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from .talk import MessageSerializer

COLOURS = ["red", "blue", "green", "yellow"]
SIDES = ["S", "W", "N", "E"]
PHASES = ["selection", "placement", "round_over", "finished"]


def _counts_schema(description: str) -> dict[str, Any]:
    return {
        "type": "object",
        "description": description,
        "properties": {size: {"type": "integer", "minimum": 0} for size in "1234"},
        "required": list("1234"),
    }


@extend_schema_field(_counts_schema("Pieces by size (storeys 1 to 4)."))
class PieceCountsField(serializers.DictField):
    pass


@extend_schema_field(
    {
        "type": "object",
        "description": "Storeys of each colour in the building.",
        "additionalProperties": {"type": "integer"},
    }
)
class StoreysField(serializers.DictField):
    pass


class OptionsSerializer(serializers.Serializer[Any]):
    """A game's options as stored. Unlike a new game's request (letters), ``sides``
    holds side numbers here: 0 S, 1 W, 2 N, 3 E, one per seat in seat order."""

    players = serializers.IntegerField(min_value=2, max_value=4)
    six_rounds = serializers.BooleanField()
    copies_per_position = serializers.IntegerField()
    sides = serializers.ListField(
        child=serializers.IntegerField(min_value=0, max_value=3),
        allow_null=True,
        help_text="The side of each seat, in seat order: 0 S, 1 W, 2 N, 3 E; null: dealt at random.",
    )
    start_player = serializers.IntegerField(allow_null=True, help_text="The seat that starts; null: at random.")


class ViewPlayerSerializer(serializers.Serializer[Any]):
    seat = serializers.IntegerField()
    side = serializers.ChoiceField(choices=SIDES)
    colours = serializers.ListField(child=serializers.ChoiceField(choices=COLOURS))
    hand_size = serializers.IntegerField()
    discards = serializers.ListField(child=serializers.IntegerField(), help_text="Cards played, 1–9, in order.")
    score = serializers.IntegerField()
    resigned = serializers.BooleanField()


class PlacedPieceSerializer(serializers.Serializer[Any]):
    colour = serializers.ChoiceField(choices=COLOURS)
    size = serializers.IntegerField()


class BuildingSerializer(serializers.Serializer[Any]):
    owner = serializers.ChoiceField(choices=COLOURS)
    height = serializers.IntegerField()
    pieces = PlacedPieceSerializer(many=True, help_text="Bottom to top.")
    storeys = StoreysField()


class ColourSupplySerializer(serializers.Serializer[Any]):
    reserve = PieceCountsField()
    selection = PieceCountsField(help_text="This round's pieces not placed yet.")
    lost = serializers.IntegerField()
    score = serializers.IntegerField()


class PlayerViewSerializer(serializers.Serializer[Any]):
    """A game as one seat (or a spectator, ``seat`` null) may see it: no other hand, no deck order."""

    seat = serializers.IntegerField(allow_null=True)
    options = OptionsSerializer()
    players = ViewPlayerSerializer(many=True)
    hand = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=9), allow_null=True, help_text="My cards, 1–9."
    )
    draw_pile_size = serializers.IntegerField()
    round = serializers.IntegerField()
    rounds = serializers.IntegerField()
    phase = serializers.ChoiceField(choices=PHASES)
    to_act = serializers.IntegerField(allow_null=True)
    selecting_colour = serializers.ChoiceField(choices=COLOURS, allow_null=True)
    start_player = serializers.IntegerField()
    colours = serializers.DictField(child=ColourSupplySerializer(), help_text="Per colour that is in the game.")
    round_scores = serializers.ListField(child=serializers.DictField(child=serializers.IntegerField()))
    board = serializers.ListField(
        child=serializers.ListField(child=BuildingSerializer(allow_null=True), min_length=9, max_length=9),
        min_length=6,
        max_length=6,
        help_text="Six cities (1–6 in order), each nine lots (1–9, row by row, seen from the south); "
        "an empty lot is null.",
    )
    colour_names = serializers.ListField(child=serializers.ChoiceField(choices=COLOURS))
    winners = serializers.ListField(child=serializers.IntegerField())
    version = serializers.IntegerField()


class PlacementOptionSerializer(serializers.Serializer[Any]):
    city = serializers.IntegerField(min_value=1, max_value=6)
    lot = serializers.IntegerField(min_value=1, max_value=9)
    size = serializers.IntegerField(min_value=1, max_value=4)
    colour = serializers.ChoiceField(choices=COLOURS)


class CardPlacementsSerializer(serializers.Serializer[Any]):
    card = serializers.IntegerField(min_value=1, max_value=9)
    options = PlacementOptionSerializer(many=True)


class SelectionChoiceSerializer(serializers.Serializer[Any]):
    colour = serializers.ChoiceField(choices=COLOURS)
    count = serializers.IntegerField(help_text="How many pieces to select.")
    reserve = PieceCountsField()


class LegalActionsSerializer(serializers.Serializer[Any]):
    """What I may do now: a selection, or every legal placement grouped by card."""

    seat = serializers.IntegerField()
    phase = serializers.ChoiceField(choices=PHASES)
    my_turn = serializers.BooleanField()
    selection = SelectionChoiceSerializer(allow_null=True)
    placements = CardPlacementsSerializer(many=True)
    can_resign = serializers.BooleanField()
    version = serializers.IntegerField(help_text="Send it back as expected_version (or If-Match).")


class EventSerializer(serializers.Serializer[Any]):
    """One event of the log as the caller may see it (other hands and the deck order redacted).
    Positions inside events are 0-based; see docs/engine.md for each type's fields."""

    type = serializers.ChoiceField(
        choices=[
            "game_created",
            "pieces_selected",
            "piece_placed",
            "hand_redrawn",
            "piece_lost",
            "round_scored",
            "round_started",
            "game_finished",
            "player_resigned",
            "placement_undone",
        ]
    )
    v = serializers.IntegerField(help_text="The event's schema version.")


class LoggedEventSerializer(EventSerializer):
    seq = serializers.IntegerField(help_text="1 for the deal; the game's version is its last event's seq.")
    created = serializers.DateTimeField()


class EventsSerializer(serializers.Serializer[Any]):
    version = serializers.IntegerField()
    events = LoggedEventSerializer(many=True)
    messages = MessageSerializer(
        many=True, required=False, help_text="The table talk, for the game's players only (never for others)."
    )


class StateAtSerializer(serializers.Serializer[Any]):
    n = serializers.IntegerField()
    version = serializers.IntegerField()
    state = PlayerViewSerializer(help_text="The public (spectator) view after event n.")


class RecordSerializer(serializers.Serializer[Any]):
    """A finished game's record, as shared/RECORD.md describes it."""

    format = serializers.CharField()
    players = serializers.IntegerField()
    options = serializers.DictField()
    sides = serializers.ListField(child=serializers.ChoiceField(choices=SIDES))
    colours = serializers.ListField(child=serializers.ListField(child=serializers.ChoiceField(choices=COLOURS)))
    rounds = serializers.ListField(child=serializers.DictField())
    totals = serializers.DictField(child=serializers.IntegerField())
    player_totals = serializers.ListField(child=serializers.IntegerField())
    winners = serializers.ListField(child=serializers.IntegerField())


def passthrough(
    document: type[serializers.Serializer[Any]], *, many: bool = False, **kwargs: Any
) -> serializers.Field[Any, Any, Any, Any]:
    """A field that puts a value built by the engine into the response as it
    is, documented in the schema by ``document`` (a list of them if ``many``)."""

    @extend_schema_field(document(many=True) if many else document)
    class Passthrough(serializers.Field[Any, Any, Any, Any]):
        def to_representation(self, value: Any) -> Any:
            return value

    return Passthrough(read_only=True, **kwargs)

"""Examples of the main bodies, for the OpenAPI schema (and Swagger UI's "Try it out")."""

from drf_spectacular.utils import OpenApiExample

CREATE_EXAMPLES = [
    OpenApiExample(
        "Me against the greedy bot",
        value={"seats": [{"kind": "me"}, {"kind": "bot", "bot": "greedy"}], "options": {"players": 2}},
        request_only=True,
    ),
    OpenApiExample(
        "Four players, sides chosen, a friend invited",
        value={
            "seats": [{"kind": "me"}, {"kind": "invite", "email": "friend@example.com"}, {"kind": "open"},
                      {"kind": "bot", "bot": "strong"}],
            "options": {"players": 4, "sides": ["S", "N", "W", "E"], "start_player": 0},
            "reminders": {"first_hours": 24, "every_hours": 48, "timeout_hours": 168},
        },
        request_only=True,
    ),
]  # fmt: skip
ACTION_EXAMPLES = [
    OpenApiExample(
        "Select pieces", value={"action": {"type": "select", "pieces": [1, 1, 2, 2, 3, 4]}, "expected_version": 1},
        request_only=True,
    ),
    OpenApiExample(
        "Place a piece", value={"action": {"type": "place", "card": 5, "city": 3, "size": 2}, "expected_version": 7},
        request_only=True,
    ),
    OpenApiExample(
        "The same move in notation", value={"action": "card 5 city 3 size 2", "expected_version": 7},
        request_only=True,
    ),
]  # fmt: skip
LEGAL_ACTIONS_EXAMPLE = OpenApiExample(
    "My turn to place",
    value={
        "seat": 0, "phase": "placement", "my_turn": True, "selection": None, "can_resign": True, "version": 7,
        "placements": [{"card": 5, "options": [{"city": 3, "lot": 5, "size": 2, "colour": "red"}]}],
    },
    response_only=True,
)  # fmt: skip

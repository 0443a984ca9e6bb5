"""The move controls of a game's page: the selection form's sizes, the
placement form's choices (as sent back after a refusal), and where the last
building went, from the shown position's recent events."""

from __future__ import annotations

from typing import Any

from games import engine
from games.engine import COLOUR_NAMES, PlayerView
from games.presentation import table, vocabulary


def last_placement(recent: list[engine.Event]) -> tuple[int, int] | None:
    """Where the last building of the shown position was placed (city, lot; 0-based)."""
    for event in reversed(recent):
        if event["type"] == "placement_undone":
            return None
        if event["type"] == "piece_placed":
            return int(event["city"]), int(event["lot"])
    return None


def select_context(choice: Any, data: Any) -> dict[str, Any]:
    return {
        "colour": COLOUR_NAMES[choice.colour],
        "colour_label": vocabulary.colour_label(choice.colour),
        "count": choice.count,
        "sizes": [
            {"size": s, "reserve": choice.reserve[s - 1], "value": data.get(f"size_{s}", "0") or "0"}
            for s in (1, 2, 3, 4)
        ],
    }


def place_context(view: PlayerView, hand: list[table.HandCard], data: Any) -> dict[str, Any]:
    assert view.seat is not None
    my_colours = view.colours[view.seat]
    chosen_card = str(data.get("card", ""))
    card_checked = next((c.index for c in hand if str(c.card) == chosen_card), None)
    sizes = []
    for s in (1, 2, 3, 4):
        left = sum(view.selection[c][s - 1] for c in my_colours)
        if left:
            sizes.append({"size": s, "left": left, "checked": str(data.get("size", "")) == str(s)})
    colours = []
    if len(my_colours) > 1:
        for c in my_colours:
            pieces = [s for s in (1, 2, 3, 4) for _n in range(view.selection[c][s - 1])]
            if pieces:
                colours.append(
                    {
                        "name": COLOUR_NAMES[c],
                        "label": vocabulary.colour_label(c),
                        "pieces": ", ".join(map(str, pieces)),
                        "checked": data.get("colour", "") == COLOUR_NAMES[c],
                    }
                )
    return {
        "card_checked": card_checked,
        "sizes": sizes,
        "colours": colours,
        "cities": [{"city": c, "checked": str(data.get("city", "")) == str(c)} for c in range(1, 7)],
    }

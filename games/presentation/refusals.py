"""Why a move was refused, in the reader's language.

The engine refuses with a ``message_id`` and the ``params`` its English
template names (``games/engine/messages.py``); here each template a player
can meet is a message of the site's catalogues, filled in with the params
(colours and parts of a move translated too) and put after its rule once:
"R9: …". A refusal without a known template keeps the engine's English.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from .vocabulary import COLOUR_LABELS

TEMPLATES: dict[str, Promise] = {
    # The rules (games/engine/messages.py, RULE_MESSAGES)
    "game_finished": _("the game is over; no more actions can be taken."),
    "not_a_player": _("Only a player of this game can act."),
    "player_resigned": _("You have resigned from this game."),
    "undo_forbidden": _("Only the operator of the server can undo a placement."),
    "select_wrong_phase": _("pieces are selected only at the start of a round."),
    "select_out_of_turn": _("another player selects their pieces now."),
    "select_colour_first": _("select the pieces of {colour} first."),
    "selection_count": _("select exactly {k} pieces; you chose {chosen}."),
    "selection_no_such_size": _("there is no piece of size {size}."),
    "selection_not_in_reserve": _("you chose {chosen} piece(s) of size {size} but only {left} remain in your reserve."),
    "selection_not_sizes": _("'pieces' must be a list of piece sizes from 1 to 4."),
    "place_wrong_phase": _("pieces are placed only after every colour has selected."),
    "place_out_of_turn": _("it is another player's turn."),
    "bad_card": _("a card shows one of the positions 1 to 9."),
    "bad_city": _("the cities are numbered 1 to 6."),
    "bad_size": _("pieces have 1 to 4 storeys."),
    "bad_colour": _("the colours are red, blue, green and yellow."),
    "card_not_in_hand": _("you do not hold card {card}; your hand is {hand}."),
    "piece_not_in_supply": _(
        "only this round's selected pieces can be placed, and {colour} has no {size}-storey piece left (left: {left})."
    ),
    "piece_not_in_supply_none_left": _(
        "only this round's selected pieces can be placed, and {colour} has no {size}-storey piece left (left: none)."
    ),
    "piece_not_in_supply_either": _(
        "only this round's selected pieces can be placed, and neither of your colours has a {size}-storey piece left."
    ),
    "takeover_too_small": _(
        "you need at least {need} storeys in this building to take it over from {owner}; this piece gives you {mine}."
    ),
    "not_your_colour": _("you do not play {colour}."),
    "colour_required": _("say which colour places this piece: {colour} or {other_colour}."),
    # The notation (NOTATION_MESSAGES)
    "empty": _("The move is empty: write e.g. 'card 5 city 3 size 2'."),
    "not_text": _("A move is written as text, e.g. 'card 5 city 3 size 2'."),
    "not_ascii_digit": _("only the digits 0 to 9 count in a move (at '{token}', column {column})."),
    "resign_alone": _("'resign' takes nothing after it (at '{token}', column {column})."),
    "selection_size": _("pieces have sizes 1 to 4 (at '{token}', column {column})."),
    "selection_word": _("expected piece sizes such as 'select 1 1 2 3 4 4' (at '{token}', column {column})."),
    "selection_empty": _("Say which pieces to select, e.g. 'select 1 1 2 3 4 4'."),
    "given_twice": _("{part} is given twice (at '{token}', column {column})."),
    "number_expected": _("expected a number after '{word}' (at '{token}', column {column})."),
    "colour_twice": _("the colour is given twice (at '{token}', column {column})."),
    "unknown_word": _("unknown word; write e.g. 'card 5 city 3 size 2' (at '{token}', column {column})."),
    "ambiguous_numbers": _(
        "a bare number is ambiguous: write 'card N city N size N', or just three numbers "
        "(at '{token}', column {column})."
    ),
    "missing_part": _("The move has no {part}: write e.g. 'card 5 city 3 size 2'."),
    "out_of_range": _("{part} must be from {lo} to {hi} (at '{token}', column {column})."),
}
PARTS: dict[str, Promise] = {"card": _("card"), "city": _("city"), "size": _("size")}
_COLOUR_PARAMS = ("colour", "other_colour", "owner")


def _params(params: Mapping[str, Any]) -> dict[str, Any]:
    words = dict(params)
    for name in _COLOUR_PARAMS:
        if words.get(name) in COLOUR_LABELS:
            words[name] = str(COLOUR_LABELS[words[name]])
    if words.get("part") in PARTS:
        words["part"] = str(PARTS[words["part"]])
    return words


def refusal_text(message: str, *, rule: str = "", message_id: str = "", params: Mapping[str, Any] | None = None) -> str:
    """The refusal in the active language, without its rule (for a page that
    shows the rule as a badge). The engine's English ``message`` when its
    template is not one of ours."""
    english = message[len(rule) + 2 :] if rule and message.startswith(f"{rule}: ") else message
    template = TEMPLATES.get(message_id)
    if template is None:
        return english
    try:
        return str(template).format(**_params(params or {}))
    except (KeyError, IndexError, ValueError):  # a catalogue that lost a placeholder: the English is right
        return english


def explained(message: str, *, rule: str = "", message_id: str = "", params: Mapping[str, Any] | None = None) -> str:
    """The refusal in the active language, after its rule once: "R9: …"."""
    text = refusal_text(message, rule=rule, message_id=message_id, params=params)
    return f"{rule}: {text}" if rule else text

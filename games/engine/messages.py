"""Every refusal the engine can give, as a template the site can translate.

Each entry is ``message_id: (code, rule, template)``. ``code`` is the stable
code clients switch on (several messages may share one); ``message_id`` names
the one template; ``rule`` is the rule it enforces, if any. The English
message of an error is ``"<rule>: " + template.format(**params)`` (or the
bare template without a rule), so a site that renders its own translation of
the template puts the rule in front once. Colour names in params are the
English names (red, blue, green, yellow), for the site to translate with its
own colour labels; card and city numbers are 1-based, as players see them.
docs/engine.md lists this catalogue; a test keeps the two equal.

These templates are written here only: each is also the message id of its
translation in the site's catalogues (``locale/``), found there by
``makemessages`` through ``gettext_noop`` below, and translated by the site in
one place (``games/presentation/refusals.py``), keyed by ``message_id``.
"""

from __future__ import annotations

from typing import Final


def gettext_noop(template: str) -> str:
    """Marks ``template`` for the site's catalogues and returns it unchanged.

    The name is the one ``makemessages`` (xgettext) looks for, as with Django's
    function of that name; the engine itself stays English and free of Django.
    """
    return template


RULE_MESSAGES: Final[dict[str, tuple[str, str | None, str]]] = {
    # --- who may act, and when
    "game_finished": ("game_finished", "R19", gettext_noop("the game is over; no more actions can be taken.")),
    "not_a_player": ("not_your_turn", None, gettext_noop("Only a player of this game can act.")),
    "player_resigned": ("player_resigned", None, gettext_noop("You have resigned from this game.")),
    "undo_forbidden": ("undo_forbidden", None, gettext_noop("Only the operator of the server can undo a placement.")),
    "undo_unavailable": (
        "undo_unavailable",
        None,
        gettext_noop(
            "Only the last placement can be undone, and only before anything else has happened "
            "(another placement, a redraw, a reshuffle or the end of the round)."
        ),
    ),
    "unknown_action": (
        "bad_action",
        None,
        gettext_noop("Unknown action: a {kind} is not one of place, select, resign or undo."),
    ),
    "undo_reason": ("bad_action", None, gettext_noop("'reason' must be text.")),
    # --- R9 selection
    "select_wrong_phase": ("wrong_phase", "R9", gettext_noop("pieces are selected only at the start of a round.")),
    "select_out_of_turn": ("not_your_turn", "R9", gettext_noop("another player selects their pieces now.")),
    "select_colour_first": ("not_your_turn", "R9", gettext_noop("select the pieces of {colour} first.")),
    "selection_count": ("bad_selection", "R9", gettext_noop("select exactly {k} pieces; you chose {chosen}.")),
    "selection_no_such_size": ("bad_selection", "R9", gettext_noop("there is no piece of size {size}.")),
    "selection_not_in_reserve": (
        "bad_selection",
        "R9",
        gettext_noop("you chose {chosen} piece(s) of size {size} but only {left} remain in your reserve."),
    ),
    "selection_not_sizes": ("bad_selection", "R9", gettext_noop("'pieces' must be a list of piece sizes from 1 to 4.")),
    # --- R10 placement
    "place_wrong_phase": (
        "wrong_phase",
        "R10",
        gettext_noop("pieces are placed only after every colour has selected."),
    ),
    "place_out_of_turn": ("not_your_turn", "R10", gettext_noop("it is another player's turn.")),
    "bad_card": ("bad_card", "R3", gettext_noop("a card shows one of the positions 1 to 9.")),
    "bad_city": ("bad_city", "R1", gettext_noop("the cities are numbered 1 to 6.")),
    "bad_size": ("bad_size", "R2", gettext_noop("pieces have 1 to 4 storeys.")),
    "bad_colour": ("bad_colour", "R2", gettext_noop("the colours are red, blue, green and yellow.")),
    "card_not_in_hand": ("card_not_in_hand", "R10", gettext_noop("you do not hold card {card}; your hand is {hand}.")),
    "piece_not_in_supply": (
        "piece_not_in_supply",
        "R9",
        gettext_noop(
            "only this round's selected pieces can be placed, "
            "and {colour} has no {size}-storey piece left (left: {left})."
        ),
    ),
    "piece_not_in_supply_none_left": (
        "piece_not_in_supply",
        "R9",
        gettext_noop(
            "only this round's selected pieces can be placed, "
            "and {colour} has no {size}-storey piece left (left: none)."
        ),
    ),
    "piece_not_in_supply_either": (
        "piece_not_in_supply",
        "R9",
        gettext_noop(
            "only this round's selected pieces can be placed, "
            "and neither of your colours has a {size}-storey piece left."
        ),
    ),
    "takeover_too_small": (
        "takeover_too_small",
        "R14",
        gettext_noop(
            "you need at least {need} storeys in this building to take it over from {owner}; "
            "this piece gives you {mine}."
        ),
    ),
    "not_your_colour": ("not_your_colour", "R15", gettext_noop("you do not play {colour}.")),
    "colour_required": (
        "colour_required",
        "R15",
        gettext_noop("say which colour places this piece: {colour} or {other_colour}."),
    ),
    # --- game options
    "option_players": ("bad_option", "R7", gettext_noop("Manhattan is played by 2, 3 or 4 players.")),
    "option_six_rounds": ("bad_option", "R7", gettext_noop("six_rounds must be true or false.")),
    "option_copies": (
        "bad_option",
        "R3",
        gettext_noop("copies_per_position must be a whole number from 2 to 12 (5 gives the 45-card deck)."),
    ),
    "option_sides": (
        "bad_option",
        "R5",
        gettext_noop("sides must give each player a different side of the board (S, W, N or E)."),
    ),
    "option_sides_list": ("bad_option", "R5", gettext_noop("sides must be a list.")),
    "option_start_player": ("bad_option", "R8", gettext_noop("the start player must be one of the seats.")),
    "option_unknown": ("bad_option", None, gettext_noop("Unknown option(s): {names}.")),
    "options_not_object": ("bad_option", None, gettext_noop("The options must be a JSON object.")),
    # --- the API's JSON form of an action
    "json_not_object": ("bad_action", None, gettext_noop("An action must be a JSON object with a 'type'.")),
    "json_type": ("bad_action", None, gettext_noop("An action's 'type' must be one of place, select, resign.")),
    "json_card": ("bad_card", None, gettext_noop("'card' must be a whole number from 1 to 9.")),
    "json_card_range": ("bad_card", None, gettext_noop("'card' must be from 1 to 9; got {value}.")),
    "json_city": ("bad_city", None, gettext_noop("'city' must be a whole number from 1 to 6.")),
    "json_city_range": ("bad_city", None, gettext_noop("'city' must be from 1 to 6; got {value}.")),
    "json_size": ("bad_size", None, gettext_noop("'size' must be a whole number from 1 to 4.")),
    "json_size_range": ("bad_size", None, gettext_noop("'size' must be from 1 to 4; got {value}.")),
    "json_colour": ("bad_colour", None, gettext_noop("'colour' must be one of red, blue, green, yellow.")),
}
"""``RuleError``: message_id -> (code, rule, English template)."""

NOTATION_MESSAGES: Final[dict[str, str]] = {
    "empty": gettext_noop("The move is empty: write e.g. 'card 5 city 3 size 2'."),
    "not_text": gettext_noop("A move is written as text, e.g. 'card 5 city 3 size 2'."),
    "not_ascii_digit": gettext_noop("only the digits 0 to 9 count in a move (at '{token}', column {column})."),
    "resign_alone": gettext_noop("'resign' takes nothing after it (at '{token}', column {column})."),
    "selection_size": gettext_noop("pieces have sizes 1 to 4 (at '{token}', column {column})."),
    "selection_word": gettext_noop(
        "expected piece sizes such as 'select 1 1 2 3 4 4' (at '{token}', column {column})."
    ),
    "selection_empty": gettext_noop("Say which pieces to select, e.g. 'select 1 1 2 3 4 4'."),
    "given_twice": gettext_noop("{part} is given twice (at '{token}', column {column})."),
    "number_expected": gettext_noop("expected a number after '{word}' (at '{token}', column {column})."),
    "colour_twice": gettext_noop("the colour is given twice (at '{token}', column {column})."),
    "unknown_word": gettext_noop("unknown word; write e.g. 'card 5 city 3 size 2' (at '{token}', column {column})."),
    "ambiguous_numbers": (
        gettext_noop(
            "a bare number is ambiguous: write 'card N city N size N', or just three numbers "
            "(at '{token}', column {column})."
        )
    ),
    "missing_part": gettext_noop("The move has no {part}: write e.g. 'card 5 city 3 size 2'."),
    "out_of_range": gettext_noop("{part} must be from {lo} to {hi} (at '{token}', column {column})."),
}
"""``NotationError`` (code ``bad_notation``): message_id -> English template.
``part`` is one of the English words card, city, size."""

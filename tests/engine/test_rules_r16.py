"""R16: a player who cannot place redraws their hand, or loses a piece.

Every position is built by hand: seat 1 (blue, sitting west) is the player
in trouble. Card 0 read from the west names lot 2 of each city; a red
2-storey building on that lot in every city is out of reach for a blue
player holding only 1-storey pieces, while the centre lot (card 4) is empty.
"""

import math

import pytest

from games.engine import PlacePiece, SelectPieces, redact_event
from games.engine.constants import HAND_SIZE
from games.engine.events import HAND_REDRAWN, PIECE_LOST, PIECE_PLACED, PIECES_SELECTED, apply_event
from games.engine.rules import any_lot_accepts, has_legal_placement
from games.engine.state import PLACEMENT, SELECTION
from tests.support.engine_positions import (
    BLUE,
    CENTRE,
    GREEN,
    RED,
    YELLOW,
    S,
    W,
    card_total,
    empty_board,
    execute,
    fill_board,
    fill_lot_everywhere,
    lot_of,
    placement_position,
    run_advance,
    tower,
    types,
)

BLOCKED_CARD = 0
BLOCKED_LOT = lot_of(W, BLOCKED_CARD)  # lot 2: the top-right corner seen from the south
RED_PAIR = tower((RED, 2))


def _blocked_board():
    return fill_lot_everywhere(empty_board(), BLOCKED_LOT, RED_PAIR)


def _stuck_position(*, draw_pile, discards=None, selection=None, copies_per_position=5, board=None):
    """Seat 1 (blue, west) to act with four blocked cards and only 1-storey pieces."""
    return placement_position(
        4,
        to_act=1,
        board=board if board is not None else _blocked_board(),
        hands={1: [BLOCKED_CARD] * 4},
        selection=selection or {BLUE: [1, 1]},
        draw_pile=draw_pile,
        discards=discards if discards is not None else {0: [], 1: [], 2: [], 3: []},
        copies_per_position=copies_per_position,
    )


def test_r16_the_position_is_really_stuck_but_some_lot_accepts():
    state = _stuck_position(draw_pile=[CENTRE])
    assert BLOCKED_LOT == 2
    mine = {BLUE: state.selection[BLUE]}
    assert not has_legal_placement(state.board, state.hands[1], W, mine)
    assert any_lot_accepts(state.board, mine)
    # With a 2-storey piece blue could take the red buildings over: not stuck.
    assert has_legal_placement(state.board, state.hands[1], W, {BLUE: [0, 1, 0, 0]})


def test_r16_a_player_with_a_legal_placement_does_not_redraw():
    state = _stuck_position(draw_pile=[CENTRE])
    state.hands[1] = [BLOCKED_CARD, BLOCKED_CARD, BLOCKED_CARD, CENTRE]
    new, events = run_advance(state)
    assert events == []
    assert new.to_act == 1
    assert new.hands[1] == state.hands[1]


def test_r16_redraw_gives_a_legal_placement_then_the_player_places():
    # Top of the pile is the last element: the redraw takes 0, 0, 0 and then the centre card.
    pile = [8, 8, CENTRE, BLOCKED_CARD, BLOCKED_CARD, BLOCKED_CARD]
    state = _stuck_position(draw_pile=pile)
    new, events = run_advance(state)
    assert types(events) == [HAND_REDRAWN]
    redraw = events[0]
    assert redraw["player"] == 1
    assert redraw["discarded"] == [BLOCKED_CARD] * 4
    assert redraw["drew"] == [BLOCKED_CARD, BLOCKED_CARD, BLOCKED_CARD, CENTRE]
    assert "reshuffle" not in redraw
    # The hand was shown and discarded; four new cards were drawn.
    assert new.discards[1] == [BLOCKED_CARD] * 4
    assert sorted(new.hands[1]) == sorted(redraw["drew"])
    assert new.draw_pile == [8, 8]
    assert card_total(new) == card_total(state)
    # Still seat 1's turn, now with a legal placement.
    assert new.phase == PLACEMENT
    assert new.to_act == 1
    after, placed = execute(new, 1, PlacePiece(card=CENTRE, city=3, size=1))
    assert placed[0]["type"] == PIECE_PLACED
    assert after.board[3 * 9 + CENTRE] == tower((BLUE, 1))


def test_r16_the_shown_hand_is_public():
    state = _stuck_position(draw_pile=[CENTRE, 0, 0, 0])
    _, events = run_advance(state)
    for seat in (0, 2, 3, None):
        seen = redact_event(events[0], seat)
        assert seen["discarded"] == [BLOCKED_CARD] * 4
        assert seen["drew"] is None
        assert seen["drew_count"] == 4
    assert redact_event(events[0], 1)["drew"] == events[0]["drew"]


def test_r16_redraws_repeat_until_a_legal_placement_exists():
    blocked = [BLOCKED_CARD] * 4
    pile = [8, CENTRE, *blocked[:3], *blocked, *blocked]  # two useless redraws, then the centre
    state = _stuck_position(draw_pile=pile)
    new, events = run_advance(state)
    assert types(events) == [HAND_REDRAWN] * 3
    assert [e["drew"] for e in events] == [blocked, blocked, [*blocked[:3], CENTRE]]
    # Each redraw discards the hand the previous one drew.
    assert events[1]["discarded"] == events[0]["drew"]
    assert events[2]["discarded"] == events[1]["drew"]
    assert new.discards[1] == blocked * 3
    assert new.draw_pile == [8]
    assert new.to_act == 1
    assert CENTRE in new.hands[1]
    assert new.lost[BLUE] == 0


def test_r16_r11_redraw_reshuffles_the_discards_when_the_pile_runs_out():
    # Two cards left: the redraw takes them, then reshuffles every discard pile
    # (the shown hand included) into a new pile for the other two.
    state = _stuck_position(
        draw_pile=[BLOCKED_CARD, BLOCKED_CARD],
        discards={0: [CENTRE], 1: [], 2: [7], 3: []},
    )
    new, events = run_advance(state)
    first = events[0]
    assert first["type"] == HAND_REDRAWN
    assert sorted(first["reshuffle"]) == sorted([CENTRE, 7, *[BLOCKED_CARD] * 4])
    assert first["drew"][:2] == [BLOCKED_CARD, BLOCKED_CARD]
    assert first["drew"][2:] == first["reshuffle"][::-1][:2]
    after_first = apply_event(state, first)
    assert after_first.discards == [[], [], [], []]
    assert after_first.draw_pile == first["reshuffle"][:-2]
    assert sorted(after_first.hands[1]) == sorted(first["drew"])
    assert card_total(after_first) == card_total(state)
    assert card_total(new) == card_total(state)


def test_r16_piece_lost_when_no_lot_anywhere_accepts_any_piece():
    # Every lot of every city holds a red 2-storey building; blue has only 1s.
    board = fill_board(RED_PAIR)
    state = _stuck_position(draw_pile=[CENTRE] * 8, board=board, selection={BLUE: [1, 1, 1]})
    assert not any_lot_accepts(board, {BLUE: state.selection[BLUE]})
    new, events = run_advance(state)
    # No redraw could help, so none happens: the smallest piece is lost at once.
    assert types(events) == [PIECE_LOST]
    assert events[0] == {**events[0], "player": 1, "colour": BLUE, "size": 1}
    assert new.selection[BLUE] == [2, 0, 0, 0]
    assert new.lost[BLUE] == 1
    assert new.reserve[BLUE] == state.reserve[BLUE]
    assert new.hands[1] == state.hands[1]
    # The turn passes on to the next player clockwise (green can take over with a 2).
    assert new.to_act == 2
    assert new.board == state.board


def test_r16_the_smallest_unplaced_round_piece_is_lost():
    board = fill_board(tower((RED, 4)))
    state = _stuck_position(draw_pile=[CENTRE] * 8, board=board, selection={BLUE: [3, 2, 3, 2]})
    new, events = run_advance(state)
    assert events[0]["type"] == PIECE_LOST
    assert events[0]["size"] == 2
    assert new.selection[BLUE] == [0, 1, 2, 0]


@pytest.mark.parametrize(("copies", "limit"), [(5, 12), (7, 16), (2, 5), (3, 7)])
def test_r16_piece_lost_after_deck_size_over_four_redraws(copies, limit):
    assert limit == math.ceil(9 * copies / HAND_SIZE)
    # Only blocked cards anywhere: the pile, the hand, every discard pile.
    state = _stuck_position(draw_pile=[BLOCKED_CARD] * 6, copies_per_position=copies)
    new, events = run_advance(state)
    assert types(events) == [HAND_REDRAWN] * limit + [PIECE_LOST]
    lost = events[-1]
    assert (lost["player"], lost["colour"], lost["size"]) == (1, BLUE, 1)
    assert new.selection[BLUE] == [1, 0, 0, 0]
    assert new.lost[BLUE] == 1
    assert new.to_act == 2
    # Reshuffles happened along the way (6 cards in the pile cannot feed 12 redraws).
    assert any("reshuffle" in e for e in events)
    assert card_total(new) == card_total(state)


def test_r16_redraw_limit_is_per_turn():
    # Seat 1 is stuck again on their next turn: they get the full number of redraws again.
    state = _stuck_position(draw_pile=[BLOCKED_CARD] * 6, selection={BLUE: [1, 1]})
    new, events = run_advance(state)
    assert types(events).count(HAND_REDRAWN) == 12
    new.to_act = 1
    again, events2 = run_advance(new)
    assert types(events2) == [HAND_REDRAWN] * 12 + [PIECE_LOST]
    assert again.selection[BLUE] == [0, 0, 0, 0]
    assert again.lost[BLUE] == 2


def test_r16_previous_players_placement_triggers_the_redraw():
    # Seat 0 (red, south) plays the centre card into city 1; then seat 1 is stuck.
    # The pile's top card goes to seat 0, the next four to seat 1's redraw.
    pile = [8, CENTRE, BLOCKED_CARD, BLOCKED_CARD, BLOCKED_CARD, 6]
    state = _stuck_position(draw_pile=pile)
    state.to_act = 0
    state.hands[0] = [CENTRE, 5, 5, 5]
    new, events = execute(state, 0, PlacePiece(card=CENTRE, city=1, size=1))
    assert types(events) == [PIECE_PLACED, HAND_REDRAWN]
    assert events[0]["drew"] == 6
    assert events[1]["player"] == 1
    assert events[1]["drew"] == [BLOCKED_CARD, BLOCKED_CARD, BLOCKED_CARD, CENTRE]
    assert new.to_act == 1
    # The events fold onto the position they were decided on.
    replay = state
    for e in events:
        replay = apply_event(replay, e)
    assert replay == new


def test_r16_start_of_placement_triggers_the_check_for_the_start_player():
    # Seat 1 starts the round; yellow (seat 3) is the last colour to select.
    state = _stuck_position(draw_pile=[CENTRE] * 8, board=fill_board(RED_PAIR))
    state.start_player = 1
    state.phase = SELECTION
    state.selection_queue = [YELLOW]
    state.selection[YELLOW] = [0, 0, 0, 0]
    state.reserve[YELLOW] = [11, 6, 4, 3]
    state.to_act = 3
    new, events = execute(state, 3, SelectPieces((1, 2, 2, 3, 4, 4)))
    assert types(events)[:2] == [PIECES_SELECTED, PIECE_LOST]
    assert events[1]["player"] == 1
    assert new.to_act == 2


# --- two players ------------------------------------------------------------------


def _two_player_stuck(selection, *, player=0, board_owner=BLUE):
    board = fill_board(tower((board_owner, 4)))
    return placement_position(
        2,
        to_act=player,
        board=board,
        selection=selection,
        hands={player: [CENTRE] * 4},
        draw_pile=[CENTRE] * 8,
    )


def test_r16_two_players_the_smallest_piece_across_both_colours_is_lost():
    # Every lot holds a blue 4: neither red nor green (seat 0) can build anywhere.
    state = _two_player_stuck({RED: [2, 3], GREEN: [1, 3]})
    new, events = run_advance(state)
    assert events[0]["type"] == PIECE_LOST
    assert (events[0]["colour"], events[0]["size"]) == (GREEN, 1)
    assert new.selection[GREEN] == [0, 0, 1, 0]
    assert new.selection[RED] == [0, 1, 1, 0]


def test_r16_two_players_tie_goes_to_the_players_first_colour():
    state = _two_player_stuck({RED: [2, 3], GREEN: [2, 2]})
    _, events = run_advance(state)
    assert (events[0]["colour"], events[0]["size"]) == (RED, 2)


def test_r16_two_players_tie_for_the_second_seat_goes_to_blue():
    state = _two_player_stuck({BLUE: [1, 3], YELLOW: [1]}, player=1, board_owner=RED)
    _, events = run_advance(state)
    assert (events[0]["player"], events[0]["colour"], events[0]["size"]) == (1, BLUE, 1)


def test_r16_two_players_one_colour_able_to_place_is_enough():
    # Red (seat 0) cannot touch the blue 4s, but seat 0's green holds a 4 and can.
    state = _two_player_stuck({RED: [1, 2], GREEN: [4]})
    new, events = run_advance(state)
    assert events == []
    assert new.to_act == 0


def test_r16_two_players_redraw_when_neither_colour_can_place_with_the_hand():
    # Card 0 names lot 0 for seat 0 (south); every lot 0 holds a blue 2, which
    # neither red nor green can take with 1s. Other lots are empty, so seat 0 redraws.
    # Had green held a 2, there would be no redraw.
    board = fill_lot_everywhere(empty_board(), lot_of(S, BLOCKED_CARD), tower((BLUE, 2)))
    state = placement_position(
        2,
        to_act=0,
        board=board,
        selection={RED: [1], GREEN: [1, 1]},
        hands={0: [BLOCKED_CARD] * 4},
        draw_pile=[CENTRE, BLOCKED_CARD, BLOCKED_CARD, BLOCKED_CARD],
    )
    new, events = run_advance(state)
    assert types(events) == [HAND_REDRAWN]
    assert new.to_act == 0
    state.selection[GREEN] = [1, 1, 0, 0]
    assert run_advance(state)[1] == []

"""R1–R6: the board, the pieces, the cards, the hands, the seats and the rotation."""

from collections import Counter

import pytest

from games.engine import GameOptions, PlacePiece, player_view, spectator_view
from games.engine.constants import (
    BOARD_LOTS,
    CARD_POSITIONS,
    CITIES,
    LOTS_PER_CITY,
    PIECE_SIZES,
    PIECES_PER_COLOUR,
    PIECES_PER_SIZE,
)
from games.engine.errors import RuleError
from games.engine.rotation import CARD_TO_LOT, LOT_TO_CARD
from games.engine.state import lot_index
from tests.support.engine_positions import (
    BLUE,
    CENTRE,
    RED,
    E,
    N,
    S,
    W,
    card_total,
    execute,
    new_game,
    placement_position,
    rule_error,
    tower,
)

# --- R1 Board ---------------------------------------------------------------------


def test_r1_board_has_six_cities_of_nine_lots():
    assert CITIES == 6
    assert LOTS_PER_CITY == 9
    assert BOARD_LOTS == 54
    state = new_game().state
    assert len(state.board) == 54
    assert all(b is None for b in state.board)


def test_r1_lot_index_is_city_major():
    seen = {lot_index(city, lot) for city in range(6) for lot in range(9)}
    assert seen == set(range(54))
    assert lot_index(0, 0) == 0
    assert lot_index(1, 0) == 9
    assert lot_index(5, 8) == 53


def test_r1_a_lot_holds_one_building_and_a_second_piece_stacks_on_it():
    card = 0
    state = placement_position(to_act=0, hands={0: [card, card, 5, 6], 1: [card, 1, 2, 3]})
    lot = CARD_TO_LOT[S][card]
    state, _ = execute(state, 0, PlacePiece(card=card, city=2, size=1))
    # Seat 1 plays the card naming the same lot of city 3 from their side.
    card_w = LOT_TO_CARD[W][lot]
    state.hands[1] = [card_w, 1, 2, 3]
    state, _ = execute(state, 1, PlacePiece(card=card_w, city=2, size=2))
    building = state.board[lot_index(2, lot)]
    assert building is not None
    assert building.pieces == ((RED, 1), (BLUE, 2))
    assert sum(b is not None for b in state.board) == 1


def test_r1_cities_are_numbered_one_to_six():
    state = placement_position(to_act=0, hands={0: [0, 1, 2, 3]})
    err = rule_error(state, 0, PlacePiece(card=0, city=6, size=1))
    assert err.code == "bad_city"
    assert err.rule == "R1"
    for city in range(6):
        new, _ = execute(state, 0, PlacePiece(card=0, city=city, size=1))
        assert new.board[lot_index(city, CARD_TO_LOT[S][0])] is not None


# --- R2 Pieces --------------------------------------------------------------------


def test_r2_each_colour_has_24_pieces_11_6_4_3():
    assert PIECE_SIZES == (1, 2, 3, 4)
    assert PIECES_PER_SIZE == (11, 6, 4, 3)
    assert PIECES_PER_COLOUR == 24
    assert sum(s * n for s, n in zip(PIECE_SIZES, PIECES_PER_SIZE, strict=True)) == 47


@pytest.mark.parametrize("players", [2, 3, 4])
def test_r2_every_colour_starts_with_the_full_reserve(players):
    state = new_game(players).state
    assert len(state.reserve) == (3 if players == 3 else 4)
    for colour in state.all_colours:
        assert state.reserve[colour] == [11, 6, 4, 3]
        assert state.selection[colour] == [0, 0, 0, 0]
        assert state.lost[colour] == 0


def test_r2_pieces_have_one_to_four_storeys():
    state = placement_position(to_act=0, hands={0: [0, 1, 2, 3]})
    for size in (0, 5):
        err = rule_error(state, 0, PlacePiece(card=0, city=0, size=size))
        assert err.code == "bad_size"
        assert err.rule == "R2"


# --- R3 Cards ---------------------------------------------------------------------


@pytest.mark.parametrize(("copies", "deck"), [(5, 45), (7, 63)])
def test_r3_deck_has_copies_of_each_of_the_nine_positions(copies, deck):
    options = GameOptions(players=4, copies_per_position=copies)
    assert options.deck_size == deck
    state = new_game(4, copies_per_position=copies).state
    assert card_total(state) == deck
    every = [*state.draw_pile, *(c for h in state.hands for c in h)]
    assert Counter(every) == dict.fromkeys(range(CARD_POSITIONS), copies)


def test_r3_default_deck_is_the_french_45_cards():
    assert GameOptions().copies_per_position == 5
    assert GameOptions().deck_size == 45


@pytest.mark.parametrize("copies", [0, 1, 13, "5"])
def test_r3_copies_per_position_must_be_sensible(copies):
    with pytest.raises(RuleError) as info:
        GameOptions(copies_per_position=copies)
    assert info.value.code == "bad_option"
    assert info.value.rule == "R3"


def test_r3_a_card_shows_one_of_nine_positions():
    state = placement_position(to_act=0, hands={0: [0, 1, 2, 3]})
    err = rule_error(state, 0, PlacePiece(card=9, city=0, size=1))
    assert err.code == "bad_card"
    assert err.rule == "R3"


# --- R4 Hands ---------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4])
def test_r4_each_player_holds_four_cards(players):
    state = new_game(players).state
    assert [len(h) for h in state.hands] == [4] * players
    assert len(state.draw_pile) == 45 - 4 * players


def test_r4_hand_is_private_but_its_size_public():
    state = new_game(4).state
    for seat in range(4):
        view = player_view(state, seat)
        assert view.hand == tuple(state.hands[seat])
        assert view.hand_sizes == (4, 4, 4, 4)
        as_json = view.to_json()
        assert as_json["hand"] == [c + 1 for c in state.hands[seat]]
        assert all("hand" not in p for p in as_json["players"])
    assert spectator_view(state).hand is None


def test_r4_draw_pile_order_is_secret():
    state = new_game(4).state
    view = spectator_view(state).to_json()
    assert view["draw_pile_size"] == len(state.draw_pile)
    assert "draw_pile" not in view


def test_r4_hand_stays_at_four_after_a_turn():
    state = placement_position(to_act=0)
    card = state.hands[0][0]
    new, _ = execute(state, 0, PlacePiece(card=card, city=0, size=1))
    assert len(new.hands[0]) == 4


# --- R5 Sides ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("players", "sides"),
    [(4, (S, W, N, E)), (3, (S, W, N)), (2, (S, N))],
)
def test_r5_default_seating(players, sides):
    assert new_game(players).state.sides == sides


def test_r5_explicit_sides_per_seat():
    state = new_game(3, sides=(E, S, N)).state
    assert state.sides == (E, S, N)
    # Clockwise from the south: S (seat 1), N (seat 2), E (seat 0).
    assert state.clockwise == (1, 2, 0)


@pytest.mark.parametrize("sides", [(0, 0), (0, 4), (0, 1, 2), (-1, 2)])
def test_r5_explicit_sides_must_be_distinct_board_sides(sides):
    with pytest.raises(RuleError) as info:
        GameOptions(players=2, sides=sides)
    assert info.value.code == "bad_option"
    assert info.value.rule == "R5"


def test_r5_same_card_names_different_lot_for_face_to_face_players():
    # Two players, S and N: card 1 (top middle as printed) is the top middle lot
    # for south and the bottom middle lot (seen from the south) for north.
    state = placement_position(2, to_act=0, hands={0: [1, 0, 0, 0], 1: [1, 0, 0, 0]}, selection={0: [1], 2: []})
    state, _ = execute(state, 0, PlacePiece(card=1, city=0, size=1))
    assert state.board[lot_index(0, 1)] is not None
    assert state.to_act == 1
    state, _ = execute(state, 1, PlacePiece(card=1, city=0, size=1, colour=BLUE))
    assert state.board[lot_index(0, 7)] is not None
    assert state.board[lot_index(0, 7)].owner == BLUE


# --- R6 Rotation ------------------------------------------------------------------


def _by_formula(card: int, side: int) -> int:
    """R6 written out: S (r, c); W (c, 2−r); N (2−r, 2−c); E (2−c, r)."""
    r, c = divmod(card, 3)
    rr, cc = {S: (r, c), W: (c, 2 - r), N: (2 - r, 2 - c), E: (2 - c, r)}[side]
    return 3 * rr + cc


@pytest.mark.parametrize("side", [S, W, N, E])
@pytest.mark.parametrize("card", range(9))
def test_r6_rotation_formula_for_every_card_and_side(card, side):
    assert CARD_TO_LOT[side][card] == _by_formula(card, side)


def test_r6_rotation_spot_checks():
    # Card 0 is the printed top-left square.
    assert [CARD_TO_LOT[side][0] for side in (S, W, N, E)] == [0, 2, 8, 6]
    # Card 5 is the printed middle-right square.
    assert [CARD_TO_LOT[side][5] for side in (S, W, N, E)] == [5, 7, 3, 1]
    # Card 7 is the printed bottom-middle square.
    assert [CARD_TO_LOT[side][7] for side in (S, W, N, E)] == [7, 3, 1, 5]


@pytest.mark.parametrize("card", [c for c in range(9) if c != CENTRE])
def test_r6_a_card_names_a_different_lot_for_each_side(card):
    assert len({CARD_TO_LOT[side][card] for side in range(4)}) == 4


def test_r6_only_the_centre_card_names_the_same_lot_from_every_side():
    assert {CARD_TO_LOT[side][CENTRE] for side in range(4)} == {CENTRE}


@pytest.mark.parametrize("side", [S, W, N, E])
def test_r6_each_side_reads_a_permutation_and_lot_to_card_inverts_it(side):
    assert sorted(CARD_TO_LOT[side]) == list(range(9))
    for card in range(9):
        assert LOT_TO_CARD[side][CARD_TO_LOT[side][card]] == card
    for lot in range(9):
        assert CARD_TO_LOT[side][LOT_TO_CARD[side][lot]] == lot


def test_r6_quarter_turns_compose():
    # Reading from W and then turning a further quarter equals reading from N, etc.
    for card in range(9):
        for side in range(4):
            turned = CARD_TO_LOT[1][CARD_TO_LOT[side][card]]
            assert turned == CARD_TO_LOT[(side + 1) % 4][card]


def test_r6_same_rotation_in_every_city_for_a_placement():
    card = 3  # printed middle-left
    expected = _by_formula(card, E)
    for city in range(6):
        state = placement_position(4, to_act=3, hands={3: [card, 0, 0, 0]})
        new, events = execute(state, 3, PlacePiece(card=card, city=city, size=1))
        assert events[0]["lot"] == expected
        assert new.board[lot_index(city, expected)] == tower((3, 1))

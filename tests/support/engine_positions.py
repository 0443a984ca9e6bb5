"""Helpers that build Manhattan positions for the rule tests.

Two ways to get a position:

* ``new_game`` creates a real game (``create_game`` + ``initial_state``) with a
  fixed seed and fixed options, wrapped in a small ``Game`` object whose
  ``act`` runs ``commands.execute`` and keeps the log.
* ``placement_position`` starts from such a game and then edits a *copy* of
  its state directly (board, hands, draw pile, discards, selections, who is
  to act), so a test can build exactly the situation a rule talks about.

Colours and sides are named as in the engine: colour 0 red, 1 blue, 2 green,
3 yellow; side 0 south, 1 west, 2 north, 3 east. Cities, lots and cards are
0-based, as in the engine's actions.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from games.engine import advance, commands, create_game, player_view
from games.engine.actions import Action, PlacePiece, SelectPieces
from games.engine.bots import greedy_bot
from games.engine.constants import BOARD_LOTS, CITIES, LOTS_PER_CITY, PIECES_PER_SIZE
from games.engine.errors import RuleError
from games.engine.events import Event, initial_state
from games.engine.options import GameOptions
from games.engine.rotation import CARD_TO_LOT, LOT_TO_CARD
from games.engine.rules import Placement, legal_placements
from games.engine.state import PLACEMENT, SELECTION, Board, Building, GameState, lot_index

RED, BLUE, GREEN, YELLOW = 0, 1, 2, 3
ALL_COLOURS = (RED, BLUE, GREEN, YELLOW)
S, W, N, E = 0, 1, 2, 3
CENTRE = 4
"""The centre card names the centre lot from every side."""


# --- games ---------------------------------------------------------------------


@dataclass
class Game:
    """A game built by the engine itself, with its log and its generator."""

    state: GameState
    events: list[Event]
    rng: random.Random

    def act(self, player: int | None, action: Action) -> list[Event]:
        """Run ``action`` for ``player`` through ``commands.execute``; the new events."""
        self.state, new = commands.execute(self.state, player, action, self.rng)
        self.events.extend(new)
        return new

    def select_all(self, choices: Mapping[int, Sequence[int]] | None = None) -> list[Event]:
        """Run the selection phase: each colour, in the engine's order, picks
        ``choices[colour]`` or a balanced default from its reserve."""
        out: list[Event] = []
        choices = choices or {}
        while self.state.phase == SELECTION and self.state.selecting_colour is not None:
            colour = self.state.selecting_colour
            pieces = choices.get(colour) or default_pieces(
                self.state.reserve[colour], self.state.options.pieces_per_round
            )
            out += self.act(self.state.colour_player[colour], SelectPieces(tuple(pieces), colour=colour))
        return out

    def place(self, placement: Placement) -> list[Event]:
        player = self.state.to_act
        assert player is not None
        action = PlacePiece(card=placement.card, city=placement.city, size=placement.size, colour=placement.colour)
        return self.act(player, action)

    def place_first_legal(self) -> list[Event]:
        """The player to act makes their first legal placement (engine order)."""
        return self.place(my_legal_placements(self.state)[0])

    def play_round(self, chooser: Callable[[list[Placement]], Placement] | None = None) -> list[Event]:
        """Play the current round to its end (selection included): returns its events."""
        start_round = self.state.round
        out: list[Event] = []
        while not self.state.is_finished and self.state.round == start_round:
            if self.state.phase == SELECTION:
                out += self.select_all()
            else:
                legal = my_legal_placements(self.state)
                out += self.place(chooser(legal) if chooser else legal[0])
        return out


def make_options(players: int = 4, **options: object) -> GameOptions:
    """Options with a fixed start player (seat 0) unless another is given."""
    options.setdefault("start_player", 0)
    return GameOptions(players=players, **options)


def new_game(players: int = 4, *, seed: int | str = 1, **options: object) -> Game:
    """A freshly created game (R8) with a fixed seed; start player 0 by default."""
    rng = random.Random(seed)
    created = commands.create_game(make_options(players, **options), rng)
    return Game(initial_state(created), [created], rng)


def default_pieces(reserve: Sequence[int], k: int) -> list[int]:
    """k pieces taken from ``reserve`` (counts by size), sizes in turn 1, 2, 3, 4, 1, ..."""
    left = list(reserve)
    chosen: list[int] = []
    while len(chosen) < k:
        progressed = False
        for size in (1, 2, 3, 4):
            if len(chosen) < k and left[size - 1] > 0:
                left[size - 1] -= 1
                chosen.append(size)
                progressed = True
        if not progressed:
            raise ValueError("the reserve holds fewer than k pieces")
    return sorted(chosen)


def counts(sizes: Iterable[int]) -> list[int]:
    """Piece sizes -> counts by size, the engine's form of a selection."""
    out = [0, 0, 0, 0]
    for size in sizes:
        out[size - 1] += 1
    return out


def my_legal_placements(state: GameState) -> list[Placement]:
    """Legal placements of the player to act, from the rules module."""
    player = state.to_act
    assert player is not None
    assert state.phase == PLACEMENT
    selections = {c: state.selection[c] for c in state.colours[player]}
    return legal_placements(state.board, state.hands[player], state.sides[player], selections)


def run_advance(state: GameState, rng: random.Random | None = None) -> tuple[GameState, list[Event]]:
    """Run ``advance.advance`` (what follows an action without a choice: R16,
    scoring, the next round, forced selections, the end) on a copy of ``state``."""
    work = state.copy()
    out: list[Event] = []
    advance.advance(work, out, rng or random.Random(0))
    return work, out


def execute(state: GameState, player: int | None, action: Action, seed: int = 0) -> tuple[GameState, list[Event]]:
    return commands.execute(state, player, action, random.Random(seed))


def rule_error(state: GameState, player: int | None, action: Action) -> RuleError:
    """The ``RuleError`` that ``action`` raises (fails the test if it is accepted)."""
    try:
        commands.execute(state, player, action, random.Random(0))
    except RuleError as err:
        return err
    raise AssertionError(f"{action!r} by seat {player} was accepted")


def types(events: Iterable[Event]) -> list[str]:
    return [e["type"] for e in events]


# --- buildings and boards --------------------------------------------------------


def tower(*pieces: tuple[int, int]) -> Building:
    """A building from its pieces, bottom first: ``tower((RED, 2), (BLUE, 3))``."""
    colour, size = pieces[0]
    building = Building.new(colour, size)
    for colour, size in pieces[1:]:
        building = building.add(colour, size)
    return building


def one(colour: int, size: int = 1) -> Building:
    """A building of one piece."""
    return tower((colour, size))


def empty_board() -> list[Building | None]:
    return [None] * BOARD_LOTS


def board_with(
    buildings: Mapping[tuple[int, int], Building], base: Sequence[Building | None] | None = None
) -> list[Building | None]:
    """A board (54 lots) with ``buildings[(city, lot)]`` put on a copy of ``base``."""
    board = list(base) if base is not None else empty_board()
    for (city, lot), building in buildings.items():
        board[lot_index(city, lot)] = building
    return board


def board_from_cities(cities: Sequence[Sequence[Building]]) -> list[Building | None]:
    """A board whose city i holds ``cities[i]`` on its first lots (0, 1, 2, ...)."""
    board = empty_board()
    for city, buildings in enumerate(cities):
        assert len(buildings) <= LOTS_PER_CITY
        for lot, building in enumerate(buildings):
            board[lot_index(city, lot)] = building
    return board


def fill_lot_everywhere(board: list[Building | None], lot: int, building: Building) -> list[Building | None]:
    """The same building on ``lot`` of all six cities (a copy of ``board``)."""
    out = list(board)
    for city in range(CITIES):
        out[lot_index(city, lot)] = building
    return out


def fill_board(building: Building) -> list[Building | None]:
    """Every one of the 54 lots holds ``building``."""
    return [building] * BOARD_LOTS


def lot_of(side: int, card: int) -> int:
    """The lot a card names for a side (the engine's table)."""
    return CARD_TO_LOT[side][card]


def card_for(side: int, lot: int) -> int:
    """The card a player on ``side`` needs to build on ``lot``."""
    return LOT_TO_CARD[side][lot]


# --- constructed positions -------------------------------------------------------


def with_board(state: GameState, board: Sequence[Building | None]) -> GameState:
    new = state.copy()
    new.board = Board.from_buildings(board)
    return new


def with_hand(state: GameState, player: int, cards: Sequence[int]) -> GameState:
    new = state.copy()
    new.hands[player] = list(cards)
    return new


def placement_position(
    players: int = 4,
    *,
    to_act: int = 0,
    board: Sequence[Building | None] | None = None,
    hands: Mapping[int, Sequence[int]] | None = None,
    selection: Mapping[int, Sequence[int]] | None = None,
    draw_pile: Sequence[int] | None = None,
    discards: Mapping[int, Sequence[int]] | None = None,
    seed: int = 1,
    **options: object,
) -> GameState:
    """A game of ``players`` in its first round's placement phase, built by hand.

    ``selection[colour]`` lists the round pieces (sizes) still to place for that
    colour; colours left out get a balanced default selection. ``hands``,
    ``draw_pile`` (top = last element) and ``discards`` replace what the deal
    gave, for the seats mentioned. ``to_act`` is the player whose turn it is.
    """
    state = new_game(players, seed=seed, **options).state.copy()
    k = state.options.pieces_per_round
    for colour in state.all_colours:
        pieces = list(selection[colour]) if selection and colour in selection else default_pieces(PIECES_PER_SIZE, k)
        chosen = counts(pieces)
        state.selection[colour] = chosen
        state.reserve[colour] = [PIECES_PER_SIZE[i] - chosen[i] for i in range(4)]
    state.phase = PLACEMENT
    state.selection_queue = []
    state.to_act = to_act
    if board is not None:
        state.board = Board.from_buildings(board)
    for player, cards in (hands or {}).items():
        state.hands[player] = list(cards)
    if draw_pile is not None:
        state.draw_pile = list(draw_pile)
    for player, cards in (discards or {}).items():
        state.discards[player] = list(cards)
    return state


def card_total(state: GameState) -> int:
    """Every card in a hand, the draw pile or a discard pile."""
    return sum(map(len, state.hands)) + len(state.draw_pile) + sum(map(len, state.discards))


def storeys_on_board(state: GameState) -> int:
    return sum(b.height for b in state.board if b is not None)


def position(players: int, moves: int, seed: int = 3) -> GameState:
    """A game of ``players`` after ``moves`` greedy actions."""
    rng = random.Random(seed)
    state = initial_state(create_game(GameOptions(players=players), rng))
    bot_rng = random.Random(seed + 1)
    for _ in range(moves):
        seat = state.to_act
        state, _ = commands.execute(state, seat, greedy_bot(player_view(state, seat), bot_rng), rng)
    return state


def with_hidden_cards_dealt_again(state: GameState, seat: int, seed: int) -> GameState:
    """The same position but for the cards ``seat`` cannot see: the other hands and the draw pile."""
    other = state.copy()
    others = [p for p in range(state.players) if p != seat]
    hidden = [c for p in others for c in other.hands[p]] + other.draw_pile
    random.Random(seed).shuffle(hidden)
    for p in others:
        size = len(other.hands[p])
        other.hands[p], hidden = hidden[:size], hidden[size:]
    other.draw_pile = hidden
    return other


def points_after(board: Board, index: int, colour: int, size: int) -> list[int]:
    """``board.points()`` as they would be after ``board.place(index, colour, size)``, without
    placing: the plain reading of ``Board.outcomes`` that the tests hold the scorers to."""
    outcomes, taller_from = board.outcomes(index, colour)
    return outcomes[(size >= taller_from) + (size > taller_from)]


def game_in_placement(players: int = 4, seed: int = 2) -> Game:
    """A game at its first placement: every colour has selected, seat 0 is to place."""
    game = new_game(players, seed=seed, start_player=0)
    game.select_all()
    assert game.state.phase == PLACEMENT
    return game

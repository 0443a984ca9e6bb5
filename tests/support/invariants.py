"""What every game of the property tests (tests/engine/test_properties_*.py)
must satisfy, and where those games come from: the variants and hypothesis
strategies that make them, and the checks run on each state, each seat's view
and each redacted log (cards conserved, pieces accounted for, no secret in a
view or a redacted event)."""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st

from games.engine import (
    COLOUR_NAMES,
    GameOptions,
    GameState,
    PlacePiece,
    RuleError,
    execute,
    initial_state,
    player_view,
    redact_events,
)
from games.engine.events import apply_in_place
from games.engine.simulate import SimulatedGame, play_game

PIECES_PER_COLOUR = 24
SIZE_COUNTS = (11, 6, 4, 3)

VARIANTS = (
    GameOptions(players=2),
    GameOptions(players=3),
    GameOptions(players=4),
    GameOptions(players=4, six_rounds=True),
    GameOptions(players=2, copies_per_position=7),
    GameOptions(players=3, copies_per_position=7),
    GameOptions(players=4, copies_per_position=7, start_player=2),
    GameOptions(players=2, sides=(1, 3)),
    GameOptions(players=2, sides=(3, 0), start_player=1),
    GameOptions(players=3, sides=(3, 0, 2), start_player=1),
    GameOptions(players=4, sides=(2, 3, 0, 1)),
    GameOptions(players=4, six_rounds=True, sides=(1, 0, 3, 2), copies_per_position=7),
)

SETTINGS = settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    # No shrinking: a smaller seed is not a simpler game, and shrinking whole games
    # takes minutes. The failing seed and choices are still reported.
    phases=(Phase.explicit, Phase.reuse, Phase.generate),
)

variants = st.sampled_from(VARIANTS)
BOT_KINDS = ("random", "random", "greedy")
"""Greedy bots are ~20x slower; weighting keeps the file fast while mixing both kinds."""
seeds = st.integers(min_value=0, max_value=2**32 - 1)


@st.composite
def simulated_games(draw: Any) -> SimulatedGame:
    """A whole bot game of a random variant, with a random bot in each seat."""
    options = draw(variants)
    bots = draw(st.lists(st.sampled_from(("random", "greedy")), min_size=options.players, max_size=options.players))
    return play_game(options, bots, str(draw(seeds)))


def full_deck(options: GameOptions) -> Counter[int]:
    return Counter({card: options.copies_per_position for card in range(9)})


def check_state_invariants(state: GameState) -> None:
    """What must hold after every single event of any game."""
    for index, building in enumerate(state.board):
        if building is None:
            continue
        where = f"city {index // 9 + 1} lot {index % 9 + 1}"
        assert building.pieces, where
        # R13: the owner is the colour of the top piece.
        assert building.owner == building.pieces[-1][0], where
        assert building.height == sum(size for _, size in building.pieces), where
        for colour in range(4):
            assert building.storeys[colour] == sum(s for c, s in building.pieces if c == colour), where
        # R14: an owner always has at least as many storeys as any other colour.
        assert building.storeys[building.owner] == max(building.storeys), (where, building)
    # R3/R11: every card is in exactly one hand, the draw pile or a discard pile.
    cards = Counter(state.draw_pile)
    for hand in state.hands:
        cards.update(hand)
    for discard in state.discards:
        cards.update(discard)
    assert cards == full_deck(state.options)
    # R4: hands hold four cards (the pile can always be refilled from the discards).
    assert [len(h) for h in state.hands] == [4] * state.players
    # Piece bookkeeping: reserve + round selection + placed + lost == 24 per colour.
    for colour in state.all_colours:
        placed = sum(1 for b in state.board if b is not None for c, _ in b.pieces if c == colour)
        if not state.resigned[state.colour_player[colour]]:
            total = sum(state.reserve[colour]) + sum(state.selection[colour]) + placed + state.lost[colour]
            assert total == PIECES_PER_COLOUR, (COLOUR_NAMES[colour], total)
        assert all(n >= 0 for n in state.reserve[colour])
        assert all(n >= 0 for n in state.selection[colour])


def replay_checking(events: list[dict[str, Any]]) -> GameState:
    """Fold ``events`` one at a time, checking the invariants after each."""
    state = initial_state(events[0])
    check_state_invariants(state)
    for event in events[1:]:
        apply_in_place(state, event)
        check_state_invariants(state)
    return state


def keys_in(value: Any) -> set[str]:
    """Every dictionary key anywhere inside a JSON-like value."""
    found: set[str] = set()
    if isinstance(value, dict):
        for key, item in value.items():
            found.add(str(key))
            found |= keys_in(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            found |= keys_in(item)
    return found


def sequence_spellings(cards: list[int]) -> list[str]:
    """The ways a list of cards could appear in JSON: 0- or 1-based, either order, either separator."""
    spellings = []
    for seq in (cards, cards[::-1]):
        for base in (0, 1):
            shifted = [c + base for c in seq]
            spellings.append(json.dumps(shifted))
            spellings.append(json.dumps(shifted, separators=(",", ":")))
    return spellings


LEAK_MIN_LENGTH = 10
"""Shorter sequences could appear by coincidence (a discard pile, a hand)."""


def assert_not_leaked(secret: list[int], text: str, what: str) -> None:
    if len(secret) < LEAK_MIN_LENGTH:
        return
    for spelling in sequence_spellings(secret):
        assert spelling not in text, f"{what} leaked: {spelling}"


def check_views(state: GameState) -> None:
    """No seat's view holds another seat's hand or the draw pile's order."""
    for seat in [*range(state.players), None]:
        view = player_view(state, seat)
        data = view.to_json()
        text = json.dumps(data)
        assert "draw_pile" not in keys_in(data)
        assert "hands" not in keys_in(data)
        assert data["draw_pile_size"] == len(state.draw_pile)
        assert [p["hand_size"] for p in data["players"]] == [len(h) for h in state.hands]
        for entry in data["players"]:
            assert "hand" not in entry
        if seat is None:
            assert view.hand is None
            assert data["hand"] is None
        else:
            assert view.hand is not None
            assert sorted(view.hand) == sorted(state.hands[seat])
            assert sorted(data["hand"]) == sorted(c + 1 for c in state.hands[seat])
        assert_not_leaked(state.draw_pile, text, "the draw pile")


def check_redacted_log(events: list[dict[str, Any]], players: int) -> None:
    secrets: list[list[int]] = [events[0]["draw_pile"]]
    secrets += [e["reshuffle"] for e in events if "reshuffle" in e]
    for seat in [*range(players), None]:
        redacted = redact_events(events, seat)
        assert len(redacted) == len(events)
        created = redacted[0]
        assert "draw_pile" not in created
        assert created["draw_pile_size"] == len(events[0]["draw_pile"])
        for p, hand in enumerate(created["hands"]):
            if p == seat:
                assert hand == events[0]["hands"][p]
            else:
                assert hand is None
        for original, shown in zip(events, redacted, strict=True):
            assert "reshuffle" not in shown
            if "reshuffle" in original:
                assert shown["reshuffled"] is True
            if "drew" in original and original["player"] != seat:
                assert shown["drew"] is None
                expected = len(original["drew"]) if isinstance(original["drew"], list) else 1
                if original["drew"] is None:
                    expected = 0
                assert shown["drew_count"] == expected
            elif "drew" in original:
                assert shown["drew"] == original["drew"]
        text = json.dumps(redacted)
        for secret in secrets:
            assert_not_leaked(secret, text, "a draw pile or reshuffle order")


def points_by_colour(points: dict[str, int]) -> dict[int, int]:
    return {COLOUR_NAMES.index(name): n for name, n in points.items()}


def state_without_bookkeeping(state: GameState) -> GameState:
    """``state`` with hands sorted and the log counters cleared, for position comparisons."""
    same = state.copy()
    same.hands = [sorted(h) for h in same.hands]
    same.seq = 0
    same.undoable = None
    return same


def check_exhaustive_legality(state: GameState, seat: int, legal: list[Any]) -> None:
    """Every placement ``execute`` accepts is enumerated, and every enumerated one is accepted."""
    two_colours = len(state.colours[seat]) > 1
    colours: list[int | None] = list(state.colours[seat]) if two_colours else [None]
    legal_set = {a for a in legal if isinstance(a, PlacePiece)}
    for card in sorted(set(state.hands[seat])):
        for city in range(6):
            for size in (1, 2, 3, 4):
                for colour in colours:
                    action = PlacePiece(card=card, city=city, size=size, colour=colour)
                    try:
                        execute(state, seat, action, random.Random(0))
                    except RuleError:
                        assert action not in legal_set, action
                    else:
                        assert action in legal_set, action

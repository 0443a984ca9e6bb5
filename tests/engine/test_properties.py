"""Property tests over random games of every variant (hypothesis).

Games come from two sources: the simulator (``play_game``) with a
hypothesis-chosen seed and bot mix, and games driven here one action at a
time with hypothesis choosing among ``enumerate_actions`` of the seat to act
(``st.data()``). Every property is checked on every event of such games.
"""

from __future__ import annotations

import copy
import json
import random
from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from games.engine import (
    COLOUR_NAMES,
    GameOptions,
    GameState,
    PlacePiece,
    Resign,
    RuleError,
    SelectPieces,
    UndoLastPlacement,
    apply_event,
    create_game,
    enumerate_actions,
    execute,
    fold,
    format_action,
    initial_state,
    parse_action,
    player_view,
    redact_events,
    score_board,
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


# --- helpers ----------------------------------------------------------------


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


# --- properties over simulated games ----------------------------------------


@SETTINGS
@given(game=simulated_games())
def test_every_colour_places_all_its_pieces_minus_lost(game: SimulatedGame) -> None:
    """R2/R7: in every variant each colour uses all 24 pieces (lost ones excepted, R16)."""
    state = game.state
    assert state.is_finished
    assert state.round == state.options.rounds
    for colour in state.all_colours:
        on_board = sum(1 for b in state.board if b is not None for c, _ in b.pieces if c == colour)
        assert on_board + state.lost[colour] == PIECES_PER_COLOUR, COLOUR_NAMES[colour]
        assert state.reserve[colour] == [0, 0, 0, 0]
        assert state.selection[colour] == [0, 0, 0, 0]
    # And the sizes on the board are exactly the colour's pieces (R2), lost ones aside.
    lost_sizes: Counter[tuple[int, int]] = Counter(
        (e["colour"], e["size"]) for e in game.events if e["type"] == "piece_lost"
    )
    for colour in state.all_colours:
        sizes = Counter(s for b in state.board if b is not None for c, s in b.pieces if c == colour)
        for size in (1, 2, 3, 4):
            assert sizes[size] + lost_sizes[(colour, size)] == SIZE_COUNTS[size - 1]


@SETTINGS
@given(game=simulated_games())
def test_owner_always_has_the_most_storeys_after_every_event(game: SimulatedGame) -> None:
    """R13/R14 after every event, plus card and piece conservation."""
    final = replay_checking(game.events)
    assert final == game.state


@SETTINGS
@given(game=simulated_games())
def test_fold_is_deterministic_and_survives_json(game: SimulatedGame) -> None:
    events = game.events
    first = fold(events)
    second = fold(events)
    assert first == second
    assert first == game.state  # the state ``execute`` built equals the fold of its log
    round_tripped = json.loads(json.dumps(events))
    assert round_tripped == events
    assert fold(round_tripped) == first
    # Folding did not change the log.
    assert json.loads(json.dumps(events)) == round_tripped


@SETTINGS
@given(game=simulated_games())
def test_round_scores_recompute_from_the_board(game: SimulatedGame) -> None:
    """R17/R18: each round's recorded points are the board's score at that moment."""
    events = game.events
    state = initial_state(events[0])
    recorded: list[dict[int, int]] = []
    for event in events[1:]:
        if event["type"] == "round_scored":
            expected = score_board(state.board, state.all_colours)
            points = points_by_colour(event["points"])
            assert points == expected, f"round {event['round']}"
            assert event["round"] == len(recorded) + 1
            recorded.append(points)
        apply_in_place(state, event)
    assert len(recorded) == state.options.rounds
    assert state.round_scores == recorded
    for colour in state.all_colours:
        assert state.scores[colour] == sum(r[colour] for r in recorded)
    finished = events[-1]
    assert finished["type"] == "game_finished"
    assert points_by_colour(finished["totals"]) == state.scores
    assert state.player_totals() == [sum(state.scores[c] for c in cs) for cs in state.colours]
    best = max(state.player_totals())
    for winner in state.winners:
        assert state.player_totals()[winner] == best


@SETTINGS
@given(game=simulated_games())
def test_views_never_leak_secrets(game: SimulatedGame) -> None:
    """R4: no view shows another hand, the draw pile's order or a reshuffle."""
    events = game.events
    state = initial_state(events[0])
    check_views(state)
    for i, event in enumerate(events[1:], start=1):
        apply_in_place(state, event)
        if i % 5 == 0 or "reshuffle" in event or event["type"] != "piece_placed":
            check_views(state)
    check_redacted_log(events, state.players)


@SETTINGS
@given(game=simulated_games())
def test_apply_event_never_mutates_its_input(game: SimulatedGame) -> None:
    events = game.events
    state = initial_state(events[0])
    for event in events[1:]:
        # repr() spells out every field, nested containers included: a cheap deep snapshot.
        before = repr(state)
        event_before = copy.deepcopy(event)
        after = apply_event(state, event)
        assert repr(state) == before, f"apply_event changed its input on {event['type']}"
        assert event == event_before
        assert after is not state
        assert after.seq == state.seq + 1
        state = after
    assert state == game.state


@SETTINGS
@given(game=simulated_games())
def test_undo_is_offered_exactly_after_a_plain_placement(game: SimulatedGame) -> None:
    """An operator's undo works right after a placement that drew without a
    reshuffle, restores the position before it, and is refused otherwise."""
    events = game.events
    state = initial_state(events[0])
    previous = state
    for event in events[1:]:
        previous, state = state, apply_event(state, event)
        if state.is_finished:
            break
        plain = event["type"] == "piece_placed" and "reshuffle" not in event
        if not plain:
            with pytest.raises(RuleError) as refused:
                execute(state, None, UndoLastPlacement("test"), random.Random(0))
            assert refused.value.code == "undo_unavailable"
            continue
        undone, undo_events = execute(state, None, UndoLastPlacement("test"), random.Random(0))
        assert [e["type"] for e in undo_events] == ["placement_undone"]
        assert state_without_bookkeeping(undone) == state_without_bookkeeping(previous)
        check_state_invariants(undone)


# --- properties over games whose every action hypothesis chooses ------------


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


@SETTINGS
@given(options=variants, seed=seeds, data=st.data())
def test_games_with_hypothesis_chosen_actions(options: GameOptions, seed: int, data: Any) -> None:
    """Hypothesis picks every action among ``enumerate_actions`` of the seat to act;
    now and then (decided by the seed) an operator undoes a placement or a player
    resigns. All properties hold after every event."""
    rng = random.Random(seed)
    chance = random.Random(f"{seed}:chance")  # how often undo/resign/exhaustive checks happen
    events = [create_game(options, rng)]
    state = initial_state(events[0])
    check_state_invariants(state)
    resigned = False
    undos = exhaustive = 0
    while not state.is_finished:
        seat = state.to_act
        assert seat is not None
        view = player_view(state, seat)
        actions = enumerate_actions(view)
        assert actions, "the seat to act always has a legal action"
        assert actions[-1] == Resign()
        # Notation: every legal action survives format -> parse.
        for legal in actions:
            assert parse_action(format_action(legal)) == legal, legal
        # Nobody else may act now.
        for other in range(state.players):
            if other != seat:
                assert enumerate_actions(player_view(state, other)) == []
        choices = [a for a in actions if not isinstance(a, Resign)]
        if state.phase == "selection":
            assert all(isinstance(a, SelectPieces) for a in choices)
        else:
            assert all(isinstance(a, PlacePiece) for a in choices)
            if exhaustive < 2 and chance.random() < 0.03:
                exhaustive += 1
                check_exhaustive_legality(state, seat, actions)
        action: Any
        if not resigned and chance.random() < 0.004:
            action = Resign()
            resigned = True
        else:
            action = data.draw(st.sampled_from(choices), label="action")
        before = copy.deepcopy(state)
        new_state, new_events = execute(state, seat, action, rng)
        assert state == before, "execute must not change the state passed in"
        assert new_events
        if isinstance(action, PlacePiece) and new_state.undoable is not None and undos < 4 and chance.random() < 0.05:
            # The operator takes the placement back: the position is as before it.
            undos += 1
            undone_state, undo_events = execute(new_state, None, UndoLastPlacement("hypothesis"), rng)
            assert [e["type"] for e in undo_events] == ["placement_undone"]
            assert state_without_bookkeeping(undone_state) == state_without_bookkeeping(state)
            new_events = new_events + undo_events
            new_state = undone_state
        events.extend(new_events)
        for event in new_events:
            apply_in_place(before, event)
            check_state_invariants(before)
        assert before == new_state, "the fold of the new events differs from the state execute returned"
        state = new_state
    # The end: non-resigned colours used all their pieces when every round was played.
    assert fold(events) == state
    assert fold(json.loads(json.dumps(events))) == state
    played_all = sum(1 for e in events if e["type"] == "round_scored") == options.rounds
    if not resigned:
        assert played_all
    if played_all:
        for colour in state.all_colours:
            if not state.resigned[state.colour_player[colour]]:
                on_board = sum(1 for b in state.board if b is not None for c, _ in b.pieces if c == colour)
                assert on_board + state.lost[colour] == PIECES_PER_COLOUR
    for winner in state.winners:
        assert not state.resigned[winner]
    check_redacted_log(events, state.players)


@SETTINGS
@given(options=variants, seed=seeds, data=st.data())
def test_notation_round_trips_in_random_positions(options: GameOptions, seed: int, data: Any) -> None:
    """Play a hypothesis-chosen number of random moves, then put every legal action
    of the seat to act through format/parse, as written and in other spellings."""
    rng = random.Random(seed)
    state = initial_state(create_game(options, rng))
    steps = data.draw(st.integers(0, 150), label="steps")
    for _ in range(steps):
        if state.is_finished:
            break
        seat = state.to_act
        assert seat is not None
        moves = [a for a in enumerate_actions(player_view(state, seat)) if not isinstance(a, Resign)]
        state, _ = execute(state, seat, moves[rng.randrange(len(moves))], rng)
    if state.is_finished:
        return
    seat = state.to_act
    assert seat is not None
    actions = enumerate_actions(player_view(state, seat))
    for action in actions:
        text = format_action(action)
        assert parse_action(text) == action
        assert parse_action(text.upper()) == action
        assert parse_action(f"  {text.replace(' ', ' , ')}  ") == action

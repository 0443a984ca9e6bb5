"""Property tests over whole bot games of every variant (hypothesis): the
simulator (``play_game``) plays them with a hypothesis-chosen seed and bot
mix, and every property is checked on every event.

The variants, strategies and the checks run on every event are in
tests/support/invariants.py."""

from __future__ import annotations

import copy
import json
import random
from collections import Counter

import pytest
from hypothesis import given

from games.engine import (
    COLOUR_NAMES,
    RuleError,
    UndoLastPlacement,
    apply_event,
    execute,
    fold,
    initial_state,
    score_board,
)
from games.engine.events import apply_in_place
from games.engine.simulate import SimulatedGame
from tests.support.invariants import (
    PIECES_PER_COLOUR,
    SETTINGS,
    SIZE_COUNTS,
    check_redacted_log,
    check_state_invariants,
    check_views,
    points_by_colour,
    replay_checking,
    simulated_games,
    state_without_bookkeeping,
)

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

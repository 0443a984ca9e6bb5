"""Property tests over games driven one action at a time, hypothesis choosing
among ``enumerate_actions`` of the seat to act (``st.data()``), with now and
then an undo or a resignation; every property is checked on every event.

The variants, strategies and the checks run on every event are in
tests/support/invariants.py."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from games.engine import (
    GameOptions,
    PlacePiece,
    Resign,
    SelectPieces,
    UndoLastPlacement,
    create_game,
    enumerate_actions,
    execute,
    fold,
    format_action,
    initial_state,
    parse_action,
    player_view,
)
from games.engine.events import apply_in_place
from tests.support.invariants import (
    PIECES_PER_COLOUR,
    SETTINGS,
    check_exhaustive_legality,
    check_redacted_log,
    check_state_invariants,
    seeds,
    state_without_bookkeeping,
    variants,
)


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

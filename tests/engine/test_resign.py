"""Resignation: the turn passes, the buildings stay, and the resigned player neither acts nor wins."""

from __future__ import annotations

from games.engine import (
    PlacePiece,
    Resign,
    SelectPieces,
)
from games.engine.events import (
    GAME_FINISHED,
    PIECE_PLACED,
    PLAYER_RESIGNED,
)
from games.engine.state import FINISHED, SELECTION
from tests.support.engine_positions import (
    BLUE,
    GREEN,
    RED,
    YELLOW,
    execute,
    game_in_placement,
    new_game,
    rule_error,
    types,
)


def test_resign_on_turn_passes_the_turn_and_buildings_stay():
    game = game_in_placement()
    game.place_first_legal()  # seat 0
    built = [b for b in game.state.board if b is not None]
    events = game.act(1, Resign())
    assert types(events)[0] == PLAYER_RESIGNED
    state = game.state
    assert state.resigned == [False, True, False, False]
    assert state.to_act == 2
    assert state.selection[BLUE] == [0, 0, 0, 0]
    assert state.reserve[BLUE] == [0, 0, 0, 0]
    assert [b for b in state.board if b is not None] == built


def test_resigned_player_cannot_act():
    game = game_in_placement()
    game.act(2, Resign())
    err = rule_error(game.state, 2, PlacePiece(0, 0, 1))
    assert err.code == "player_resigned"
    assert rule_error(game.state, 2, Resign()).code == "player_resigned"


def test_resigned_player_is_skipped_in_turns_and_later_selections():
    game = game_in_placement()
    game.act(1, Resign())
    players = []
    for _ in range(6):
        players += [e["player"] for e in game.place_first_legal() if e["type"] == PIECE_PLACED]
    assert players == [0, 2, 3, 0, 2, 3]
    while game.state.round == 1:
        game.place_first_legal()
    assert game.state.phase == SELECTION
    assert BLUE not in game.state.selection_queue
    assert game.state.selection_queue == [GREEN, YELLOW, RED]  # round 2 starts with seat 1's turn passed


def test_resign_during_selection_removes_the_colours_from_the_queue():
    game = new_game(2, start_player=0)
    game.act(0, SelectPieces((1, 2, 3, 4), colour=RED))
    game.act(1, Resign())
    # Only two players: one left, so the game ends at once.
    assert game.state.phase == FINISHED
    assert game.state.winners == (0,)
    assert types(game.events)[-1] == GAME_FINISHED


def test_resign_in_three_players_game_continues_then_ends_with_the_last_player():
    game = new_game(3, start_player=0)
    game.act(1, Resign())
    assert game.state.selection_queue == [RED, GREEN]
    assert not game.state.is_finished
    game.act(0, Resign())
    assert game.state.is_finished
    assert game.state.winners == (2,)


def test_resigned_player_cannot_win_even_with_more_points():
    game = new_game(3, start_player=0)
    state = game.state.copy()
    state.scores = {RED: 40, BLUE: 10, GREEN: 5}
    new, _ = execute(state, 0, Resign())
    new, events = execute(new, 1, Resign())
    assert events[-1]["type"] == GAME_FINISHED
    assert new.winners == (2,)

"""The post-game review (games/engine/review.py): it marks a move that threw a majority
away, it reads each seat's view only, and it is a function of the log and the seed."""

from __future__ import annotations

import random

from games.engine import GameOptions, create_game, initial_state, player_view
from games.engine.actions import Action, PlacePiece, SelectPieces, UndoLastPlacement
from games.engine.bots import _as_action, greedy_bot
from games.engine.commands import execute_trusted
from games.engine.constants import LOTS_PER_CITY
from games.engine.events import Event
from games.engine.review import MoveReview, Thresholds, played_key, review_game, review_move, reviewable_moves
from games.engine.rules import Placement
from games.engine.search import Key, selection_choices
from games.engine.simulate import play_game
from games.engine.views import PlayerView
from tests.support.engine_positions import (
    my_legal_placements,
    new_game,
    points_after,
    position,
    with_hidden_cards_dealt_again,
)


def immediate_difference(view: PlayerView, p: Placement) -> int:
    seat = view.seat
    assert seat is not None
    points = points_after(view.board, p.city * LOTS_PER_CITY + p.lot, p.colour, p.size)
    mine = sum(points[c] for c in view.colours[seat])
    return mine - max(sum(points[c] for c in cs) for q, cs in enumerate(view.colours) if q != seat)


def game_with_a_thrown_majority(seed: int, throw_round: int) -> tuple[list[Event], int, int]:
    """A heads-up greedy game in which seat 0's first placement of ``throw_round`` is the worst
    by the immediate score difference (the biggest piece on a tie) instead of greedy's: it
    leaves a city's majority it could have taken. Returns the log, that move's index in it and
    how many points it gave away at once."""
    rng, bot_rng = random.Random(f"{seed}:game"), random.Random(f"{seed}:bots")
    created = create_game(GameOptions(players=2), rng)
    events: list[Event] = [created]
    state = initial_state(created)
    thrown = (-1, 0)
    while not state.is_finished:
        seat = state.to_act
        view = player_view(state, seat)
        action = greedy_bot(view, bot_rng)
        if seat == 0 and state.phase == "placement" and state.round == throw_round and thrown[0] < 0:
            legal = view.legal_placements()
            worst = min(legal, key=lambda p: (immediate_difference(view, p), -p.size))
            gap = max(immediate_difference(view, p) for p in legal) - immediate_difference(view, worst)
            thrown = (len(events), gap)
            action = _as_action(view, seat, worst)
        events += execute_trusted(state, seat, action, rng)
    return events, *thrown


def test_a_move_that_throws_a_majority_away_is_marked():
    events, thrown, gap = game_with_a_thrown_majority(seed=3, throw_round=3)
    assert gap >= 6  # a majority (and more) given away at once
    (review,) = review_game(events, only={thrown})
    assert review.event_index == thrown
    assert review.seat == 0
    assert review.kind == "placement"
    assert review.played != review.best
    assert review.cost >= Thresholds().inaccuracy
    assert review.mark is not None
    assert 0.0 <= review.chance_after < review.chance_before <= 1.0


def test_the_move_the_bot_would_play_costs_nothing():
    view = player_view(position(2, 30), position(2, 30).to_act)
    best, _, _, _ = review_move(view, any_key(view), random.Random(4), iterations=60)
    again = review_move(view, key_of(view, best), random.Random(4), iterations=60)  # the same search chooses
    assert again[0] == best
    assert again[1] == again[2]
    assert again[3] is None


def any_key(view: PlayerView) -> Key:
    """A legal move of the seat to act: the last sensible selection, or the first placement."""
    if view.phase == "selection":
        colour = view.selecting_colour
        assert colour is not None
        return selection_choices(view.reserve[colour], view.options.pieces_per_round)[-1]
    p = view.legal_placements()[0]
    return Placement(p.card, p.city, -1, p.size, p.colour)


def key_of(view: PlayerView, action: Action) -> Key:
    seat = view.seat
    assert seat is not None
    if isinstance(action, SelectPieces):
        return tuple(sorted(action.pieces))
    assert isinstance(action, PlacePiece)
    colour = action.colour if action.colour is not None else view.colours[seat][0]
    return Placement(action.card, action.city, -1, action.size, colour)


def test_the_review_reads_the_view_only():
    """Dealt the hidden cards anew, the same position gives the same review at the same seed."""
    for players, moves in ((2, 24), (4, 30)):
        state = position(players, moves)
        seat = state.to_act
        other = with_hidden_cards_dealt_again(state, seat, seed=5)
        assert other.hands != state.hands or other.draw_pile != state.draw_pile
        view, other_view = player_view(state, seat), player_view(other, seat)
        played = any_key(view)
        first = review_move(view, played, random.Random(9), iterations=40)
        assert review_move(other_view, played, random.Random(9), iterations=40) == first


def test_a_review_is_a_function_of_the_log_and_the_seed_and_covers_every_move():
    events = play_game(GameOptions(players=2), ["greedy", "greedy"], "review:log").events
    moves = reviewable_moves(events)
    placements = sum(1 for e in events if e["type"] == "piece_placed")
    selections = sum(1 for e in events if e["type"] == "pieces_selected")
    forced = 4  # the last round's selections are made by the engine, not by a seat
    assert len(moves) == placements + selections - forced
    some = {moves[3][0], moves[40][0]}
    first = review_game(events, seed="s", iterations=30, only=some)
    assert [r.event_index for r in first] == sorted(some)
    assert review_game(events, seed="s", iterations=30, only=some) == first
    assert all(isinstance(r, MoveReview) and r.seat == events[r.event_index]["player"] for r in first)
    assert all(played_key(events[r.event_index]) for r in first)


def test_thresholds_mark_the_largest_that_fits():
    marks = Thresholds(inaccuracy=0.1, mistake=0.2, blunder=0.3)
    assert [marks.mark(c) for c in (0.05, 0.1, 0.25, 0.3, 0.9)] == [None, "inaccuracy", "mistake", "blunder", "blunder"]


def test_an_undone_placement_is_not_reviewed_and_the_one_that_replaced_it_is():
    game = new_game(2, seed=4)
    game.select_all()
    first = my_legal_placements(game.state)[0]
    game.place(first)
    undone_at = len(game.events) - 1
    game.act(None, UndoLastPlacement(reason="misclick"))
    other = next(p for p in my_legal_placements(game.state) if p.city != first.city)
    game.place(other)
    indexes = [index for index, _ in reviewable_moves(game.events)]
    assert undone_at not in indexes
    assert len(game.events) - 1 in indexes
    view = dict(reviewable_moves(game.events))[len(game.events) - 1]
    assert view.seat == game.events[-1]["player"]
    assert view.board.building(first.city * 9 + first.lot) is None  # the view before the new placement

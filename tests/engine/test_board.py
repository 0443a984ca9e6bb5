"""The flat board (games/engine/board.py): the counts R17 needs, kept as it
goes, always equal what a count from scratch gives; and to callers it is still
a read-only sequence of buildings."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine.board import Board, Building
from games.engine.rules import can_place
from tests.support.engine_positions import points_after

placements = st.lists(st.tuples(st.integers(0, 53), st.integers(0, 3), st.integers(1, 4)), max_size=80)


def score_from_scratch(buildings: list[Building | None]) -> list[int]:
    """R17 written out again over buildings: 1 a building, 2 a city led alone, 3 the single tallest."""
    points = [0, 0, 0, 0]
    for city in range(6):
        owned = Counter(b.owner for b in buildings[city * 9 : city * 9 + 9] if b is not None)
        for colour, n in owned.items():
            points[colour] += n
        ranked = owned.most_common()
        if ranked and (len(ranked) == 1 or ranked[0][1] > ranked[1][1]):
            points[ranked[0][0]] += 2
    heights = [b.height for b in buildings if b is not None]
    if heights and heights.count(max(heights)) == 1:
        points[next(b.owner for b in buildings if b is not None and b.height == max(heights))] += 3
    return points


def built(moves: list[tuple[int, int, int]]) -> tuple[Board, list[Building | None]]:
    board = Board()
    buildings: list[Building | None] = [None] * 54
    for index, colour, size in moves:
        board.place(index, colour, size)
        before = buildings[index]
        buildings[index] = Building.new(colour, size) if before is None else before.add(colour, size)
    return board, buildings


@settings(max_examples=120, deadline=None)
@given(moves=placements, counted_from=st.integers(0, 80), probe=st.tuples(st.integers(0, 53), st.integers(0, 3)))
def test_kept_counts_equal_a_count_from_scratch(moves, counted_from, probe):
    board = Board()
    buildings: list[Building | None] = [None] * 54
    for step, (index, colour, size) in enumerate(moves):
        if step == counted_from:
            board.points()  # from here on the board keeps its counts as it goes
        board.place(index, colour, size)
        before = buildings[index]
        buildings[index] = Building.new(colour, size) if before is None else before.add(colour, size)
        assert board.points() == score_from_scratch(buildings)
    assert list(board) == buildings
    index, colour = probe
    for size in (1, 2, 3, 4):
        after = list(buildings)
        after[index] = Building.new(colour, size) if after[index] is None else after[index].add(colour, size)
        assert points_after(board, index, colour, size) == score_from_scratch(after)
        assert board.accepts(index, colour, size) == can_place(buildings[index], colour, size)


@settings(max_examples=60, deadline=None)
@given(moves=placements.filter(bool))
def test_taking_the_top_piece_off_restores_the_board(moves):
    board, _ = built(moves)
    index = moves[-1][0]
    before, _ = built(moves[:-1])
    board.points()
    board.remove_top(index)
    assert board == before
    assert board.points() == score_from_scratch(list(before))


@settings(max_examples=60, deadline=None)
@given(moves=placements)
def test_a_copy_is_independent_and_equal(moves):
    board, buildings = built(moves)
    copy = board.copy()
    assert copy == board
    assert Board.from_buildings(buildings) == board
    copy.place(0, 1, 4)
    assert list(board) == buildings
    assert copy != board


def test_a_board_reads_as_a_sequence_of_buildings():
    board, buildings = built([(4, 0, 2), (4, 1, 3), (13, 2, 1)])
    assert len(board) == 54
    assert board[4] == Building(((0, 2), (1, 3)), 1, 5, (2, 3, 0, 0))
    assert board[-50] == board[4]
    assert board[9:18] == buildings[9:18]
    assert board == buildings
    assert [i for i, b in enumerate(board) if b is not None] == [4, 13]
    with pytest.raises(IndexError):
        board[54]
    with pytest.raises(TypeError):
        hash(board)
    assert "(0, 2), (1, 3)" in repr(board)


def test_from_buildings_needs_54_lots():
    with pytest.raises(ValueError, match="54"):
        Board.from_buildings([None] * 9)


def test_random_boards_score_like_score_board():
    from games.engine.rules import score_board

    rng = random.Random(4)
    for _ in range(50):
        moves = [(rng.randrange(54), rng.randrange(4), rng.randint(1, 4)) for _ in range(rng.randrange(60))]
        board, buildings = built(moves)
        assert score_board(buildings, range(4)) == dict(enumerate(score_from_scratch(buildings)))
        assert score_board(board, range(4)) == dict(enumerate(board.points()))

"""The strong bot (ISMCTS, games/engine/search.py): it sees only its seat's
view, is deterministic for a seed and an iteration budget, always plays legal
actions, and searches both selections (R9) and placements."""

from __future__ import annotations

import random
import time
import tracemalloc
from collections import Counter

import pytest

from games.engine import (
    GameOptions,
    PlacePiece,
    SelectPieces,
    create_game,
    enumerate_actions,
    execute,
    initial_state,
    player_view,
)
from games.engine.bots import BOTS, bot_for, greedy_bot, strong_bot_with
from games.engine.determinize import HiddenCards, sample_state
from games.engine.search import Budget, selection_choices
from tests.support.engine_positions import position, with_hidden_cards_dealt_again


@pytest.mark.parametrize(("players", "moves"), [(2, 20), (4, 30), (3, 0)])
def test_the_decision_depends_on_the_view_only(players, moves):
    state = position(players, moves)
    seat = state.to_act
    other = with_hidden_cards_dealt_again(state, seat, seed=11)
    assert other.hands != state.hands or other.draw_pile != state.draw_pile
    assert player_view(other, seat) == player_view(state, seat)
    bot = bot_for("strong", iterations=40)
    assert bot(player_view(state, seat), random.Random(5)) == bot(player_view(other, seat), random.Random(5))


def test_deterministic_for_a_seed_and_an_iteration_budget():
    state = position(4, 40)
    view = player_view(state, state.to_act)
    bot = strong_bot_with(iterations=60)
    first = bot(view, random.Random("seed"))
    assert all(bot(view, random.Random("seed")) == first for _ in range(2))


def test_a_whole_game_of_legal_actions_with_selections_and_placements():
    """Every action goes through the validating ``execute``; both kinds of decision are searched."""
    rng = random.Random(8)
    state = initial_state(create_game(GameOptions(players=2), rng))
    strong = bot_for("strong", iterations=12)
    bot_rng = random.Random(9)
    kinds: Counter[str] = Counter()
    while not state.is_finished:
        seat = state.to_act
        view = player_view(state, seat)
        action = strong(view, bot_rng) if seat == 0 else greedy_bot(view, bot_rng)
        if seat == 0:
            assert action in enumerate_actions(view)
            kinds[type(action).__name__] += 1
        state, _ = execute(state, seat, action, rng)
    assert kinds["SelectPieces"] == 2 * 5  # two colours, every round but the forced last
    assert kinds["PlacePiece"] >= 40


def test_a_selection_is_searched_among_sensible_choices():
    state = position(4, 0)
    seat = state.to_act
    view = player_view(state, seat)
    action = bot_for("strong", iterations=30)(view, random.Random(1))
    assert isinstance(action, SelectPieces)
    assert action.pieces in selection_choices(view.reserve[view.selecting_colour], 6)
    assert action in enumerate_actions(view)


def test_selection_choices_are_legal_distinct_and_start_with_the_balanced_one():
    for reserve, k in (([11, 6, 4, 3], 6), ([2, 0, 1, 1], 4), ([4, 0, 0, 0], 4), ([5, 3, 2, 2], 4)):
        choices = selection_choices(reserve, k)
        assert choices
        assert len(set(choices)) == len(choices)
        for pieces in choices:
            assert len(pieces) == k
            assert all(pieces.count(s) <= reserve[s - 1] for s in (1, 2, 3, 4))
    assert selection_choices([4, 0, 0, 0], 4) == [(1, 1, 1, 1)]


def test_a_time_budget_is_kept_in_cpu_time():
    view = player_view(position(4, 10), position(4, 10).to_act)
    started = time.thread_time()
    action = strong_bot_with(seconds=0.2)(view, random.Random(2))
    # 0.2 s of the thread's CPU (however busy the machine), plus one iteration and set-up
    assert 0.2 <= time.thread_time() - started < 0.6
    assert isinstance(action, PlacePiece | SelectPieces)


def test_budgets_and_registration():
    assert "strong" in BOTS
    assert bot_for("greedy", iterations=5) is greedy_bot  # only search bots take a budget
    with pytest.raises(ValueError, match="budget"):
        Budget(iterations=None, seconds=None)
    with pytest.raises(ValueError, match="unknown bot"):
        bot_for("clever")


def test_a_search_stays_small_in_memory():
    view = player_view(position(2, 25), position(2, 25).to_act)
    tracemalloc.start()
    try:
        strong_bot_with(iterations=150)(view, random.Random(3))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 10 * 2**20, f"{peak / 2**20:.1f} MiB for 150 iterations"


@pytest.mark.parametrize(("players", "moves"), [(2, 15), (3, 33), (4, 50)])
def test_a_sampled_state_shows_the_seat_exactly_its_view(players, moves):
    state = position(players, moves)
    seat = state.to_act
    view = player_view(state, seat)
    hidden = HiddenCards(view)
    for seed in range(5):
        sample = sample_state(view, hidden, random.Random(seed))
        assert player_view(sample, seat) == view
        assert sample.selection_queue == state.selection_queue
        cards = Counter(sample.draw_pile)
        for hand in sample.hands:
            cards.update(hand)
        for pile in sample.discards:
            cards.update(pile)
        assert cards == Counter({card: 5 for card in range(9)})

"""Bot levels (easy, medium, hard, strongest), the sampled playout policy the search now
plays its playouts with (and the easy level plays by), and the greedy playouts kept for
comparison at equal CPU."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engine import GameOptions, create_game, enumerate_actions, execute, initial_state, player_view
from games.engine.bots import BOTS, LEVELS, VARIANTS, bot_for, bot_kinds, greedy_bot, random_bot, sampled_bot
from games.engine.constants import CITIES, LOTS_PER_CITY
from games.engine.determinize import Deals, HiddenCards, sample_state
from games.engine.playout import PLAYOUT_POLICIES, policy_placement
from games.engine.rotation import CARD_INDEXES
from games.engine.search import Budget, search
from games.engine.simulate import play_game
from games.engine.state import PLACEMENT, GameState
from tests.support.engine_positions import points_after, position


def random_position(players: int, seed: int, moves: int) -> GameState:
    """A position after ``moves`` actions of random and greedy bots (or the game's end)."""
    rng, bot_rng = random.Random(seed), random.Random(seed + 1)
    state = initial_state(create_game(GameOptions(players=players), rng))
    for step in range(moves):
        if state.is_finished:
            break
        seat = state.to_act
        bot = greedy_bot if step % 2 else random_bot
        state, _ = execute(state, seat, bot(player_view(state, seat), bot_rng), rng)
    return state


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    players=st.sampled_from((2, 3, 4)),
    seed=st.integers(0, 2**32 - 1),
    moves=st.integers(0, 140),
    samples=st.integers(1, 6),
)
def test_the_sampled_policy_plays_the_best_of_its_samples_by_points_after(players, seed, moves, samples):
    state = random_position(players, seed, moves)
    if state.is_finished or state.phase != PLACEMENT:
        return
    seat = state.to_act
    view = player_view(state, seat)
    action = policy_placement(state, seat, random.Random(seed), samples)
    assert action in enumerate_actions(view)
    expected = reference_policy(state, seat, random.Random(seed), samples)
    if expected is not None:  # else no sample was legal and it fell back to the first legal placement
        colour = action.colour if action.colour is not None else state.colours[seat][0]
        assert (action.card, action.city, action.size, colour) == expected


def reference_policy(state: GameState, seat: int, rng: random.Random, samples: int) -> tuple[int, ...] | None:
    """The sampled policy written plainly: the same draws, each judged by ``points_after``."""
    mine = state.colours[seat]
    pieces = [(c, s) for c in mine for s in (1, 2, 3, 4) if state.selection[c][s - 1]]
    hand, by_card, board = state.hands[seat], CARD_INDEXES[state.sides[seat]], state.board
    best, best_diff, tries, found = None, -1_000_000, 0, 0
    while found < samples and tries < 8 * samples:
        tries += 1
        card = hand[int(rng.random() * len(hand))]
        index = by_card[card][int(rng.random() * CITIES)]
        colour, size = pieces[int(rng.random() * len(pieces))]
        if not board.accepts(index, colour, size):
            continue
        found += 1
        points = points_after(board, index, colour, size)
        diff = sum(points[c] for c in mine) - max(
            sum(points[c] for c in cs) for q, cs in enumerate(state.colours) if q != seat
        )
        if diff > best_diff:
            best_diff, best = diff, (card, index // LOTS_PER_CITY, size, colour)
    return best


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(players=st.sampled_from((2, 4)), seed=st.integers(0, 2**32 - 1), moves=st.integers(0, 120))
def test_the_sampled_policy_scores_as_points_after_does(players, seed, moves):
    """The policy's own sum (points_untallest plus the tallest bonus) is points_after's:
    with one sample it plays its only sample, so the best of many samples of one placement
    is that placement whatever the count."""
    state = random_position(players, seed, moves)
    if state.is_finished or state.phase != PLACEMENT:
        return
    seat = state.to_act
    hidden_view = player_view(state, seat)
    completed = sample_state(hidden_view, HiddenCards(hidden_view), random.Random(1))
    assert policy_placement(completed, seat, random.Random(seed)) == policy_placement(
        state, seat, random.Random(seed)
    )  # reads only the seat's hand and public things


def test_the_easy_level_plays_whole_games_of_legal_moves_and_loses_to_greedy_more_often():
    wins = 0
    for game in range(6):
        rng = random.Random(game)
        state = initial_state(create_game(GameOptions(players=2), rng))
        bot_rng = random.Random(game + 100)
        while not state.is_finished:
            seat = state.to_act
            view = player_view(state, seat)
            action = sampled_bot(view, bot_rng) if seat == game % 2 else greedy_bot(view, bot_rng)
            assert action in enumerate_actions(view)
            state, _ = execute(state, seat, action, rng)
        wins += (game % 2) in state.winners
    assert wins <= 2  # plausible moves, but weaker than greedy's


def test_levels_and_variants_are_bots_but_not_seat_kinds():
    assert list(LEVELS) == ["easy", "medium", "hard", "strongest"]
    assert [LEVELS[name].seconds for name in ("medium", "hard", "strongest")] == [0.1, 1.0, 4.0]
    assert bot_for("easy") is sampled_bot
    assert set(bot_kinds()) == set(BOTS) | set(LEVELS) | set(VARIANTS)
    assert not set(LEVELS) & set(BOTS)  # the seat kinds (and the API's choices) are unchanged
    assert set(BOTS) == {"random", "greedy", "strong"}
    with pytest.raises(ValueError, match="unknown bot"):
        bot_for("hardest")


def test_a_level_keeps_its_own_budget_and_a_variant_takes_the_arenas():
    view = player_view(position(2, 20), position(2, 20).to_act)
    medium = bot_for("medium", iterations=1)  # the budget given is not the level's: ignored
    assert medium(view, random.Random(1)) in enumerate_actions(view)
    old = bot_for("strong-greedy-playouts", iterations=20)
    first = old(view, random.Random(2))
    assert first == old(view, random.Random(2))  # deterministic for an iteration budget


def test_both_playout_policies_search_and_an_unknown_one_is_refused():
    view = player_view(position(4, 30), position(4, 30).to_act)
    for name in PLAYOUT_POLICIES:
        result = search(view, random.Random(3), Budget(iterations=25, seconds=None, playout=name))
        assert result.iterations == 25
        assert result.root.visits == 25
    with pytest.raises(ValueError, match="playout"):
        Budget(iterations=5, playout="perfect")


def test_simulated_games_with_levels_are_deterministic_for_the_easy_one():
    first = play_game(GameOptions(players=3), ["easy", "greedy", "easy"], "levels").events
    assert play_game(GameOptions(players=3), ["easy", "greedy", "easy"], "levels").events == first


@pytest.mark.parametrize(("players", "moves"), [(2, 0), (2, 33), (3, 20), (4, 1), (4, 57)])
def test_deals_from_a_template_are_the_sampled_states(players, moves):
    """The search deals from a copy of a state built once (``Deals``): the same states, from the
    same generator, as building each from the view (``sample_state``)."""
    state = position(players, moves)
    view = player_view(state, state.to_act)
    hidden = HiddenCards(view)
    deals = Deals(view, hidden)
    for seed in range(3):
        dealt = deals.sample(random.Random(seed))
        assert dealt == sample_state(view, hidden, random.Random(seed))
        assert player_view(dealt, state.to_act) == view

"""R7 and R8: how many rounds and pieces a game has, and how it is set up
(scores, the deal, the start player, the shuffle)."""

from collections import Counter

import pytest

from games.engine import GameOptions
from games.engine.errors import RuleError
from games.engine.events import PIECE_LOST, PIECE_PLACED, PIECES_SELECTED, ROUND_SCORED
from games.engine.simulate import play_game
from games.engine.state import SELECTION
from tests.support.engine_positions import card_total, new_game, types

VARIANTS = [
    # (players, six_rounds, rounds, pieces per round)
    (4, False, 4, 6),
    (4, True, 6, 4),
    (3, False, 6, 4),
    (2, False, 6, 4),
]

# --- R7 Rounds ----------------------------------------------------------------------


@pytest.mark.parametrize(("players", "six_rounds", "rounds", "k"), VARIANTS)
def test_r7_rounds_and_pieces_per_round_for_every_variant(players, six_rounds, rounds, k):
    options = GameOptions(players=players, six_rounds=six_rounds)
    assert options.rounds == rounds
    assert options.pieces_per_round == k
    assert rounds * k == 24


def test_r7_six_rounds_option_changes_nothing_for_three_players():
    assert GameOptions(players=3, six_rounds=True).rounds == 6
    assert GameOptions(players=3, six_rounds=True).pieces_per_round == 4


@pytest.mark.parametrize("players", [1, 5, 0])
def test_r7_two_to_four_players(players):
    with pytest.raises(RuleError) as info:
        GameOptions(players=players)
    assert info.value.code == "bad_option"
    assert info.value.rule == "R7"


@pytest.mark.parametrize(("players", "six_rounds", "rounds", "k"), VARIANTS)
def test_r7_every_colour_uses_all_24_pieces_in_a_whole_game(players, six_rounds, rounds, k):
    game = play_game(GameOptions(players=players, six_rounds=six_rounds), ["random"] * players, f"r7-{players}")
    events, state = game.events, game.state
    assert state.is_finished
    colours = state.all_colours
    assert len(colours) == (3 if players == 3 else 4)
    used = Counter(e["colour"] for e in events if e["type"] in (PIECE_PLACED, PIECE_LOST))
    assert used == dict.fromkeys(colours, 24)
    placed: Counter[int] = Counter()
    for e in events:
        if e["type"] == PIECE_PLACED or e["type"] == PIECE_LOST:
            placed[(e["colour"], e["size"])] += 1
    for colour in colours:
        assert [placed[(colour, s)] for s in (1, 2, 3, 4)] == [11, 6, 4, 3]
        assert state.reserve[colour] == [0, 0, 0, 0]
    assert types(events).count(ROUND_SCORED) == rounds
    selections = [e for e in events if e["type"] == PIECES_SELECTED]
    assert len(selections) == rounds * len(colours)
    assert all(len(e["pieces"]) == k for e in selections)


# --- R8 Set-up --------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4])
def test_r8_scores_start_at_zero_and_four_cards_are_dealt(players):
    state = new_game(players).state
    assert all(v == 0 for v in state.scores.values())
    assert state.player_totals() == [0] * players
    assert [len(h) for h in state.hands] == [4] * players
    assert card_total(state) == 45
    assert state.round == 1
    assert state.phase == SELECTION


@pytest.mark.parametrize("start", [0, 1, 2, 3])
def test_r8_start_player_is_the_creators_choice(start):
    assert new_game(4, start_player=start).state.start_player == start


def test_r8_start_player_is_random_when_not_chosen():
    starts = {new_game(4, seed=seed, start_player=None).state.start_player for seed in range(60)}
    assert starts == {0, 1, 2, 3}


def test_r8_start_player_must_be_a_seat():
    with pytest.raises(RuleError) as info:
        GameOptions(players=3, start_player=3)
    assert info.value.code == "bad_option"
    assert info.value.rule == "R8"


def test_r8_deck_is_shuffled():
    deals = {tuple(new_game(4, seed=seed).state.draw_pile) for seed in range(5)}
    assert len(deals) == 5
    ordered = sorted(new_game(4, seed=0).state.draw_pile)
    assert all(list(pile) != ordered for pile in deals)

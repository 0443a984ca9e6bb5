"""What each seat may do, as it sees it (R4): legal_actions(view).to_json()."""

from __future__ import annotations

import random

from games.engine import (
    GameOptions,
    PlacePiece,
    Resign,
    RuleError,
    SelectPieces,
    enumerate_actions,
    execute,
    legal_actions,
    player_view,
)
from games.engine.simulate import play_game
from tests.support.stepped_games import COLOURS, Game, lot_for


def test_legal_actions_during_selection():
    game = Game(4)
    assert game.state.to_act == 0
    data = legal_actions(player_view(game.state, 0)).to_json()
    assert data["seat"] == 0
    assert data["phase"] == "selection"
    assert data["my_turn"] is True
    assert data["selection"] == {"colour": "red", "count": 6, "reserve": {"1": 11, "2": 6, "3": 4, "4": 3}}
    assert data["placements"] == []
    assert data["can_resign"] is True
    for seat in (1, 2, 3):
        other = legal_actions(player_view(game.state, seat)).to_json()
        assert other["my_turn"] is False
        assert other["selection"] is None
        assert other["placements"] == []


def test_legal_placements_grouped_by_card_with_one_based_numbers():
    game = Game(4)
    game.select_all()
    seat = game.state.to_act
    assert seat == 0
    for _ in range(5):  # a few placements in, so the board is not empty
        game.place_first_legal()
    seat = game.state.to_act
    assert seat is not None
    view = player_view(game.state, seat)
    legal = legal_actions(view)
    data = legal.to_json()
    assert data["my_turn"] is True
    assert data["phase"] == "placement"
    assert data["selection"] is None
    cards = [group["card"] for group in data["placements"]]
    assert cards == sorted(set(cards))
    assert set(cards) == {c + 1 for c in game.state.hands[seat]}
    side = game.state.sides[seat]
    colour = game.state.colours[seat][0]
    sizes_left = {s for s in (1, 2, 3, 4) if game.state.selection[colour][s - 1]}
    options = 0
    for group in data["placements"]:
        for option in group["options"]:
            options += 1
            assert 1 <= option["city"] <= 6
            assert option["lot"] == lot_for(group["card"] - 1, side) + 1
            assert option["size"] in sizes_left
            assert option["colour"] == COLOURS[colour]
    assert options == len(legal.placements)
    # Every option is accepted by the engine; nothing else with these cards is.
    accepted = set()
    for card in set(game.state.hands[seat]):
        for city in range(6):
            for size in (1, 2, 3, 4):
                try:
                    execute(game.state, seat, PlacePiece(card=card, city=city, size=size), random.Random(0))
                except RuleError:
                    continue
                accepted.add((card + 1, city + 1, size))
    listed = {(g["card"], o["city"], o["size"]) for g in data["placements"] for o in g["options"]}
    assert listed == accepted


def test_legal_placements_only_on_own_turn():
    game = Game(3)
    game.select_all()
    to_act = game.state.to_act
    for seat in range(3):
        view = player_view(game.state, seat)
        data = legal_actions(view).to_json()
        if seat == to_act:
            assert data["my_turn"] is True
            assert data["placements"]
            assert view.legal_placements()
            assert enumerate_actions(view)[-1] == Resign()
        else:
            assert data["my_turn"] is False
            assert data["placements"] == []
            assert view.legal_placements() == []
            assert enumerate_actions(view) == []


def test_legal_placements_on_an_empty_board():
    game = Game(4)
    game.select_all()
    seat = game.state.to_act
    data = legal_actions(player_view(game.state, seat)).to_json()
    distinct_cards = len(set(game.state.hands[seat]))
    assert len(data["placements"]) == distinct_cards
    for group in data["placements"]:
        # every city, each of the three sizes selected (1, 2, 3)
        assert len(group["options"]) == 6 * 3
        assert {o["city"] for o in group["options"]} == {1, 2, 3, 4, 5, 6}


def test_two_colour_player_sees_both_colours():
    game = Game(2, sides=(1, 3))
    game.select_all()
    seat = game.state.to_act
    assert seat == 0
    data = legal_actions(player_view(game.state, seat)).to_json()
    colours = {o["colour"] for g in data["placements"] for o in g["options"]}
    assert colours == {"red", "green"}
    for group in data["placements"]:
        for option in group["options"]:
            assert option["lot"] == lot_for(group["card"] - 1, 1) + 1  # seat 0 sits west
    actions = enumerate_actions(player_view(game.state, seat))
    placements = [a for a in actions if isinstance(a, PlacePiece)]
    assert {a.colour for a in placements} == {0, 2}


def test_two_colour_selection_names_the_colour():
    game = Game(2)
    data = legal_actions(player_view(game.state, 0)).to_json()
    assert data["selection"]["colour"] == "red"
    assert data["selection"]["count"] == 4
    actions = enumerate_actions(player_view(game.state, 0))
    assert all(a.colour == 0 for a in actions if isinstance(a, SelectPieces))
    game.act(0, SelectPieces(pieces=(1, 1, 1, 1), colour=0))
    # Clockwise from south: red (S) then green (also seat 0), then seat 1's colours.
    data = legal_actions(player_view(game.state, 0)).to_json()
    assert data["selection"]["colour"] == "green"


def test_finished_game_has_no_actions():
    game = play_game(GameOptions(players=2), ["random", "random"], "over")
    for seat in (0, 1):
        data = legal_actions(player_view(game.state, seat)).to_json()
        assert data["phase"] == "finished"
        assert data["my_turn"] is False
        assert data["can_resign"] is False
        assert data["placements"] == []
        view_data = player_view(game.state, seat).to_json()
        assert view_data["winners"] == list(game.state.winners)
        assert view_data["phase"] == "finished"

"""What each seat may see (R4): player_view and spectator_view."""

from __future__ import annotations

import json

import pytest

from games.engine import (
    legal_actions,
    player_view,
    spectator_view,
)
from tests.support.invariants import keys_in
from tests.support.stepped_games import COLOURS, Game


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_seat_sees_its_own_hand_only(players):
    game = Game(players)
    state = game.state
    for seat in range(players):
        view = player_view(state, seat)
        assert view.seat == seat
        assert view.hand == tuple(state.hands[seat])
        data = view.to_json()
        assert data["seat"] == seat
        assert data["hand"] == [c + 1 for c in state.hands[seat]]
        assert all(1 <= c <= 9 for c in data["hand"])
        for entry in data["players"]:
            assert "hand" not in entry
            assert set(entry) == {"seat", "side", "colours", "hand_size", "discards", "score", "resigned"}
        assert "draw_pile" not in keys_in(data)
        assert "hands" not in keys_in(data)
        json.dumps(data)  # JSON-ready


def test_hand_sizes_and_draw_pile_size_are_public():
    game = Game(4)
    data = player_view(game.state, 2).to_json()
    assert [p["hand_size"] for p in data["players"]] == [4, 4, 4, 4]
    assert data["draw_pile_size"] == 45 - 16
    game63 = Game(3, copies_per_position=7)
    assert player_view(game63.state, 0).to_json()["draw_pile_size"] == 63 - 12
    assert player_view(game63.state, 0).draw_pile_size == 63 - 12

    game.select_all()
    game.place_first_legal()
    data = player_view(game.state, 2).to_json()
    assert [p["hand_size"] for p in data["players"]] == [4, 4, 4, 4]
    assert data["draw_pile_size"] == 45 - 16 - 1
    placed = next(e for e in game.events if e["type"] == "piece_placed")
    assert placed["player"] == 0
    assert data["players"][0]["discards"] == [placed["card"] + 1]  # played cards are public (R11)


def test_view_players_sides_colours_and_version():
    game = Game(2, sides=(1, 3))
    data = player_view(game.state, 1).to_json()
    assert [p["side"] for p in data["players"]] == ["W", "E"]
    assert [p["colours"] for p in data["players"]] == [["red", "green"], ["blue", "yellow"]]
    assert data["rounds"] == 6
    assert data["version"] == game.state.seq == 1
    assert player_view(game.state, 1).version == game.state.seq


def test_spectator_has_no_hand():
    game = Game(3)
    view = spectator_view(game.state)
    assert view == player_view(game.state, None)
    assert view.seat is None
    assert view.hand is None
    assert not view.my_turn
    assert view.legal_placements() == []
    data = view.to_json()
    assert data["hand"] is None
    assert data["seat"] is None
    assert [p["hand_size"] for p in data["players"]] == [4, 4, 4]
    assert "draw_pile" not in keys_in(data)
    text = json.dumps(data)
    assert json.dumps([c + 1 for c in game.state.draw_pile]) not in text
    with pytest.raises(ValueError, match="spectator"):
        legal_actions(view)


def test_view_to_json_is_an_independent_copy():
    game = Game(4)
    view = player_view(game.state, 0)
    data = view.to_json()
    data["hand"].append(1)
    data["colours"]["red"]["reserve"]["1"] = 0
    assert player_view(game.state, 0).to_json()["hand"] == [c + 1 for c in game.state.hands[0]]
    assert game.state.reserve[0] == [11, 6, 4, 3]


def test_view_reserve_selection_and_board():
    game = Game(4)
    game.select_all()
    data = player_view(game.state, 1).to_json()
    assert data["phase"] == "placement"
    for name in COLOURS:
        assert data["colours"][name]["selection"] == {"1": 4, "2": 1, "3": 1, "4": 0}
        assert data["colours"][name]["reserve"] == {"1": 7, "2": 5, "3": 3, "4": 3}
    new = game.place_first_legal()
    placed = new[0]
    data = player_view(game.state, 3).to_json()
    building = data["board"][placed["city"]][placed["lot"]]
    assert building == {
        "owner": "red",
        "height": placed["size"],
        "pieces": [{"colour": "red", "size": placed["size"]}],
        "storeys": {"red": placed["size"]},
    }
    assert sum(1 for city in data["board"] for lot in city if lot is not None) == 1

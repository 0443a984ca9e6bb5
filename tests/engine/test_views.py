"""What each seat may see (R4): player_view, spectator_view, redact_events and
legal_actions(view).to_json()."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from games.engine import (
    GameOptions,
    PlacePiece,
    Resign,
    RuleError,
    SelectPieces,
    UndoLastPlacement,
    create_game,
    enumerate_actions,
    execute,
    initial_state,
    legal_actions,
    player_view,
    redact_event,
    redact_events,
    spectator_view,
)
from games.engine.simulate import play_game
from tests.support.invariants import keys_in

COLOURS = ("red", "blue", "green", "yellow")


def lot_for(card: int, side: int) -> int:
    """R6, 0-based card and lot, written out independently of the engine."""
    r, c = divmod(card, 3)
    rr, cc = [(r, c), (c, 2 - r), (2 - r, 2 - c), (2 - c, r)][side]
    return 3 * rr + cc


class Game:
    """A game driven step by step, keeping its log."""

    def __init__(self, players: int = 4, seed: int = 3, **options: Any) -> None:
        self.rng = random.Random(seed)
        self.events = [create_game(GameOptions(players=players, start_player=0, **options), self.rng)]
        self.state = initial_state(self.events[0])

    def act(self, seat: int | None, action: Any) -> list[dict[str, Any]]:
        self.state, new = execute(self.state, seat, action, self.rng)
        self.events.extend(new)
        return new

    def select_all(self) -> None:
        k = self.state.options.pieces_per_round
        while self.state.phase == "selection":
            colour = self.state.selecting_colour
            self.act(self.state.to_act, SelectPieces(pieces=(1,) * (k - 2) + (2, 3), colour=colour))

    def place_first_legal(self) -> list[dict[str, Any]]:
        seat = self.state.to_act
        assert seat is not None
        actions = [a for a in enumerate_actions(player_view(self.state, seat)) if isinstance(a, PlacePiece)]
        return self.act(seat, actions[0])


# --- player_view / spectator_view ---------------------------------------------------


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


# --- redact_events ------------------------------------------------------------------------


def test_redacted_creation_event_shows_only_own_hand():
    game = Game(4)
    created = game.events[0]
    for seat in range(4):
        shown = redact_event(created, seat)
        assert "draw_pile" not in shown
        assert shown["draw_pile_size"] == 29
        assert shown["hand_sizes"] == [4, 4, 4, 4]
        assert shown["hands"] == [created["hands"][p] if p == seat else None for p in range(4)]
    spectator = redact_event(created, None)
    assert spectator["hands"] == [None, None, None, None]
    assert "draw_pile" not in spectator
    # The original log is untouched.
    assert "draw_pile" in created
    assert all(h is not None for h in created["hands"])


def test_other_players_draws_appear_as_drew_none_with_count():
    game = Game(4)
    game.select_all()
    game.place_first_legal()
    placed = next(e for e in game.events if e["type"] == "piece_placed")
    assert placed["player"] == 0
    assert placed["drew"] is not None
    own = redact_events(game.events, 0)[-1]
    assert own["drew"] == placed["drew"]
    assert "drew_count" not in own
    for seat in (1, 2, 3, None):
        shown = redact_events(game.events, seat)[-1]
        assert shown["drew"] is None
        assert shown["drew_count"] == 1
        # Everything else of the placement is public.
        for key in ("player", "colour", "card", "city", "lot", "size"):
            assert shown[key] == placed[key]
    assert placed["drew"] is not None  # redaction copies, never changes the log


def test_reshuffles_are_never_shown():
    game = play_game(GameOptions(players=4), ["random"] * 4, "reshuffle")
    reshuffled = [i for i, e in enumerate(game.events) if "reshuffle" in e]
    assert reshuffled, "a 4-player game with a 45-card deck reshuffles"
    for seat in (0, 1, 2, 3, None):
        redacted = redact_events(game.events, seat)
        for i in reshuffled:
            assert "reshuffle" not in redacted[i]
            assert redacted[i]["reshuffled"] is True
        for i, event in enumerate(redacted):
            assert "reshuffle" not in event
            if i not in reshuffled:
                assert "reshuffled" not in event
        text = json.dumps(redacted)
        for i in reshuffled:
            order = game.events[i]["reshuffle"]
            assert json.dumps(order) not in text
            assert json.dumps([c + 1 for c in order]) not in text


def test_hand_redraw_shows_the_discarded_hand_but_not_the_new_one():
    event = {"type": "hand_redrawn", "v": 1, "player": 1, "discarded": [7, 7, 7, 7], "drew": [0, 1, 2, 3]}
    mine = redact_event(event, 1)
    assert mine["drew"] == [0, 1, 2, 3]
    assert mine["discarded"] == [7, 7, 7, 7]
    for seat in (0, 2, None):
        shown = redact_event(event, seat)
        assert shown["drew"] is None
        assert shown["drew_count"] == 4
        assert shown["discarded"] == [7, 7, 7, 7]  # R16: the player shows the hand


def test_real_redraw_in_a_simulated_game_is_redacted():
    game = play_game(GameOptions(players=4), ["random"] * 4, "309")  # seed with an R16 redraw
    index = next(i for i, e in enumerate(game.events) if e["type"] == "hand_redrawn")
    event = game.events[index]
    for seat in range(4):
        shown = redact_events(game.events, seat)[index]
        if seat == event["player"]:
            assert shown["drew"] == event["drew"]
        else:
            assert shown["drew"] is None
            assert shown["drew_count"] == len(event["drew"]) == 4


def test_undone_placement_hides_the_returned_card_from_others():
    game = Game(3)
    game.select_all()
    game.place_first_legal()
    placed = game.events[-1]
    game.act(None, UndoLastPlacement("typo"))
    undone = game.events[-1]
    assert undone["type"] == "placement_undone"
    assert redact_event(undone, placed["player"])["drew"] == placed["drew"]
    for seat in (1, 2, None):
        shown = redact_event(undone, seat)
        assert shown["drew"] is None
        assert shown["drew_count"] == 1
        assert shown["reason"] == "typo"


def test_public_events_pass_unchanged():
    game = Game(2)
    game.select_all()
    for event in game.events[1:]:
        assert event["type"] == "pieces_selected"
        for seat in (0, 1, None):
            assert redact_event(event, seat) == event


# --- legal_actions(view).to_json() ------------------------------------------------------


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

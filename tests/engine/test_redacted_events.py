"""What each seat may see of the log (R4): redact_events hides other hands and the draws' cards."""

from __future__ import annotations

import json

from games.engine import (
    GameOptions,
    UndoLastPlacement,
    redact_event,
    redact_events,
)
from games.engine.simulate import play_game
from tests.support.stepped_games import Game


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

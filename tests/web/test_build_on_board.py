"""Building on the board, as the page prepares it: the legal lots and pieces
per card, the board from the player's side, the landmarks drawn on it, and a
move sent twice that plays once."""

from __future__ import annotations

import html as html_lib
import json
import re
from typing import Any

import pytest
from django.template.loader import render_to_string

from games import engine, store
from games.engine.rotation import CARD_TO_LOT
from games.models import Game
from games.presentation import board
from games.presentation.build import build_options

pytestmark = pytest.mark.django_db


def page_of(client: Any, game: Game, query: str = "") -> str:
    response = client.get(f"/games/{game.public_id}/{query}")
    assert response.status_code == 200
    return str(response.content.decode())


def options_in(page: str) -> dict[str, Any]:
    found = re.search(r'<script id="build-options" type="application/json">(.*?)</script>', page, re.S)
    assert found is not None, "the page carries its build options"
    data: dict[str, Any] = json.loads(found.group(1))
    return data


def test_each_card_lists_exactly_the_engines_legal_lots_and_pieces(placing_game, alice, browser):
    options = options_in(page_of(browser(alice), placing_game))
    state = store.state_of(placing_game)
    assert state is not None
    legal = engine.legal_actions(engine.player_view(state, 0))
    expected: set[tuple[str, str, int, str]] = {
        (str(p.card + 1), f"{p.city + 1}-{p.lot + 1}", p.size, engine.COLOUR_NAMES[p.colour]) for p in legal.placements
    }
    offered = {
        (card, spot, choice["size"], choice["colour"])
        for card, lots in options.items()
        for spot, where in lots.items()
        for choice in where["choices"]
    }
    assert offered == expected  # nothing illegal, nothing legal left out
    # Every city a card can build in is offered (a card names a lot in each city).
    for card, lots in options.items():
        assert {where["city"] for where in lots.values()} == {
            p.city + 1 for p in legal.placements if p.card + 1 == int(card)
        }


def test_a_two_colour_player_chooses_from_one_list_of_colour_and_size(placing_game, alice, browser):
    options = options_in(page_of(browser(alice), placing_game))
    labels = {choice["label"] for lots in options.values() for where in lots.values() for choice in where["choices"]}
    assert labels
    for label in labels:
        assert re.fullmatch(r"(red|green) [1-4]", label), label  # alice plays red and green


def test_a_one_colour_player_chooses_sizes_only():
    placements = [engine.Placement(card=0, city=2, lot=6, size=2, colour=1)]
    options = build_options(placements, two_colours=False)
    assert options == {
        "1": {"3-7": {"city": 3, "lot": 7, "choices": [{"size": 2, "colour": "", "label": "2 storeys"}]}}
    }


def test_lots_have_labels_a_screen_reader_can_say(placing_game, alice, bob, browser):
    game = placing_game
    state = store.state_of(game)
    assert state is not None
    choice = engine.legal_actions(engine.player_view(state, 0)).placements[0]
    client = browser(alice)
    page = page_of(client, game)
    client.post(
        f"/games/{game.public_id}/play/",
        {
            "intent": "place",
            "version": game.version,
            "card": choice.card + 1,
            "city": choice.city + 1,
            "size": choice.size,
            "colour": engine.COLOUR_NAMES[choice.colour],
        },
    )
    page = html_lib.unescape(page_of(browser(bob), game))
    colour = engine.COLOUR_NAMES[choice.colour]
    storeys = "1 storey" if choice.size == 1 else f"{choice.size} storeys"
    label = f"City {choice.city + 1}, lot {choice.lot + 1}, {storeys}, owned by {colour}"
    assert f'aria-label="{label}, the tallest building, the last building placed"' in page
    empty_city = 6 if choice.city != 5 else 1
    assert f'aria-label="City {empty_city}, lot 1, empty"' in page


def test_the_last_building_the_tallest_and_the_majorities_are_marked(placing_game, alice, browser):
    game = placing_game
    state = store.state_of(game)
    assert state is not None
    choice = max(engine.legal_actions(engine.player_view(state, 0)).placements, key=lambda p: p.size)
    browser(alice).post(
        f"/games/{game.public_id}/play/",
        {
            "intent": "place",
            "version": game.version,
            "card": choice.card + 1,
            "city": choice.city + 1,
            "size": choice.size,
            "colour": engine.COLOUR_NAMES[choice.colour],
        },
    )
    page = page_of(browser(alice), game)
    lot = re.search(
        rf'<g class="lot[^"]*" data-city="{choice.city + 1}" data-lot="{choice.lot + 1}".*?</g>', page, re.S
    )
    assert lot is not None
    assert 'data-testid="last-move"' in lot.group(0)
    assert 'data-testid="tallest-mark"' in lot.group(0)
    assert page.count('data-testid="last-move"') == 1
    majority = re.findall(r'data-testid="majority-mark" data-city="(\d)" data-colour="(\w+)"', page)
    assert majority == [(str(choice.city + 1), engine.COLOUR_NAMES[choice.colour])]


@pytest.mark.parametrize("side", [0, 1, 2, 3])
def test_the_board_is_drawn_from_the_players_side_as_their_cards_read(placing_game, side):
    state = store.state_of(placing_game)
    assert state is not None
    view = engine.player_view(state, 0)
    for city in board.cities(view, side=side):
        for lot in city.lots:
            row, col = (lot.y - city.y) // (board.LOT + board.GAP), (lot.x - city.x) // (board.LOT + board.GAP)
            card = 3 * row + col  # the card printed at that place names this lot for that side
            assert CARD_TO_LOT[side][card] == lot.lot - 1
    drawing = board.drawing(view, side=side)
    for city in drawing.cities:  # every city inside the picture
        assert city.x > 0
        assert city.x + board.CITY <= drawing.width
        assert city.y > 0
        assert city.y + board.CITY <= drawing.height
    assert len({(c.x, c.y) for c in drawing.cities}) == 6


def test_storey_bars_fit_a_building_of_thirty_storeys(placing_game):
    state = store.state_of(placing_game)
    assert state is not None
    tall = state.copy()
    # 30 storeys on city 1, lot 5, in three colours: more than a game can build, drawn all the same.
    for colour, pieces in ((0, [4] * 4), (1, [4, 3, 1]), (2, [3, 2, 1])):
        for size in pieces:
            tall.board.place(4, colour, size)
    assert tall.board[4] is not None
    assert tall.board[4].height == 30
    drawing = board.drawing(engine.spectator_view(tall))
    lot = drawing.cities[0].lots[4]
    assert lot.height == 30
    right = max(bar.x + bar.width for bar in lot.storeys)
    assert min(bar.x for bar in lot.storeys) >= lot.x
    assert right <= lot.x + board.LOT
    assert sum(bar.count for bar in lot.storeys) == 30
    svg = render_to_string("games/_board.svg.html", {"board": drawing})
    assert ">30</text>" in svg


def test_the_same_move_sent_twice_plays_once(placing_game, alice, browser):
    game = placing_game
    state = store.state_of(game)
    assert state is not None
    choice = engine.legal_actions(engine.player_view(state, 0)).placements[0]
    page = page_of(browser(alice), game)
    key = re.search(r'name="idempotency_key" value="([0-9a-f]{32})"', page)
    assert key is not None
    form = {
        "intent": "place",
        "version": game.version,
        "card": choice.card + 1,
        "city": choice.city + 1,
        "size": choice.size,
        "colour": engine.COLOUR_NAMES[choice.colour],
        "idempotency_key": key.group(1),
    }
    client = browser(alice)
    first = client.post(f"/games/{game.public_id}/play/", form)
    game.refresh_from_db()
    version = game.version
    second = client.post(f"/games/{game.public_id}/play/", form, follow=True)
    game.refresh_from_db()
    assert first.status_code == 302
    assert game.version == version  # played once
    text = second.content.decode()
    assert "Your move was recorded" in text
    assert "The game moved on" not in text
    # Without the key, a resend is a stale form, as before.
    del form["idempotency_key"]
    stale = client.post(f"/games/{game.public_id}/play/", form, follow=True)
    assert "The game moved on" in stale.content.decode()


def test_without_javascript_the_form_still_has_every_field(placing_game, alice, browser):
    page = page_of(browser(alice), placing_game)
    for name in ("card", "size", "colour", "city", "notation"):
        assert f'name="{name}"' in page
    panel = re.search(r'<div class="build-choices[^>]*>', page)
    assert panel is not None
    assert " hidden" in panel.group(0)


def test_a_selection_sent_twice_plays_once(started_game, alice, browser):
    game = started_game
    page = page_of(browser(alice), game)
    key = re.search(r'id="select-form".*?name="idempotency_key" value="([0-9a-f]{32})"', page, re.S)
    assert key is not None
    state = store.state_of(game)
    assert state is not None
    reserve = state.reserve[state.selecting_colour or 0]
    pieces = [s for s in (1, 2, 3, 4) for _ in range(reserve[s - 1])][:4]
    form: dict[str, Any] = {"intent": "select", "version": game.version, "idempotency_key": key.group(1)}
    for size in (1, 2, 3, 4):
        form[f"size_{size}"] = pieces.count(size)
    client = browser(alice)
    client.post(f"/games/{game.public_id}/play/", form)
    game.refresh_from_db()
    version = game.version
    again = client.post(f"/games/{game.public_id}/play/", form, follow=True)
    game.refresh_from_db()
    assert game.version == version
    assert "Your move was recorded" in again.content.decode()

"""Moves through the web forms: selecting, placing, refusals, stale versions,
resigning and CSRF. Every success redirects (Post/Redirect/Get)."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from games import engine, store
from games.engine import COLOUR_NAMES
from games.models import Game, GameEvent

pytestmark = pytest.mark.django_db


def events_of(game: Game) -> list[dict[str, Any]]:
    return list(GameEvent.objects.filter(game=game).order_by("seq").values_list("payload", flat=True))


def play_url(game: Game) -> str:
    return f"/games/{game.public_id}/play/"


def first_placement(game: Game, seat: int = 0) -> engine.Placement:
    state = store.state_of(game)
    return engine.legal_actions(engine.player_view(state, seat)).placements[0]


# --- selecting ---------------------------------------------------------------------------------


def test_the_select_form_is_shown_with_the_reserve(started_game, alice, browser):
    html = browser(alice).get(f"/games/{started_game.public_id}/").content.decode()
    assert 'data-testid="select-form"' in html
    assert 'name="size_1"' in html
    assert 'max="11"' in html
    assert 'max="3"' in html
    assert "Choose 4 red pieces for this round" in html
    assert "Your turn: choose your red pieces for round 1." in html
    assert 'data-testid="place-form"' not in html


def test_selecting_with_the_number_inputs(started_game, alice, browser):
    before = len(events_of(started_game))
    client = browser(alice)
    response = client.post(
        play_url(started_game),
        {"intent": "select", "version": 1, "size_1": "1", "size_2": "1", "size_3": "1", "size_4": "1"},
    )
    assert response.status_code == 302
    assert response["Location"] == f"/games/{started_game.public_id}/"
    events = events_of(started_game)
    assert len(events) == before + 1
    assert events[-1]["type"] == "pieces_selected"
    assert events[-1]["pieces"] == [1, 2, 3, 4]
    page = client.get(response["Location"]).content.decode()
    assert "Your move was recorded: select 1 2 3 4" in page
    assert "Choose 4 green pieces for this round" in page  # alice's second colour


def test_selecting_in_notation(started_game, alice, browser):
    response = browser(alice).post(
        play_url(started_game), {"intent": "select", "version": 1, "notation": "select 1144"}
    )
    assert response.status_code == 302
    assert events_of(started_game)[-1]["pieces"] == [1, 1, 4, 4]


def test_a_selection_of_the_wrong_size_is_refused_and_kept(started_game, alice, browser):
    response = browser(alice).post(
        play_url(started_game), {"intent": "select", "version": 1, "size_1": "2", "size_4": "1"}
    )
    assert response.status_code == 400
    html = response.content.decode()
    assert "Choose exactly 4 pieces; you chose 3." in html
    assert 'id="size_1" min="0" max="11" value="2"' in html  # the form as it was sent
    assert len(events_of(started_game)) == 1


def test_a_selection_beyond_the_reserve_is_explained_by_the_rule(started_game, alice, browser):
    response = browser(alice).post(play_url(started_game), {"intent": "select", "version": 1, "size_4": "4"})
    assert response.status_code == 422
    html = response.content.decode()
    assert 'data-testid="refusal"' in html
    assert "R9" in html
    assert "only 3 remain in your reserve" in html
    assert len(events_of(started_game)) == 1


# --- placing --------------------------------------------------------------------------------------


def test_placing_with_the_radio_buttons(placing_game, alice, browser):
    p = first_placement(placing_game)
    before = len(events_of(placing_game))
    response = browser(alice).post(
        play_url(placing_game),
        {
            "intent": "place",
            "version": placing_game.version,
            "card": p.card + 1,
            "city": p.city + 1,
            "size": p.size,
            "colour": COLOUR_NAMES[p.colour],
        },
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    events = events_of(placing_game)
    assert len(events) == before + 1
    placed = events[-1]
    assert placed["type"] == "piece_placed"
    assert (placed["card"], placed["city"], placed["lot"], placed["size"]) == (p.card, p.city, p.lot, p.size)


def test_placing_in_notation(placing_game, alice, browser):
    p = first_placement(placing_game)
    text = f"card {p.card + 1} city {p.city + 1} size {p.size} {COLOUR_NAMES[p.colour]}"
    response = browser(alice).post(
        play_url(placing_game),
        # Notation wins over half-filled controls.
        {"intent": "place", "version": placing_game.version, "notation": text, "city": "6"},
    )
    assert response.status_code == 302
    placed = events_of(placing_game)[-1]
    assert placed["type"] == "piece_placed"
    assert placed["city"] == p.city
    assert placed["card"] == p.card


def test_a_refused_move_is_explained_and_the_form_kept(placing_game, alice, browser):
    state = store.state_of(placing_game)
    missing = next(card for card in range(9) if card not in state.hands[0])
    before = len(events_of(placing_game))
    response = browser(alice).post(
        play_url(placing_game),
        {"intent": "place", "version": placing_game.version, "card": missing + 1, "city": "2", "size": "1",
         "colour": "red"},
    )  # fmt: skip
    assert response.status_code == 422
    html = response.content.decode()
    assert 'data-testid="refusal"' in html
    assert f"you do not hold card {missing + 1}" in html
    assert "R10" in html
    assert 'id="city-2" value="2" checked' in html
    assert 'id="size-1" value="1" checked' in html
    assert 'data-testid="place-form"' in html
    assert len(events_of(placing_game)) == before


def test_a_two_colour_player_must_name_the_colour_when_both_could(placing_game, alice, browser):
    p = first_placement(placing_game)
    response = browser(alice).post(
        play_url(placing_game),
        {"intent": "place", "version": placing_game.version, "card": p.card + 1, "city": p.city + 1, "size": 1},
    )
    assert response.status_code == 422
    html = response.content.decode()
    # The rule once, as a badge, then the reason (not "R15 R15: ...").
    assert '<span class="badge">R15</span> say which colour places this piece: red or green.' in html
    assert "R15:" not in html


def test_a_refusal_reads_in_the_players_language(placing_game, alice, browser):
    from accounts.models import User

    User.objects.filter(pk=alice.pk).update(language="de")
    p = first_placement(placing_game)
    response = browser(alice).post(
        play_url(placing_game),
        {"intent": "place", "version": placing_game.version, "card": p.card + 1, "city": p.city + 1, "size": 1},
    )
    assert response.status_code == 422
    assert "sag, welche Farbe dieses Teil setzt: Rot oder Grün." in response.content.decode()


def test_unreadable_notation_points_at_the_problem(placing_game, alice, browser):
    before = len(events_of(placing_game))
    response = browser(alice).post(
        play_url(placing_game),
        {"intent": "place", "version": placing_game.version, "notation": "card 12 city 3 size 2"},
    )
    assert response.status_code == 400
    html = response.content.decode()
    assert "card must be from 1 to 9" in html
    assert '<pre class="pointer" data-testid="notation-pointer">card 12 city 3 size 2\n     ^</pre>' in html
    assert 'value="card 12 city 3 size 2"' in html  # kept for correcting
    assert len(events_of(placing_game)) == before


def test_missing_choices_are_explained(placing_game, alice, browser):
    response = browser(alice).post(
        play_url(placing_game), {"intent": "place", "version": placing_game.version, "card": 1}
    )
    assert response.status_code == 400
    assert "Choose a card, a piece and a city, or write the move in the text field." in response.content.decode()


def test_resign_typed_as_notation_is_not_taken(placing_game, alice, browser):
    response = browser(alice).post(
        play_url(placing_game), {"intent": "place", "version": placing_game.version, "notation": "resign"}
    )
    assert response.status_code == 400
    assert "To resign, use the Resign button." in response.content.decode()
    assert events_of(placing_game)[-1]["type"] != "player_resigned"


def test_a_stale_version_shows_the_new_position(placing_game, alice, browser):
    p = first_placement(placing_game)
    before = len(events_of(placing_game))
    response = browser(alice).post(
        play_url(placing_game),
        {"intent": "place", "version": placing_game.version - 1, "card": p.card + 1, "city": p.city + 1,
         "size": p.size, "colour": COLOUR_NAMES[p.colour]},
        follow=True,
    )  # fmt: skip
    assert response.redirect_chain == [(f"/games/{placing_game.public_id}/", 302)]
    html = response.content.decode()
    assert "The game moved on; here is the new position." in html
    assert 'data-testid="place-form"' in html
    assert len(events_of(placing_game)) == before


def test_a_move_out_of_turn_is_refused(placing_game, bob, browser):
    p = first_placement(placing_game)
    response = browser(bob).post(
        play_url(placing_game),
        {"intent": "place", "version": placing_game.version, "card": p.card + 1, "city": 1, "size": 1,
         "colour": "blue"},
    )  # fmt: skip
    assert response.status_code == 422
    assert "another player" in response.content.decode()


def test_a_stranger_cannot_move(placing_game, stranger, browser):
    move = {"intent": "place", "version": placing_game.version, "notation": "1 1 1"}
    assert browser(stranger).post(play_url(placing_game), move).status_code == 404  # a private game: not there
    Game.objects.filter(pk=placing_game.pk).update(public=True)
    response = browser(stranger).post(play_url(placing_game), move)
    assert response.status_code == 403
    assert "You have no seat in this game." in response.content.decode()


def test_moves_need_sign_in(placing_game):
    Game.objects.filter(pk=placing_game.pk).update(public=True)  # private: 404 for anyone signed out
    response = Client().post(play_url(placing_game), {"intent": "place", "version": placing_game.version})
    assert response.status_code == 302
    assert "/accounts/login/" in response["Location"]


# --- resigning --------------------------------------------------------------------------------------


def test_resign_needs_the_confirmation(started_game, alice, browser):
    response = browser(alice).post(f"/games/{started_game.public_id}/resign/", {"version": 1}, follow=True)
    assert "Tick the box to confirm that you want to resign." in response.content.decode()
    assert [e["type"] for e in events_of(started_game)] == ["game_created"]


def test_resign(started_game, alice, browser):
    response = browser(alice).post(f"/games/{started_game.public_id}/resign/", {"version": 1, "confirm": "1"})
    assert response.status_code == 302
    types = [e["type"] for e in events_of(started_game)]
    assert "player_resigned" in types
    started_game.refresh_from_db()
    assert started_game.status == Game.Status.FINISHED  # one player left


def test_resign_with_a_stale_version(started_game, alice, browser):
    response = browser(alice).post(
        f"/games/{started_game.public_id}/resign/", {"version": 0, "confirm": "1"}, follow=True
    )
    assert "The game moved on; here is the new position." in response.content.decode()
    assert len(events_of(started_game)) == 1


# --- CSRF -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("action", ["play", "resign", "join", "decline", "start"])
def test_posts_without_a_csrf_token_are_refused(placing_game, alice, browser, action):
    client = browser(alice, enforce_csrf_checks=True)
    before = len(events_of(placing_game))
    p = first_placement(placing_game)
    response = client.post(
        f"/games/{placing_game.public_id}/{action}/",
        {"intent": "place", "version": placing_game.version, "card": p.card + 1, "city": p.city + 1,
         "size": p.size, "colour": COLOUR_NAMES[p.colour], "confirm": "1"},
    )  # fmt: skip
    assert response.status_code == 403
    assert len(events_of(placing_game)) == before


def test_posts_with_the_pages_csrf_token_work(placing_game, alice, browser):
    client = browser(alice, enforce_csrf_checks=True)
    page = client.get(f"/games/{placing_game.public_id}/").content.decode()
    token = page.split('name="csrfmiddlewaretoken" value="', 1)[1].split('"', 1)[0]
    p = first_placement(placing_game)
    response = client.post(
        play_url(placing_game),
        {"csrfmiddlewaretoken": token, "intent": "place", "version": placing_game.version,
         "notation": f"{p.card + 1} {p.city + 1} {p.size} {COLOUR_NAMES[p.colour]}"},
    )  # fmt: skip
    assert response.status_code == 302

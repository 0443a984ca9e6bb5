"""The games admin as an operator uses it: find games, see the board and the
(redacted) log, abandon, undo the last placement with a reason, replay."""

from __future__ import annotations

import html
import json
import re
from typing import Any

import pytest
from django.contrib.admin.models import CHANGE, LogEntry
from django.contrib.messages import get_messages
from django.test import Client

from accounts.models import User
from games import engine, services, store
from games.models import Game, GameEvent
from tests.factories import open_game
from tests.support.api import event_count

pytestmark = pytest.mark.django_db


# The admin's own pages hold icon SVGs: the board is the one with this label.
BOARD = 'aria-label="Manhattan board, seen from the south side"'


def change_url(game: Game) -> str:
    return f"/admin/games/game/{game.pk}/change/"


def messages_of(response: Any) -> list[str]:
    return [str(m) for m in get_messages(response.wsgi_request)]


def act(game: Game, user: User, action: engine.Action) -> None:
    game.refresh_from_db()
    services.submit_action(
        game_id=game.public_id,
        user=user,
        action=action,
        expected_version=game.version,
    )
    game.refresh_from_db()


def first_action(game: Game) -> tuple[int, engine.Action]:
    state = store.state_of(game)
    assert state is not None
    assert state.to_act is not None
    return state.to_act, engine.enumerate_actions(engine.player_view(state, state.to_act))[0]


def play_to_first_placement(game: Game, users: dict[int, User]) -> None:
    """Both players select, then the start player places one piece."""
    while game.phase == "selection":
        seat, action = first_action(game)
        act(game, users[seat], action)
    seat, action = first_action(game)
    assert isinstance(action, engine.PlacePiece)
    act(game, users[seat], action)


# --- the change list --------------------------------------------------------------------------


def test_changelist_search_and_status_filter(admin, alice, bob, stranger, started_game):
    lobby = open_game(stranger)
    everything = admin.get("/admin/games/game/")
    assert everything.status_code == 200
    page = everything.content.decode()
    assert str(started_game.public_id) in page
    assert str(lobby.public_id) in page

    for query in (bob.email, "alice@", str(started_game.public_id)):
        found = admin.get("/admin/games/game/", {"q": query}).content.decode()
        assert str(started_game.public_id) in found, query
        assert str(lobby.public_id) not in found, query
    found = admin.get("/admin/games/game/", {"q": stranger.email}).content.decode()
    assert str(lobby.public_id) in found
    assert str(started_game.public_id) not in found
    nothing = admin.get("/admin/games/game/", {"q": "nobody@nowhere.example"}).content.decode()
    assert str(started_game.public_id) not in nothing

    active = admin.get("/admin/games/game/", {"status__exact": "active"}).content.decode()
    assert str(started_game.public_id) in active
    assert str(lobby.public_id) not in active
    waiting = admin.get("/admin/games/game/", {"status__exact": "lobby"}).content.decode()
    assert str(lobby.public_id) in waiting
    assert str(started_game.public_id) not in waiting


def test_the_admin_needs_staff(alice, started_game):
    client = Client()
    client.force_login(alice)
    for url in (
        "/admin/games/game/",
        change_url(started_game),
        f"/admin/games/game/{started_game.pk}/undo/",
        f"/admin/games/game/{started_game.pk}/replay/",
    ):
        response = client.get(url)
        assert response.status_code == 302, url
        assert "/admin/login/" in response["Location"]


# --- the change page ---------------------------------------------------------------------------


def test_change_page_shows_board_and_log_but_no_secrets(admin, alice, bob, started_game):
    play_to_first_placement(started_game, {0: alice, 1: bob})
    response = admin.get(change_url(started_game))
    assert response.status_code == 200
    page = html.unescape(response.content.decode())
    assert BOARD in page
    # The event log inline, every event listed by type.
    for event in GameEvent.objects.filter(game=started_game):
        assert event.type in page
    assert "Payload (public)" in page
    assert "hand_sizes" in page

    created = GameEvent.objects.get(game=started_game, seq=1).payload
    assert json.dumps(created["draw_pile"]) not in page
    assert json.dumps(created["hands"]) not in page
    assert '"draw_pile": [' not in page
    assert started_game.secret.seed not in page
    # The placement's drawn card is shown only as a count.
    placed = GameEvent.objects.get(game=started_game, type="piece_placed")
    assert placed.payload["drew"] is not None
    assert '"drew": null' in page
    assert '"drew_count": 1' in page
    assert f'"drew": {placed.payload["drew"]}' not in page


def test_change_page_draws_the_board_at_its_real_size_and_counts_seats_from_one(admin, started_game):
    page = admin.get(change_url(started_game)).content.decode()
    board = re.search(r"<svg[^>]*" + re.escape(BOARD) + r"[^>]*>", page)
    assert board is not None
    tag = board.group(0)
    # A fixed size: in the admin's read-only cell a fluid SVG (max-width: 100%) shrank to 0×0.
    assert re.search(r'width="\d+"', tag)
    assert re.search(r'height="\d+"', tag)
    assert "max-width" not in tag
    seat_cells = re.findall(r'<td class="field-seat_number">\s*<p>(\d+)</p>', page)
    assert seat_cells == ["1", "2"]


def test_change_page_of_a_lobby_game(admin, alice):
    game = open_game(alice)
    response = admin.get(change_url(game))
    assert response.status_code == 200
    assert "Not dealt yet." in response.content.decode()
    assert BOARD not in response.content.decode()


def test_change_page_of_a_finished_game(admin, alice, bot_game):
    for _ in range(500):
        services.play_bot_turns(game_id=bot_game.public_id)
        bot_game.refresh_from_db()
        if bot_game.status == Game.Status.FINISHED:
            break
        act(bot_game, alice, first_action(bot_game)[1])
    assert bot_game.status == Game.Status.FINISHED
    response = admin.get(change_url(bot_game))
    assert response.status_code == 200
    page = html.unescape(response.content.decode())
    assert BOARD in page
    assert '"reshuffle"' not in page
    assert '"reshuffled": true' in page
    assert json.dumps(GameEvent.objects.get(game=bot_game, seq=1).payload["draw_pile"]) not in page
    reshuffles = [e.payload["reshuffle"] for e in GameEvent.objects.filter(game=bot_game) if "reshuffle" in e.payload]
    assert reshuffles
    for pile in reshuffles:
        assert json.dumps(pile) not in page


# --- abandon --------------------------------------------------------------------------------


def test_abandon_asks_first(admin, started_game):
    """Abandoning cannot be taken back: the action shows the games and asks to confirm."""
    response = admin.post("/admin/games/game/", {"action": "abandon", "_selected_action": [started_game.pk]})
    assert response.status_code == 200
    page = response.content.decode()
    assert str(started_game.public_id) in page
    assert 'name="confirmed"' in page
    started_game.refresh_from_db()
    assert started_game.status == Game.Status.ACTIVE
    assert not LogEntry.objects.exists()


def test_abandon_action(admin, operator, alice, started_game):
    lobby = open_game(alice)
    events = event_count(started_game)
    response = admin.post(
        "/admin/games/game/",
        {"action": "abandon", "_selected_action": [started_game.pk, lobby.pk], "confirmed": "yes"},
        follow=True,
    )
    assert response.status_code == 200
    assert any("Abandoned 2 game(s)" in m for m in messages_of(response))
    started_game.refresh_from_db()
    lobby.refresh_from_db()
    assert started_game.status == Game.Status.ABANDONED
    assert started_game.to_act_seat is None
    assert lobby.status == Game.Status.ABANDONED
    assert event_count(started_game) == events
    # Who abandoned which game is in the admin's history.
    logged = LogEntry.objects.filter(user=operator, content_type__model="game", action_flag=CHANGE)
    assert sorted(int(e.object_id) for e in logged) == sorted([started_game.pk, lobby.pk])
    assert all("Abandoned" in e.get_change_message() for e in logged)


def test_abandoning_an_abandoned_game_is_reported(admin, operator, started_game):
    services.abandon_game(game=started_game, operator=operator)
    response = admin.post(
        "/admin/games/game/",
        {"action": "abandon", "_selected_action": [started_game.pk], "confirmed": "yes"},
        follow=True,
    )
    assert response.status_code == 200
    texts = messages_of(response)
    assert any(str(started_game.public_id) in m and "already abandoned" in m for m in texts), texts
    assert any("Abandoned 0 game(s)" in m for m in texts)


# --- undo --------------------------------------------------------------------------------------


def undo_url(game: Game) -> str:
    return f"/admin/games/game/{game.pk}/undo/"


def test_undo_form_renders(admin, started_game):
    response = admin.get(undo_url(started_game))
    assert response.status_code == 200
    assert 'name="reason"' in response.content.decode()


def test_undo_the_last_placement_with_a_reason(admin, operator, alice, bob, started_game):
    play_to_first_placement(started_game, {0: alice, 1: bob})
    placed = GameEvent.objects.filter(game=started_game).order_by("-seq").first()
    assert placed.type == "piece_placed"
    before = store.state_of(started_game, upto=placed.seq - 1)
    events = event_count(started_game)

    response = admin.post(undo_url(started_game), {"reason": "alice misclicked"})
    assert response.status_code == 302
    assert response["Location"] == change_url(started_game)
    assert event_count(started_game) == events + 1
    undone = GameEvent.objects.filter(game=started_game).order_by("-seq").first()
    assert undone.type == "placement_undone"
    assert undone.payload["reason"] == "alice misclicked"
    assert undone.actor == operator
    assert undone.seat is None
    started_game.refresh_from_db()
    assert started_game.version == undone.seq
    assert started_game.to_act_seat == placed.payload["player"]
    # The board and alice's hand are as before the placement.
    after = store.state_of(started_game)
    assert after.board == before.board
    assert sorted(after.hands[0]) == sorted(before.hands[0])
    page = html.unescape(admin.get(change_url(started_game)).content.decode())
    assert "The last placement was undone." in page


def test_undo_needs_a_reason(admin, alice, bob, started_game):
    play_to_first_placement(started_game, {0: alice, 1: bob})
    events = event_count(started_game)
    for data in ({"reason": ""}, {"reason": "   "}):
        response = admin.post(undo_url(started_game), data)
        assert response.status_code == 200
        assert "This field is required." in response.content.decode()
        assert event_count(started_game) == events


def test_undo_when_nothing_is_undoable(admin, started_game):
    events = event_count(started_game)
    response = admin.post(undo_url(started_game), {"reason": "just because"})
    assert response.status_code == 200
    texts = messages_of(response)
    assert any("Only the last placement can be undone" in m for m in texts), texts
    assert event_count(started_game) == events


def test_undo_in_a_game_that_is_not_active(admin, alice):
    game = open_game(alice)
    response = admin.post(undo_url(game), {"reason": "why not"})
    assert response.status_code == 200
    assert any("waiting for players" in m for m in messages_of(response))
    assert event_count(game) == 0


def test_undo_an_unknown_game(admin):
    assert admin.get("/admin/games/game/999999/undo/").status_code == 404


# --- replay -----------------------------------------------------------------------------------


def replay_url(game: Game) -> str:
    return f"/admin/games/game/{game.pk}/replay/"


def test_replay_at_the_first_and_last_event(admin, alice, bob, started_game):
    play_to_first_placement(started_game, {0: alice, 1: bob})
    version = started_game.version
    created = GameEvent.objects.get(game=started_game, seq=1).payload

    first = admin.get(replay_url(started_game), {"n": 1})
    assert first.status_code == 200
    assert first.context["n"] == 1
    assert first.context["view"]["hand"] is None
    assert BOARD in first.content.decode()

    last = admin.get(replay_url(started_game), {"n": version})
    assert last.status_code == 200
    assert last.context["n"] == version
    state = store.state_of(started_game)
    assert state is not None
    assert last.context["view"] == engine.spectator_view(state).to_json()
    assert BOARD in last.content.decode()
    # The piece placed at the last event is on the last board, not on the first.
    assert last.context["board"] != first.context["board"]

    for response in (first, last):
        assert json.dumps(created["draw_pile"]) not in response.content.decode()


@pytest.mark.parametrize(("n", "shown"), [("0", 1), ("-5", 1), ("999", "version"), ("abc", "version"), ("", "version")])
def test_replay_clamps_n(admin, started_game, n, shown):
    response = admin.get(replay_url(started_game), {"n": n})
    assert response.status_code == 200
    assert response.context["n"] == (started_game.version if shown == "version" else shown)


def test_replay_of_a_lobby_game(admin, alice):
    game = open_game(alice)
    response = admin.get(replay_url(game))
    assert response.status_code == 200
    assert "has not been dealt yet" in response.content.decode()


def test_seats_of_a_game_being_played_are_read_only_and_labelled_from_one(admin, started_game):
    page = admin.get(change_url(started_game)).content.decode()
    assert "seat 0" not in page
    assert 'name="seats-0-user"' not in page, "a seat of a game being played cannot be edited"
    assert 'name="seats-MAX_NUM_FORMS" value="0"' in page, "no seat can be added"
    before = list(started_game.seats.values_list("index", "user_id", "bot"))
    form = {"name": started_game.name, "creator": started_game.creator_id, "seats-TOTAL_FORMS": "3",
            "seats-INITIAL_FORMS": "2", "seats-2-user": "", "seats-2-bot": "random", "seats-2-index": "2"}  # fmt: skip
    admin.post(change_url(started_game), form)
    assert list(started_game.seats.values_list("index", "user_id", "bot")) == before


def test_seats_of_a_game_in_the_lobby_can_still_be_edited(admin, alice):
    game = open_game(alice)
    assert 'name="seats-1-invited_email"' in admin.get(change_url(game)).content.decode()

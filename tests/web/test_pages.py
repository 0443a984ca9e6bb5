"""The play pages as each visitor sees them: my games, a game's page, the history."""

from __future__ import annotations

import re

import pytest

from accounts.models import User
from games import engine, services, store
from games.models import Game, GameEvent
from notifications.models import Notification
from tests.factories import select_all, two_player_game

pytestmark = pytest.mark.django_db


def count_testid(html: str, name: str) -> int:
    return html.count(f'data-testid="{name}"')


# --- my games ----------------------------------------------------------------------------


def test_my_games_lists_the_games_waiting_for_me_first(alice, bob, make_user, browser):
    mine = two_player_game(alice, bob, start_player=0)  # alice selects first
    theirs = two_player_game(alice, bob, start_player=1)  # bob selects first; updated later
    carol = make_user("carol@example.com")
    invited = services.create_game(
        creator=carol,
        options={"players": 2},
        seats=[services.SeatSpec("me"), services.SeatSpec("invite", email=alice.email)],
    )
    unrelated = two_player_game(bob, carol, start_player=0)

    html = browser(alice).get("/games/").content.decode()
    waiting, others = html.split('data-testid="games-others"')
    assert str(mine.public_id) in waiting
    assert str(invited.public_id) in waiting  # an invitation waits for an answer
    assert str(theirs.public_id) in others
    assert str(unrelated.public_id) not in html
    assert "Your turn" in waiting
    assert "You are invited" in waiting
    assert "To play: bob" in others
    assert "Round 1 of 6" in html


def test_my_games_needs_sign_in(client):
    response = client.get("/games/")
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/?next=/games/")


def test_my_games_names_each_game_and_whose_turn_it_is(alice, bob, browser):
    game = two_player_game(alice, bob, start_player=1)
    html = browser(alice).get("/games/").content.decode()
    others = html.split('data-testid="games-others"')[1]
    assert f">{game.title}</a>" in others
    assert str(game.public_id)[:8] not in re.sub(r'(href|data-game)="[^"]*"', "", html)  # no hex id to read
    assert "To play: bob" in others


# --- a game's page ----------------------------------------------------------------------------


def test_game_page_shows_board_hand_and_my_legal_lots(placing_game, alice, browser):
    response = browser(alice).get(f"/games/{placing_game.public_id}/")
    assert response.status_code == 200
    html = response.content.decode()
    assert 'data-testid="board"' in html
    assert "<svg" in html
    assert count_testid(html, "hand-card") == 4
    assert 'data-testid="place-form"' in html
    assert 'stroke-width="3"' in html  # highlighted lots
    highlighted = int(re.search(r'data-highlighted="(\d+)"', html).group(1))
    state = store.state_of(placing_game)
    legal = engine.legal_actions(engine.player_view(state, 0))
    assert highlighted == len({(p.city, p.lot) for p in legal.placements}) > 0
    assert "Your turn: play a card and build." in html
    # Each card is drawn as a 3×3 grid with its position marked.
    for card in state.hands[0]:
        assert f'data-card="{card + 1}"' in html
    assert '<meta name="viewport"' in html


def test_no_highlight_and_no_form_when_it_is_not_my_turn(placing_game, bob, browser):
    html = browser(bob).get(f"/games/{placing_game.public_id}/").content.decode()
    assert count_testid(html, "hand-card") == 4  # bob still sees his own hand
    assert 'stroke-width="3"' not in html
    assert 'data-highlighted="0"' in html
    assert 'data-testid="place-form"' not in html
    assert 'data-testid="select-form"' not in html
    assert "Waiting for alice to build." in html


def test_a_stranger_sees_only_public_information(placing_game, stranger, browser):
    assert browser(stranger).get(f"/games/{placing_game.public_id}/").status_code == 404  # private
    Game.objects.filter(pk=placing_game.pk).update(public=True)
    response = browser(stranger).get(f"/games/{placing_game.public_id}/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "<svg" in html
    assert count_testid(html, "hand-card") == 0
    assert 'data-testid="hand"' not in html
    assert 'data-testid="place-form"' not in html
    assert 'data-testid="resign-form"' not in html
    assert "You drew" not in html
    assert 'stroke-width="3"' not in html


def test_a_stranger_does_not_see_another_players_drawn_card(placing_game, alice, stranger, browser):
    Game.objects.filter(pk=placing_game.pk).update(public=True)  # a stranger may watch it
    state = store.state_of(placing_game)
    p = engine.legal_actions(engine.player_view(state, 0)).placements[0]
    action = engine.PlacePiece(card=p.card, city=p.city, size=p.size, colour=p.colour)
    services.submit_action(
        game_id=placing_game.public_id, user=alice, action=action, expected_version=placing_game.version,
    )  # fmt: skip
    own = browser(alice).get(f"/games/{placing_game.public_id}/").content.decode()
    other = browser(stranger).get(f"/games/{placing_game.public_id}/").content.decode()
    assert f"alice (you) played card {p.card + 1}" in own
    assert "You drew card" in own
    assert f"alice played card {p.card + 1}" in other
    assert "You drew card" not in other


def test_landmarks_name_the_tallest_building_and_the_majorities(placing_game, alice, browser):
    state = store.state_of(placing_game)
    p = engine.legal_actions(engine.player_view(state, 0)).placements[0]
    services.submit_action(
        game_id=placing_game.public_id, user=alice, expected_version=placing_game.version,
        action=engine.PlacePiece(card=p.card, city=p.city, size=p.size, colour=p.colour),
    )  # fmt: skip
    html = browser(alice).get(f"/games/{placing_game.public_id}/").content.decode()
    colour = engine.COLOUR_NAMES[p.colour]
    assert f"Tallest building: {p.size} storeys in city {p.city + 1}, lot {p.lot + 1}, owned by {colour}" in html
    assert f"City {p.city + 1}: majority {colour}" in html
    assert "no buildings." in html  # the other cities


def test_unknown_or_malformed_game_is_404(alice, browser):
    client = browser(alice)
    assert client.get("/games/00000000-0000-0000-0000-000000000000/").status_code == 404
    assert client.get("/games/not-a-game/").status_code == 404


def test_opening_pages_never_changes_a_game(placing_game, alice, bob, stranger, browser):
    Game.objects.filter(pk=placing_game.pk).update(public=True)  # the stranger watches
    events, notifications = GameEvent.objects.count(), Notification.objects.count()
    version = placing_game.version
    for user in (alice, bob, stranger):
        client = browser(user)
        for path in ("/games/", f"/games/{placing_game.public_id}/", f"/games/{placing_game.public_id}/?at=2"):
            assert client.get(path).status_code == 200
        # The action URLs do nothing on GET.
        for action in ("play", "resign", "join", "decline", "start"):
            assert client.get(f"/games/{placing_game.public_id}/{action}/").status_code == 405
    placing_game.refresh_from_db()
    assert placing_game.version == version
    assert GameEvent.objects.count() == events
    assert Notification.objects.count() == notifications


# --- the lobby ------------------------------------------------------------------------------


@pytest.fixture
def lobby(alice: User, bob: User, make_user) -> Game:
    """A three-player lobby: alice (creator), bob and carol invited."""
    make_user("carol@example.com")
    return services.create_game(
        creator=alice,
        options={"players": 3},
        seats=[
            services.SeatSpec("me"),
            services.SeatSpec("invite", email=bob.email),
            services.SeatSpec("invite", email="carol@example.com"),
        ],
    )


def test_an_invitee_can_join(lobby, bob, browser):
    client = browser(bob)
    html = client.get(f"/games/{lobby.public_id}/").content.decode()
    assert 'data-testid="join-button"' in html
    assert 'data-testid="decline-button"' in html
    assert 'data-testid="start-button"' not in html
    assert "carol@example.com" not in html  # only the creator sees whom they invited
    response = client.post(f"/games/{lobby.public_id}/join/")
    assert response.status_code == 302
    assert response["Location"] == f"/games/{lobby.public_id}/"
    assert lobby.seats.get(index=1).user == bob
    html = client.get(response["Location"]).content.decode()
    assert "You joined the game in seat 2." in html
    assert 'data-testid="join-button"' not in html


def test_declining_opens_the_seat_and_someone_else_can_take_it(lobby, alice, bob, make_user, browser):
    carol = User.objects.get(email="carol@example.com")
    response = browser(carol).post(f"/games/{lobby.public_id}/decline/")
    assert response.status_code == 302
    assert response["Location"] == "/games/"
    seat = lobby.seats.get(index=2)
    assert seat.invited_email == ""
    assert seat.user is None
    assert str(lobby.public_id) not in browser(carol).get("/games/").content.decode()
    # A second decline is refused politely.
    again = browser(carol).post(f"/games/{lobby.public_id}/decline/", follow=True)
    assert "You have no invitation to this game." in again.content.decode()

    browser(bob).post(f"/games/{lobby.public_id}/join/")
    dave = make_user("dave@example.com")
    assert 'data-testid="start-button"' not in browser(alice).get(f"/games/{lobby.public_id}/").content.decode()
    html = browser(dave).get(f"/games/{lobby.public_id}/").content.decode()
    assert 'data-testid="join-button"' in html
    assert 'data-testid="decline-button"' not in html
    browser(dave).post(f"/games/{lobby.public_id}/join/")
    assert lobby.seats.get(index=2).user == dave


def test_the_game_starts_by_itself_when_the_last_seat_is_taken(lobby, alice, bob, browser):
    carol = User.objects.get(email="carol@example.com")
    browser(bob).post(f"/games/{lobby.public_id}/join/")
    lobby.refresh_from_db()
    assert lobby.status == Game.Status.LOBBY
    browser(carol).post(f"/games/{lobby.public_id}/join/")
    lobby.refresh_from_db()
    assert lobby.status == Game.Status.ACTIVE
    assert lobby.version >= 1
    html = browser(alice).get(f"/games/{lobby.public_id}/").content.decode()
    assert count_testid(html, "hand-card") == 4
    assert 'data-testid="start-button"' not in html
    # Starting by hand now is refused: it has started.
    refused = browser(alice).post(f"/games/{lobby.public_id}/start/", follow=True)
    assert "This game has already started." in refused.content.decode()


def test_start_with_an_open_seat_is_refused(lobby, alice, browser):
    response = browser(alice).post(f"/games/{lobby.public_id}/start/", follow=True)
    assert "Every seat must be taken before the game starts." in response.content.decode()
    lobby.refresh_from_db()
    assert lobby.status == Game.Status.LOBBY


# --- history -----------------------------------------------------------------------------------


def test_history_shows_the_public_state_after_event_n(placing_game, alice, browser):
    client = browser(alice)
    response = client.get(f"/games/{placing_game.public_id}/?at=1")
    assert response.status_code == 200
    html = response.content.decode()
    assert 'data-testid="history-banner"' in html
    assert "after event 1 of 5" in html
    assert 'data-testid="history-slider"' in html
    assert 'value="1"' in html
    assert 'data-testid="history-next"' in html
    assert 'href="?at=2"' in html
    assert 'data-testid="history-prev"' not in html
    # Public only, and no forms.
    assert count_testid(html, "hand-card") == 0
    assert 'data-testid="place-form"' not in html
    assert 'data-testid="select-form"' not in html
    # After event 1 nothing was selected yet; now every colour has 4 pieces.
    assert 'data-testid="selected-red-1">0<' in html
    now = client.get(f"/games/{placing_game.public_id}/").content.decode()
    assert 'data-testid="selected-red-1">4<' in now


@pytest.mark.parametrize("at", ["999", "abc", "", "-1", "5"])
def test_history_out_of_range_shows_the_current_position(placing_game, alice, browser, at):
    html = browser(alice).get(f"/games/{placing_game.public_id}/?at={at}").content.decode()
    assert 'data-testid="history-banner"' not in html
    assert 'data-testid="place-form"' in html


def test_history_at_zero_is_the_first_event(placing_game, alice, browser):
    html = browser(alice).get(f"/games/{placing_game.public_id}/?at=0").content.decode()
    assert "after event 1 of 5" in html


def test_a_lobby_game_has_no_board_yet(lobby, alice, browser):
    html = browser(alice).get(f"/games/{lobby.public_id}/").content.decode()
    assert 'data-testid="lobby"' in html
    assert "<svg" not in html
    assert "bob@example.com" in html  # the creator sees the invitations


def test_finished_game_names_the_winner(started_game, alice, bob, browser):
    services.submit_action(
        game_id=started_game.public_id, user=bob, action=engine.Resign(), expected_version=started_game.version,
    )  # fmt: skip
    html = browser(alice).get(f"/games/{started_game.public_id}/").content.decode()
    assert "The game is over." in html
    assert "Winner: alice (you)." in html
    assert 'data-testid="resign-form"' not in html


def test_bot_game_page_names_the_bots(bot_game, alice, browser):
    select_all_by_alice = browser(alice).post(
        f"/games/{bot_game.public_id}/play/", {"intent": "select", "version": 1, "notation": "select 111122"}
    )
    assert select_all_by_alice.status_code == 302
    html = browser(alice).get(f"/games/{bot_game.public_id}/").content.decode()
    assert "Bot 2 (greedy bot) is choosing the blue pieces." in html
    assert "Bot 3 (random bot)" in html


def test_select_all_helper_reaches_placement(started_game):
    assert select_all(started_game).phase == engine.PLACEMENT


def test_cards_are_read_from_my_side_and_show_their_lot_on_the_board(placing_game, alice, bob, browser):
    state = store.state_of(placing_game)
    south = browser(alice).get(f"/games/{placing_game.public_id}/").content.decode()
    assert "on the board: lot" not in south  # from the south the board is drawn as the cards are printed
    own_side = browser(bob).get(f"/games/{placing_game.public_id}/").content.decode()
    assert 'data-side="2"' in own_side  # bob's board is drawn from his (north) side, as his cards read
    assert "on the board: lot" not in own_side
    north = browser(bob).get(f"/games/{placing_game.public_id}/?board=south").content.decode()
    assert 'data-side="0"' in north
    assert "You sit on the north side." in north
    for card in state.hands[1]:
        lot = engine.rotation.CARD_TO_LOT[2][card] + 1
        assert f"on the board: lot {lot}" in north


def test_an_invitee_recognises_their_seat(lobby, bob, browser):
    html = browser(bob).get(f"/games/{lobby.public_id}/").content.decode()
    assert "You (invited)" in html
    assert html.count("Invited player") == 1  # carol's seat


def test_the_south_view_is_kept_while_stepping_through_the_history(placing_game, bob, browser):
    at = placing_game.version - 1
    html = browser(bob).get(f"/games/{placing_game.public_id}/?board=south&at={at}").content.decode()
    assert 'data-side="0"' in html
    assert f'href="?at={at - 1}&amp;board=south" data-testid="history-prev"' in html
    assert f'href="?at={at + 1}&amp;board=south" data-testid="history-next"' in html
    assert '<input type="hidden" name="board" value="south">' in html  # the slider's form
    assert f'href="?at={at}" data-testid="board-switch"' in html  # back to bob's side, same moment
    own_side = browser(bob).get(f"/games/{placing_game.public_id}/?at={at}").content.decode()
    assert f'href="?at={at - 1}" data-testid="history-prev"' in own_side
    assert f'href="?board=south&amp;at={at}" data-testid="board-switch"' in own_side

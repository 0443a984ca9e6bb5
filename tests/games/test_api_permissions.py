"""Who may do what: the permission matrix of every endpoint under /api/v1/.

Callers: a seat's owner, the other player of the game, a stranger (signed in
but not in the game), by API token and by session (with its CSRF rules), a
revoked token and nobody at all. Only a seat's owner acts for it; lists show
only the caller's games; a non-player sees public information only.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from rest_framework.test import APIClient

from accounts.models import ApiToken, User
from accounts.services import create_api_token, revoke_api_token
from games import engine, services, store
from games.models import Game, GameEvent

pytestmark = pytest.mark.django_db

API = "/api/v1"
PROBLEM = "application/problem+json"
Make = Callable[[User], APIClient]


def session_client(user: User, *, enforce_csrf: bool = False) -> APIClient:
    client = APIClient(enforce_csrf_checks=enforce_csrf)
    client.force_login(user)
    return client


@pytest.fixture(params=["token", "session"])
def auth(request: pytest.FixtureRequest, client_for: Callable[[User | None], APIClient]) -> Make:
    """A client for a user, signed in by API token or by session."""

    def make(user: User) -> APIClient:
        client = client_for(user) if request.param == "token" else session_client(user)
        client.raise_request_exception = False
        return client

    return make


def assert_problem(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, (response.status_code, response.content[:500])
    assert response["Content-Type"] == PROBLEM
    body = response.json()
    assert body["status"] == status
    assert body["code"] == code
    assert body["type"] == f"/api/v1/problems/{code}"
    assert body["title"]
    assert body["detail"]
    return dict(body)


def event_count(game: Game) -> int:
    return GameEvent.objects.filter(game=game).count()


def created_payload(game: Game) -> dict[str, Any]:
    return dict(GameEvent.objects.get(game=game, seq=1).payload)


def hand_of(payload: dict[str, Any], seat: int) -> list[int]:
    """A seat's dealt hand as the API shows cards (1-based)."""
    return sorted(card + 1 for card in payload["hands"][seat])


def select_body(client: APIClient, game: Game) -> dict[str, Any]:
    legal = client.get(f"{API}/games/{game.public_id}/legal-actions").json()
    choice = legal["selection"]
    pieces = [int(s) for s, n in choice["reserve"].items() for _ in range(n)][: choice["count"]]
    return {"action": {"type": "select", "pieces": pieces}, "expected_version": legal["version"]}


def play_to_first_placement(clients: dict[int, APIClient], game: Game) -> None:
    """Play the selection phase and seat 0's first placement over the API."""
    for _ in range(20):
        game.refresh_from_db()
        if game.phase != "selection":
            break
        client = clients[game.to_act_seat]
        response = client.post(f"{API}/games/{game.public_id}/actions", select_body(client, game), format="json")
        assert response.status_code == 200, response.content
    assert game.phase == "placement"
    assert game.to_act_seat == 0
    legal = clients[0].get(f"{API}/games/{game.public_id}/legal-actions").json()
    first = legal["placements"][0]
    option = first["options"][0]
    action = {"type": "place", "card": first["card"], "city": option["city"], "size": option["size"]}
    if "colour" in option:
        action["colour"] = option["colour"]
    response = clients[0].post(
        f"{API}/games/{game.public_id}/actions",
        {"action": action, "expected_version": legal["version"]},
        format="json",
    )
    assert response.status_code == 200, response.content
    game.refresh_from_db()


def finish_bot_game(game: Game, alice: User) -> None:
    """Play a bot game to its end through the services (alice's moves first legal)."""
    for _ in range(500):
        services.play_bot_turns(game_id=game.public_id)
        game.refresh_from_db()
        if game.status == Game.Status.FINISHED:
            return
        state = store.state_of(game)
        assert state is not None
        action = engine.enumerate_actions(engine.player_view(state, 0))[0]
        services.submit_action(
            game_id=game.public_id,
            user=alice,
            action=action,
            expected_version=game.version,
        )
    raise AssertionError("the game did not finish")


def lobby_game(alice: User, bob: User) -> Game:
    """Alice's new game: her seat and one for bob, who has not joined yet."""
    return services.create_game(
        creator=alice,
        options={"players": 2},
        seats=[services.SeatSpec("me"), services.SeatSpec("invite", email=bob.email)],
    )


# --- nobody, and revoked tokens: every endpoint ---------------------------------------------

ENDPOINTS = [
    ("get", "/games"),
    ("post", "/games"),
    ("get", "/games/{game}"),
    ("post", "/games/{game}/join"),
    ("post", "/games/{game}/start"),
    ("get", "/games/{game}/legal-actions"),
    ("post", "/games/{game}/actions"),
    ("get", "/games/{game}/events"),
    ("get", "/games/{game}/states/1"),
    ("get", "/games/{game}/record"),
    ("get", "/games/{game}/review"),
    ("get", "/tokens"),
    ("post", "/tokens"),
    ("delete", "/tokens/{token}"),
    ("get", "/me"),
]
BODIES = {
    "/games": {"options": {"players": 2}, "seats": [{"kind": "me"}, {"kind": "open"}]},
    "/games/{game}/actions": {"action": {"type": "resign"}, "expected_version": 1},
    "/tokens": {"name": "sneaky"},
}


def call(client: APIClient, method: str, path: str, game: Game, token: ApiToken) -> Any:
    url = API + path.format(game=game.public_id, token=token.pk)
    if method in ("post", "delete"):
        return getattr(client, method)(url, BODIES.get(path, {}), format="json")
    return client.get(url)


def assert_nothing_changed(game: Game, events: int, games: int, token: ApiToken, tokens: int) -> None:
    assert event_count(game) == events
    assert Game.objects.count() == games
    assert ApiToken.objects.count() == tokens
    token.refresh_from_db()
    assert token.revoked is None


@pytest.mark.parametrize(("method", "path"), ENDPOINTS)
def test_nobody_gets_401_everywhere(alice, started_game, method, path):
    token = create_api_token(user=alice, name="victim").token
    events, games, tokens = event_count(started_game), Game.objects.count(), ApiToken.objects.count()
    client = APIClient()
    client.raise_request_exception = False
    response = call(client, method, path, started_game, token)
    assert_problem(response, 401, "not_authenticated")
    assert response["WWW-Authenticate"] == "Bearer"
    assert_nothing_changed(started_game, events, games, token, tokens)


@pytest.mark.parametrize(("method", "path"), ENDPOINTS)
def test_a_revoked_token_gets_401_everywhere(alice, started_game, method, path):
    token = create_api_token(user=alice, name="victim").token
    old = create_api_token(user=alice, name="old")
    revoke_api_token(token=old.token)
    events, games, tokens = event_count(started_game), Game.objects.count(), ApiToken.objects.count()
    client = APIClient()
    client.raise_request_exception = False
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {old.raw}")
    response = call(client, method, path, started_game, token)
    assert_problem(response, 401, "authentication_failed")
    assert response["WWW-Authenticate"] == "Bearer"
    assert_nothing_changed(started_game, events, games, token, tokens)


def test_a_revoked_token_does_not_fall_back_to_the_session(alice, started_game):
    """A bad token is an error even when the same client also has a session."""
    old = create_api_token(user=alice, name="old")
    revoke_api_token(token=old.token)
    client = session_client(alice)
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {old.raw}")
    assert_problem(client.get(f"{API}/games/{started_game.public_id}"), 401, "authentication_failed")


def test_a_token_of_a_deactivated_user_gets_401(alice, started_game, client_for):
    client = client_for(alice)
    alice.is_active = False
    alice.save(update_fields=["is_active"])
    assert_problem(client.get(f"{API}/games/{started_game.public_id}"), 401, "authentication_failed")


@pytest.mark.parametrize("path", ["/schema/", "/docs/"])
def test_the_api_documentation_is_public(path):
    assert APIClient().get(API + path).status_code == 200


# --- games: lists ------------------------------------------------------------------------------


def test_lists_show_only_the_callers_games(auth, alice, bob, stranger, started_game):
    own = services.create_game(
        creator=stranger, options={"players": 2}, seats=[services.SeatSpec("me"), services.SeatSpec("open")]
    )
    invited = lobby_game(alice, bob)

    def ids(user: User) -> set[str]:
        response = auth(user).get(f"{API}/games")
        assert response.status_code == 200, response.content
        return {game["id"] for game in response.json()}

    assert ids(alice) == {str(started_game.public_id), str(invited.public_id)}
    # Bob sees the game he plays and the one he is invited to (not yet joined).
    assert ids(bob) == {str(started_game.public_id), str(invited.public_id)}
    assert ids(stranger) == {str(own.public_id)}


def test_a_list_does_not_reveal_invitees_addresses(auth, alice, bob):
    lobby_game(alice, bob)
    body = auth(alice).get(f"{API}/games").content.decode()
    assert bob.email not in body


def test_anyone_signed_in_can_create_a_game(auth, stranger):
    response = auth(stranger).post(
        f"{API}/games", {"options": {"players": 2}, "seats": [{"kind": "me"}, {"kind": "open"}]}, format="json"
    )
    assert response.status_code == 201, response.content
    game = Game.objects.get(public_id=response.json()["id"])
    assert game.creator == stranger
    assert game.seats.get(index=0).user == stranger


# --- games: what each caller sees ---------------------------------------------------------------


def watched(game: Game) -> Game:
    """``game`` made public: anyone may watch it (a private game is its players' alone)."""
    game.public = True
    game.save(update_fields=["public"])
    return game


def test_private_games_are_not_found_by_strangers_but_are_by_players_and_invitees(
    auth, alice, bob, stranger, started_game
):
    for path in ("", "/events", "/states/1", "/record", "/review"):
        assert_problem(auth(stranger).get(f"{API}/games/{started_game.public_id}{path}"), 404, "game_not_found")
    assert auth(bob).get(f"{API}/games/{started_game.public_id}").status_code == 200
    invited = lobby_game(alice, bob)
    assert auth(bob).get(f"{API}/games/{invited.public_id}").status_code == 200  # invited, not yet seated
    assert_problem(auth(stranger).get(f"{API}/games/{invited.public_id}"), 404, "game_not_found")


def test_game_detail_shows_only_the_callers_hand(auth, alice, bob, stranger, started_game):
    watched(started_game)
    payload = created_payload(started_game)
    url = f"{API}/games/{started_game.public_id}"

    mine = auth(alice).get(url).json()
    assert mine["my_seat"] == 0
    assert mine["my_turn"] is True
    assert mine["state"]["seat"] == 0
    assert sorted(mine["state"]["hand"]) == hand_of(payload, 0)

    other = auth(bob).get(url).json()
    assert other["my_seat"] == 1
    assert other["my_turn"] is False
    assert sorted(other["state"]["hand"]) == hand_of(payload, 1)

    public = auth(stranger).get(url)
    assert public.status_code == 200
    body = public.json()
    assert body["my_seat"] is None
    assert body["my_turn"] is False
    assert body["state"]["seat"] is None
    assert body["state"]["hand"] is None
    assert [p["hand_size"] for p in body["state"]["players"]] == [4, 4]

    for view in (mine, other, body):
        assert "draw_pile" not in view["state"]
        assert "hands" not in view["state"]
    assert str(payload["draw_pile"]) not in public.content.decode()


def test_a_stranger_sees_a_lobby_game_without_addresses(auth, alice, bob, stranger):
    game = watched(lobby_game(alice, bob))
    response = auth(stranger).get(f"{API}/games/{game.public_id}")
    assert response.status_code == 200
    assert response.json()["state"] is None
    assert bob.email not in response.content.decode()
    assert [s["invited"] for s in response.json()["seats"]] == [False, True]


def test_legal_actions_only_for_players(auth, alice, bob, stranger, started_game):
    url = f"{API}/games/{started_game.public_id}/legal-actions"
    mine = auth(alice).get(url)
    assert mine.status_code == 200
    assert mine.json()["my_turn"] is True
    assert mine.json()["selection"] is not None
    other = auth(bob).get(url)
    assert other.status_code == 200
    assert other.json()["my_turn"] is False
    assert other.json()["selection"] is None
    # A private game is not there for a stranger; a public one is, without a seat for them.
    assert_problem(auth(stranger).get(url), 404, "game_not_found")
    watched(started_game)
    assert_problem(auth(stranger).get(url), 403, "not_a_player")


def test_events_are_redacted_for_each_caller(auth, alice, bob, stranger, started_game):
    watched(started_game)
    play_to_first_placement({0: auth(alice), 1: auth(bob)}, started_game)
    payloads = {e.seq: e.payload for e in GameEvent.objects.filter(game=started_game)}
    placed = [seq for seq, p in payloads.items() if p["type"] == "piece_placed"]
    assert len(placed) == 1
    drawn = payloads[placed[0]]["drew"]
    assert drawn is not None
    url = f"{API}/games/{started_game.public_id}/events"

    def events(user: User) -> list[dict[str, Any]]:
        response = auth(user).get(url)
        assert response.status_code == 200, response.content
        body = response.json()
        assert body["version"] == started_game.version
        assert [e["seq"] for e in body["events"]] == list(range(1, started_game.version + 1))
        for event in body["events"]:
            assert "draw_pile" not in event
            assert "reshuffle" not in event
        return list(body["events"])

    mine, other, public = events(alice), events(bob), events(stranger)
    created = payloads[1]
    assert mine[0]["hands"] == [created["hands"][0], None]
    assert other[0]["hands"] == [None, created["hands"][1]]
    assert public[0]["hands"] == [None, None]
    for view in (mine, other, public):
        assert view[0]["hand_sizes"] == [4, 4]
        assert view[0]["draw_pile_size"] == len(created["draw_pile"])
    seq = placed[0] - 1
    assert mine[seq]["drew"] == drawn
    assert other[seq]["drew"] is None
    assert other[seq]["drew_count"] == 1
    assert public[seq]["drew"] is None
    assert public[seq]["drew_count"] == 1


def test_a_stranger_never_sees_a_secret_in_a_whole_game(client_for, alice, stranger, bot_game):
    """A finished four-player game has reshuffles and many draws: none reaches
    a stranger, and alice sees only her own draws."""
    watched(bot_game)
    finish_bot_game(bot_game, alice)
    payloads = list(GameEvent.objects.filter(game=bot_game).order_by("seq").values_list("payload", flat=True))
    assert any("reshuffle" in p for p in payloads), "this game should have needed a reshuffle"
    url = f"{API}/games/{bot_game.public_id}/events"

    public = client_for(stranger).get(url).json()["events"]
    assert len(public) == len(payloads)
    for event in public:
        assert "draw_pile" not in event
        assert "reshuffle" not in event
        if event["type"] == "game_created":
            assert event["hands"] == [None] * 4
        if "drew" in event:
            assert event["drew"] is None

    mine = client_for(alice).get(url).json()["events"]
    for event, payload in zip(mine, payloads, strict=True):
        assert "draw_pile" not in event
        assert "reshuffle" not in event
        if "drew" in event:
            assert event["drew"] == (payload["drew"] if payload["player"] == 0 else None)


def test_action_responses_show_only_the_actors_secrets(auth, alice, bob, started_game):
    play_to_first_placement({0: auth(alice), 1: auth(bob)}, started_game)
    # Bob places now; his response must show his draw and his hand, nothing of alice's.
    client = auth(bob)
    legal = client.get(f"{API}/games/{started_game.public_id}/legal-actions").json()
    first = legal["placements"][0]
    option = first["options"][0]
    action = {"type": "place", "card": first["card"], "city": option["city"], "size": option["size"]}
    if "colour" in option:
        action["colour"] = option["colour"]
    response = client.post(
        f"{API}/games/{started_game.public_id}/actions",
        {"action": action, "expected_version": legal["version"]},
        format="json",
    )
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["game"]["my_seat"] == 1
    state = store.state_of(started_game)
    assert sorted(body["game"]["state"]["hand"]) == sorted(c + 1 for c in state.hands[1])
    for event in body["events"]:
        assert "reshuffle" not in event
        if "drew" in event and event["player"] != 1:
            assert event["drew"] is None


def test_states_are_public_for_everyone(auth, alice, bob, stranger, started_game):
    watched(started_game)
    url = f"{API}/games/{started_game.public_id}/states/1"
    for user in (alice, bob, stranger):
        response = auth(user).get(url)
        assert response.status_code == 200, response.content
        state = response.json()["state"]
        assert state["hand"] is None
        assert state["seat"] is None
        assert "draw_pile" not in state


def test_record_of_a_finished_game_is_public(client_for, alice, stranger, bot_game):
    watched(bot_game)
    url = f"{API}/games/{bot_game.public_id}/record"
    for user in (alice, stranger):
        assert_problem(client_for(user).get(url), 409, "game_not_finished")
    finish_bot_game(bot_game, alice)
    records = [client_for(user).get(url) for user in (alice, stranger)]
    assert [r.status_code for r in records] == [200, 200]
    assert records[0].json() == records[1].json()


# --- games: who may change what ----------------------------------------------------------------


def test_join_only_the_seat_one_is_offered(auth, alice, bob, stranger, started_game):
    game = lobby_game(alice, bob)
    url = f"{API}/games/{game.public_id}/join"
    # A private game with no seat for the stranger: not there for them at all.
    assert_problem(auth(stranger).post(url, {}, format="json"), 404, "game_not_found")
    assert_problem(auth(alice).post(url, {}, format="json"), 409, "already_seated")
    watched(game)
    assert_problem(auth(stranger).post(url, {"seat": 1}, format="json"), 403, "no_seat")
    joined = auth(bob).post(url, {}, format="json")
    assert joined.status_code == 200, joined.content
    assert joined.json()["my_seat"] == 1
    assert game.seats.get(index=1).user == bob
    assert_problem(auth(stranger).post(f"{API}/games/{started_game.public_id}/join"), 404, "game_not_found")
    watched(started_game)
    assert_problem(auth(stranger).post(f"{API}/games/{started_game.public_id}/join"), 409, "game_started")


def test_an_open_seat_is_anyones(auth, alice, stranger):
    game = services.create_game(
        creator=alice, options={"players": 2}, seats=[services.SeatSpec("me"), services.SeatSpec("open")]
    )
    joined = auth(stranger).post(f"{API}/games/{game.public_id}/join", {}, format="json")
    assert joined.status_code == 200, joined.content
    assert joined.json()["my_seat"] == 1


def test_only_the_creator_starts(auth, alice, bob, stranger):
    game = lobby_game(alice, bob)
    services.join_game(game=game, user=bob)
    url = f"{API}/games/{game.public_id}/start"
    assert_problem(auth(bob).post(url), 403, "not_creator")
    assert_problem(auth(stranger).post(url), 404, "game_not_found")
    assert event_count(game) == 1  # bob took the last seat: the game dealt itself
    assert_problem(auth(alice).post(url), 409, "game_started")
    assert event_count(game) == 1


def test_only_a_seats_owner_acts_for_it(auth, alice, bob, stranger, started_game):
    url = f"{API}/games/{started_game.public_id}/actions"
    body = select_body(auth(alice), started_game)
    before = event_count(started_game)

    # Bob cannot act in alice's turn, even naming her colour.
    assert_problem(auth(bob).post(url, body, format="json"), 422, "not_your_turn")
    as_red = {**body, "action": {**body["action"], "colour": "red"}}
    assert_problem(auth(bob).post(url, as_red, format="json"), 422, "not_your_turn")
    # A stranger has no seat at all: a private game is not there for them, a public one refuses them.
    assert_problem(auth(stranger).post(url, body, format="json"), 404, "game_not_found")
    watched(started_game)
    assert_problem(auth(stranger).post(url, body, format="json"), 403, "not_a_player")
    assert_problem(auth(stranger).post(url, {**body, "action": "resign"}, format="json"), 403, "not_a_player")
    assert event_count(started_game) == before

    done = auth(alice).post(url, body, format="json")
    assert done.status_code == 200, done.content
    assert event_count(started_game) > before
    assert GameEvent.objects.filter(game=started_game).order_by("-seq").first().actor == alice


# --- session authentication and CSRF -----------------------------------------------------------


def csrf_token(client: APIClient) -> str:
    """A CSRF token as a browser gets one: from a page with a form."""
    client.get("/admin/login/")
    return str(client.cookies["csrftoken"].value)


def test_session_writes_without_a_csrf_token_are_refused(alice, started_game):
    client = session_client(alice, enforce_csrf=True)
    token = create_api_token(user=alice, name="keep").token
    events, games, tokens = event_count(started_game), Game.objects.count(), ApiToken.objects.count()

    # Reading needs no CSRF token.
    assert client.get(f"{API}/games/{started_game.public_id}").status_code == 200
    refused = [
        client.post(f"{API}/games", BODIES["/games"], format="json"),
        client.post(f"{API}/games/{started_game.public_id}/actions", select_body(client, started_game), format="json"),
        client.post(f"{API}/games/{started_game.public_id}/join", {}, format="json"),
        client.post(f"{API}/tokens", {"name": "csrf"}, format="json"),
        client.delete(f"{API}/tokens/{token.pk}"),
    ]
    for response in refused:
        problem = assert_problem(response, 403, "forbidden")
        assert "CSRF" in problem["detail"]
    assert_nothing_changed(started_game, events, games, token, tokens)


def test_session_writes_with_a_csrf_token_are_accepted(alice, started_game):
    client = session_client(alice, enforce_csrf=True)
    csrf = csrf_token(client)
    response = client.post(
        f"{API}/games/{started_game.public_id}/actions",
        select_body(client, started_game),
        format="json",
        HTTP_X_CSRFTOKEN=csrf,
    )
    assert response.status_code == 200, response.content
    created = client.post(f"{API}/tokens", {"name": "from the browser"}, format="json", HTTP_X_CSRFTOKEN=csrf)
    assert created.status_code == 201, created.content


def test_a_wrong_csrf_token_is_refused(alice, started_game):
    client = session_client(alice, enforce_csrf=True)
    csrf_token(client)
    before = event_count(started_game)
    response = client.post(
        f"{API}/games/{started_game.public_id}/actions",
        select_body(client, started_game),
        format="json",
        HTTP_X_CSRFTOKEN="x" * 32,
    )
    assert_problem(response, 403, "forbidden")
    assert event_count(started_game) == before


def test_token_requests_need_no_csrf_token(alice, started_game):
    raw = create_api_token(user=alice, name="cli").raw
    client = APIClient(enforce_csrf_checks=True)
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    response = client.post(
        f"{API}/games/{started_game.public_id}/actions", select_body(client, started_game), format="json"
    )
    assert response.status_code == 200, response.content


# --- tokens and me -------------------------------------------------------------------------------


def test_tokens_are_private_to_their_owner(auth, alice, bob):
    mine = create_api_token(user=alice, name="alice's laptop").token
    theirs = create_api_token(user=bob, name="bob's phone").token

    listed = auth(alice).get(f"{API}/tokens")
    assert listed.status_code == 200
    names = {t["name"] for t in listed.json()}
    assert "alice's laptop" in names
    assert "bob's phone" not in names
    assert all(t["id"] != theirs.pk for t in listed.json())

    assert_problem(auth(alice).delete(f"{API}/tokens/{theirs.pk}"), 404, "token_not_found")
    theirs.refresh_from_db()
    assert theirs.revoked is None

    assert auth(alice).delete(f"{API}/tokens/{mine.pk}").status_code == 204
    mine.refresh_from_db()
    assert mine.revoked is not None


def test_me_is_the_caller(auth, alice, bob):
    for user in (alice, bob):
        response = auth(user).get(f"{API}/me")
        assert response.status_code == 200
        assert response.json() == {
            "id": user.pk,
            "email": user.email,
            "name": user.public_name,
            "is_staff": False,
            "is_bot": False,
            "scopes": ["games:play", "games:read", "webhooks:manage"],
        }

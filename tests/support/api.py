"""The API as a client sees it: a bearer token's header, the problem+json
shape of every refusal, a game's log that must not change, and a legal move
read from the legal-actions answer."""

from __future__ import annotations

import re
from typing import Any

from rest_framework.test import APIClient

from accounts.services import create_api_token
from games.models import Game, GameEvent
from tests.support.processes import ROOT


def some_action(legal: dict[str, Any]) -> dict[str, Any]:
    if legal.get("selection"):
        reserve = legal["selection"]["reserve"]
        pool = [int(size) for size, n in reserve.items() for _ in range(n)]
        return {"type": "select", "pieces": sorted(pool[: legal["selection"]["count"]])}
    placement = legal["placements"][0]
    option = {key: value for key, value in placement["options"][0].items() if key != "lot"}  # the card says the lot
    return {"type": "place", "card": placement["card"], **option}


API = "/api/v1"


PROBLEM = "application/problem+json"


def assert_problem(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, (response.status_code, response.content[:500])
    assert response["Content-Type"] == PROBLEM, response["Content-Type"]
    body = response.json()
    assert body["status"] == status
    assert body["code"] == code
    assert body["type"] == f"/api/v1/problems/{code}"
    assert isinstance(body["title"], str)
    assert body["title"]
    assert isinstance(body["detail"], str)
    assert body["detail"]
    return dict(body)


class LogWatch:
    """Asserts that a game's log (and its version) did not change."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.count = GameEvent.objects.filter(game=game).count()
        self.version = Game.objects.get(pk=game.pk).version

    def assert_unchanged(self) -> None:
        assert GameEvent.objects.filter(game=self.game).count() == self.count
        assert Game.objects.get(pk=self.game.pk).version == self.version


def event_count(game: Game) -> int:
    return GameEvent.objects.filter(game=game).count()


def created_payload(game: Game) -> dict[str, Any]:
    """The dealt game: the game_created event's payload, secrets included."""
    return dict(GameEvent.objects.get(game=game, seq=1).payload)


def legal_actions(client: APIClient, game: Game) -> dict[str, Any]:
    response = client.get(f"{API}/games/{game.public_id}/legal-actions")
    assert response.status_code == 200, response.content
    return dict(response.json())


def legal_body(client: APIClient, game: Game) -> dict[str, Any]:
    """A request body for a legal action of the caller's turn, as legal-actions offers it."""
    legal = legal_actions(client, game)
    return {"action": some_action(legal), "expected_version": legal["version"]}


def play_selections(clients: dict[int, APIClient], game: Game, big_for: int | None = None) -> None:
    """Play the selection phase over the API, each seat through its own client:
    seat ``big_for`` takes its biggest pieces, the other seats their smallest."""
    for _ in range(20):
        game.refresh_from_db()
        if game.phase != "selection":
            return
        seat = game.to_act_seat
        assert seat is not None
        legal = legal_actions(clients[seat], game)
        choice = legal["selection"]
        pieces = [int(s) for s, n in choice["reserve"].items() for _ in range(n)]
        pieces = sorted(pieces, reverse=seat == big_for)[: choice["count"]]
        response = post_action(
            clients[seat], game, {"type": "select", "pieces": pieces, "colour": choice["colour"]}, legal["version"]
        )
        assert response.status_code == 200, response.content
    raise AssertionError("the selection phase did not end")


def play_to_first_placement(clients: dict[int, APIClient], game: Game) -> None:
    """Play the selection phase and seat 0's first placement over the API."""
    play_selections(clients, game)
    game.refresh_from_db()
    assert game.phase == "placement"
    assert game.to_act_seat == 0
    response = clients[0].post(actions_url(game), legal_body(clients[0], game), format="json")
    assert response.status_code == 200, response.content
    game.refresh_from_db()


def actions_url(game: Game) -> str:
    return f"{API}/games/{game.public_id}/actions"


def post_action(client: APIClient, game: Game, action: Any, version: int | None = None, **headers: Any) -> Any:
    body: dict[str, Any] = {"action": action}
    if version is not None:
        body["expected_version"] = version
    return client.post(actions_url(game), body, format="json", **headers)


def signed_in(user: Any, *, enforce_csrf: bool = False) -> APIClient:
    """An API client with ``user``'s browser session (what the session-only
    endpoints need: closing the account, asking for an export); ``enforce_csrf``
    checks CSRF tokens as a browser's requests are checked."""
    client = APIClient(enforce_csrf_checks=enforce_csrf)
    client.force_login(user)
    return client


def token(user) -> dict[str, str]:
    return {"Authorization": f"Bearer {create_api_token(user=user, name='stream').raw}"}


# How product code names a problem's code: a service error, a DRF error's own
# code, or a problem body written out.
RAISED = (
    re.compile(r'(?:Game|Problem)Error\(\s*"([a-z_]+)"'),
    re.compile(r'\bcode="([a-z_]+)"'),
    re.compile(r'(?:problem(?:_response)?|InputRefused)\(\s*\d+,\s*"([a-z_]+)"'),
)


def codes_raised_in_product_code() -> set[str]:
    codes: set[str] = set()
    for app in ("games", "accounts", "notifications", "ratings", "webhooks", "streams", "manhattan_site"):
        for source in (ROOT / app).rglob("*.py"):
            text = source.read_text()
            for pattern in RAISED:
                codes.update(pattern.findall(text))
    return codes

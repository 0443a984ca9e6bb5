"""The visibility crawler: who learns that a game exists.

Every route with a game id in its path (the API's and the pages', found by
walking the URL resolver, so a new one is crawled without being named here)
is asked with every method it serves, by a player, an invitee, a stranger, an
anonymous visitor, a watch-link holder and an operator, about a public game, a
private game and a private game opened in the lobby, each waiting, being
played and finished. Who may see which game is written out here by hand
(``expected``), apart from the rule the application uses:

* someone who may not see the game gets exactly the answer an unknown id gets
  (status, type and body, the id and key aside), whatever they ask;
* someone who may see it never gets that answer to a GET (anonymous callers
  aside where they must sign in first: the API answers them 401 and most pages
  send them to sign in, whatever the game — an unknown or hidden game too, so
  that a player following an email link while signed out reaches the sign-in).

The streams are async views served only under ASGI; they are crawled the same
way in ``test_visibility_streams.py``.
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from accounts.models import User
from games.models import Game
from tests.support.visibility import KINDS, STATES, Caller, Route, expected, game_routes, make_game

pytestmark = pytest.mark.django_db


# --- the routes -------------------------------------------------------------------------------


ROUTES = game_routes(streams=False)


def test_the_crawler_finds_every_game_route():
    names = {route.name for route in ROUTES}
    assert {"api-game", "api-game-events", "api-game-seat-mute", "games:detail", "games:watch"} <= names
    assert len(ROUTES) >= 25, names
    assert {route.name for route in game_routes(streams=True)} == {"api-game-stream"}


# --- the people and the games -----------------------------------------------------------------


@pytest.fixture
def callers(make_user: Any) -> dict[str, Caller]:
    alice = make_user("alice@example.com")
    make_user("bob@example.com")
    dave = make_user("dave@example.com")
    eve = make_user("eve@example.com")
    operator = make_user("operator@example.com", is_staff=True)
    return {
        "player": Caller(alice),
        "invitee": Caller(dave),
        "stranger": Caller(eve),
        "anonymous": Caller(None),
        "watcher": Caller(make_user("watcher@example.com"), with_key=True),
        "operator": Caller(operator),
    }


# --- the crawl --------------------------------------------------------------------------------


UNKNOWN = str(uuid.uuid4())
# What each identity is answered about the unknown id, route by route (normalised, so
# the same in every test of this process).
_BASELINES: dict[str, dict[tuple[Route, str], tuple[Any, ...]]] = {}


def crawl(kind: str, callers: dict[str, Caller]) -> tuple[list[str], int]:
    """Every game route and method, by every identity, for the three games of
    ``kind``: what went wrong, and how many requests were made."""
    alice, bob = User.objects.get(email="alice@example.com"), User.objects.get(email="bob@example.com")
    games = {state: make_game(kind, state, alice, bob) for state in STATES}
    leaks: list[str] = []
    asked = 0
    for identity, caller in callers.items():
        if identity not in _BASELINES:  # the same for every kind: asked once per process
            _BASELINES[identity] = {(r, m): caller.ask(r, m, UNKNOWN) for r in ROUTES for m in r.methods}
            asked += len(_BASELINES[identity])
        baseline = _BASELINES[identity]
        for state, game in games.items():
            game_id = str(game.public_id)
            sees = expected(kind, state, identity)
            for route in ROUTES:
                for method in route.methods if not sees else ("get",) if "get" in route.methods else ():
                    answer = caller.ask(route, method, game_id)
                    asked += 1
                    same = answer == baseline[(route, method)]
                    if sees and answer[0] == 401:
                        continue  # the API is for signed-in callers: anonymous is 401 whatever the game
                    if sees and answer[0] == 302 and answer[2].startswith("/accounts/login/"):
                        continue  # so are most pages: anonymous is sent to sign in whatever the game
                    if same == sees:
                        what = "was told it is not there" if sees else "could tell it exists"
                        leaks.append(f"{identity} {method.upper()} {route.name} ({kind}, {state}) {what}: {answer[:3]}")
    return leaks, asked


# The public game in the fast lane; the other two are slow (a crawl is tens of seconds each).
@pytest.mark.parametrize("kind", [k if k == "public" else pytest.param(k, marks=pytest.mark.slow) for k in KINDS])
def test_nobody_learns_of_a_game_they_may_not_see(kind, callers):
    leaks, asked = crawl(kind, callers)
    assert not leaks, "\n".join(leaks[:40])
    assert asked > 200


@pytest.mark.slow  # a whole crawl, with a leak injected
def test_the_crawler_sees_a_leak(callers, monkeypatch):
    """A rule that lets anyone signed in see every game is caught, on the API and the pages."""
    from games.services import visibility

    rule = visibility.may_see

    def leaky(game: Game, user: Any, key: Any = None, *, seats: Any = None) -> bool:
        return rule(game, user, key, seats=seats) or bool(getattr(user, "is_authenticated", False))

    monkeypatch.setattr(visibility, "may_see", leaky)
    leaks, _ = crawl("private", callers)
    assert any("stranger GET api-game (private, active) could tell it exists" in leak for leak in leaks), leaks
    assert any("stranger GET games:detail (private, finished) could tell it exists" in leak for leak in leaks), leaks
    assert not any("anonymous" in leak for leak in leaks), leaks

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

import asyncio
import re
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from django.core.cache import cache
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from accounts.models import User
from accounts.services import create_api_token
from games import engine, services
from games.models import Game
from games.services import open_games
from games.services.visibility import watch_key

pytestmark = pytest.mark.django_db

IDENTITIES = ("player", "invitee", "stranger", "anonymous", "watcher", "operator")
KINDS = ("public", "private", "lobby")  # lobby: opened in the lobby as a private game
STATES = ("waiting", "active", "finished")
DRF_METHODS = ("get", "post", "put", "patch", "delete")
PATH_VALUES = {"n": 1, "index": 0}


def expected(kind: str, state: str, identity: str) -> bool:
    """Whether ``identity`` may see the game: the issue's rule, written out."""
    if identity in ("player", "watcher", "operator") or kind == "public":
        return True
    if kind == "lobby" and state == "waiting":
        return True  # listed in the public lobby for anyone to join
    return kind == "private" and state == "waiting" and identity == "invitee"


# --- the routes -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Route:
    name: str  # "namespace:name"
    api: bool
    methods: tuple[str, ...]
    params: tuple[str, ...]

    def path(self, game_id: str) -> str:
        values = {p: PATH_VALUES.get(p, game_id) for p in self.params}
        return reverse(self.name, kwargs=values)


def _walk(patterns: list[Any], namespace: str = "") -> Iterator[tuple[str, Any, tuple[str, ...]]]:
    for entry in patterns:
        if isinstance(entry, URLResolver):
            inner = f"{namespace}{entry.namespace}:" if entry.namespace else namespace
            for name, callback, params in _walk(entry.url_patterns, inner):
                yield name, callback, (*getattr(entry.pattern, "converters", {}), *params)
        elif isinstance(entry, URLPattern) and entry.name:
            yield f"{namespace}{entry.name}", entry.callback, tuple(getattr(entry.pattern, "converters", {}))


def game_routes(*, streams: bool) -> list[Route]:
    """Every named route with ``game_id`` in its path; the async ones (streams) or the others."""
    routes = []
    for name, callback, params in _walk(get_resolver().url_patterns):
        if "game_id" not in params or asyncio.iscoroutinefunction(callback) != streams:
            continue
        view_class = getattr(callback, "cls", None)
        # A page's decorators decide its methods: both GET and POST are asked.
        methods = tuple(m for m in DRF_METHODS if hasattr(view_class, m)) if view_class else ("get", "post")
        routes.append(Route(name, view_class is not None, methods, params))
    return routes


ROUTES = game_routes(streams=False)


def test_the_crawler_finds_every_game_route():
    names = {route.name for route in ROUTES}
    assert {"api-game", "api-game-events", "api-game-seat-mute", "games:detail", "games:watch"} <= names
    assert len(ROUTES) >= 25, names
    assert {route.name for route in game_routes(streams=True)} == {"api-game-stream"}


# --- the people and the games -----------------------------------------------------------------


class Caller:
    """One identity's clients: a token for the API, a session for the pages."""

    def __init__(self, user: User | None, *, with_key: bool = False) -> None:
        self.user, self.with_key = user, with_key
        self.api, self.pages = Client(), Client()
        self.headers: dict[str, str] = {}
        if user is not None:
            raw = create_api_token(user=user, name="crawler").raw
            self.headers = {"Authorization": f"Bearer {raw}"}
            self.api = Client(HTTP_AUTHORIZATION=f"Bearer {raw}")
            self.pages.force_login(user)

    def ask(self, route: Route, method: str, game_id: str) -> tuple[Any, ...]:
        """The answer, with the game's id and key taken out."""
        key = watch_key(Game(public_id=uuid.UUID(game_id)))
        path = route.path(game_id) + (f"?key={key}" if self.with_key else "")
        client = self.api if route.api else self.pages
        cache.clear()  # rate limits count per caller: a long crawl must not meet them
        response = getattr(client, method)(path, content_type="application/json")
        body = b"" if getattr(response, "streaming", False) else response.content
        text = body.decode("utf-8", "replace").replace(game_id, "<id>").replace(key, "<key>")
        text = re.sub(r'(nonce|value)="[^"]*"', r'\1=""', text)
        location = response.get("Location", "").replace(game_id, "<id>").replace(key, "<key>")
        return response.status_code, response.get("Content-Type", ""), location, text


def _lone_bot(game: Game) -> None:
    """The invitee turned the seat down and a bot took it: the creator deals."""
    invitee = User.objects.get(email="dave@example.com")
    services.decline_invitation(game=game, user=invitee)
    game.seats.filter(index=1).update(bot="random")
    services.start_game(game=Game.objects.get(pk=game.pk), user=game.creator)


def _finish(game: Game, player: User) -> None:
    game.refresh_from_db()
    services.submit_action(game_id=game.public_id, user=player, action=engine.Resign(), expected_version=game.version)


def make_game(kind: str, state: str, alice: User, bob: User) -> Game:
    if kind == "lobby":
        game = open_games.open_game(creator=alice, players=2, pace="normal", six_rounds=False, public=False)
        if state != "waiting":
            open_games.take_seat(game=game, user=bob)
    else:
        seats = [services.SeatSpec("me"), services.SeatSpec("invite", email="dave@example.com")]
        game = services.create_game(creator=alice, options={"players": 2, "start_player": 0}, seats=seats)
        if kind == "public":
            Game.objects.filter(pk=game.pk).update(public=True)
        if state != "waiting":
            _lone_bot(game)
    if state == "finished":
        _finish(game, alice)
    game = Game.objects.get(pk=game.pk)
    assert game.status == {"waiting": "lobby", "active": "active", "finished": "finished"}[state]
    return game


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


@pytest.mark.parametrize("kind", KINDS)
def test_nobody_learns_of_a_game_they_may_not_see(kind, callers):
    leaks, asked = crawl(kind, callers)
    assert not leaks, "\n".join(leaks[:40])
    assert asked > 200


def test_the_crawler_sees_a_leak(callers, monkeypatch):
    """A rule that lets anyone signed in see every game is caught, on the API and the pages."""
    from games.services import visibility

    rule = visibility.may_see

    def leaky(game: Game, user: Any, key: Any = None) -> bool:
        return rule(game, user, key) or bool(getattr(user, "is_authenticated", False))

    monkeypatch.setattr(visibility, "may_see", leaky)
    leaks, _ = crawl("private", callers)
    assert any("stranger GET api-game (private, active) could tell it exists" in leak for leak in leaks), leaks
    assert any("stranger GET games:detail (private, finished) could tell it exists" in leak for leak in leaks), leaks
    assert not any("anonymous" in leak for leak in leaks), leaks

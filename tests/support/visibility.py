"""The visibility crawl's parts: who may see which game (written out by hand),
every route with a game id in its path (found by walking the URL resolver),
one client pair per identity, and the games of each kind and state."""

from __future__ import annotations

import asyncio
import re
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from django.core.cache import cache
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from accounts.models import User
from accounts.services import create_api_token
from games import engine, services
from games.models import Game
from games.services import open_games
from games.services.visibility import watch_key

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

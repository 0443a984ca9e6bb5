"""Shared fixtures: users, authenticated API clients, and games in every stage."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from accounts.models import User
from accounts.services import create_api_token
from games import services
from games.models import Game
from tests.factories import play_to_end, two_player_bot_game, two_player_game
from tests.support.mail import Inbox, smtp_server

# Fixtures more than one folder uses and that need a module of their own.
pytest_plugins = ["tests.support.asgi_fixtures"]


def pytest_configure(config: pytest.Config) -> None:
    """The SQLite test database lives under ``var/``, which the commands make
    (nothing is made when settings are imported)."""
    from manhattan_site.local_folders import prepare_local_folders

    prepare_local_folders()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests marked ``postgres`` need what only a PostgreSQL server does (row locks
    held by one connection while another works): on another database they are
    skipped with that reason. CI runs them in its PostgreSQL pass."""
    from django.db import connection

    if connection.vendor == "postgresql":
        return
    skip = pytest.mark.skip(reason=f"needs PostgreSQL (this run uses {connection.vendor})")
    for item in items:
        if "postgres" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def make_user(db: Any) -> Callable[..., User]:
    counter = iter(range(1, 10_000))

    def make(email: str | None = None, **extra: Any) -> User:
        return User.objects.create_user(email=email or f"player{next(counter)}@example.com", **extra)

    return make


@pytest.fixture
def alice(make_user: Callable[..., User]) -> User:
    return make_user("alice@example.com")


@pytest.fixture
def bob(make_user: Callable[..., User]) -> User:
    return make_user("bob@example.com")


@pytest.fixture
def stranger(make_user: Callable[..., User]) -> User:
    return make_user("stranger@example.com")


@pytest.fixture
def operator(make_user: Callable[..., User]) -> User:
    """A staff member with every permission: who runs the admin."""
    return make_user("operator@example.com", is_staff=True, is_superuser=True)


@pytest.fixture
def admin(operator: User) -> Client:
    """A browser signed in to the admin as the operator."""
    client = Client()
    client.force_login(operator)
    return client


@pytest.fixture
def client_for() -> Callable[[User | None], APIClient]:
    """An API client authenticated with a real personal token (or anonymous)."""

    def make(user: User | None) -> APIClient:
        client = APIClient()
        if user is not None:
            raw = create_api_token(user=user, name="tests").raw
            client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
        return client

    return make


@pytest.fixture
def started_game(alice: User, bob: User) -> Game:
    """A two-player game between alice (seat 0, start player) and bob, dealt."""
    return two_player_game(alice, bob)


@pytest.fixture
def lobby_game(alice: User, bob: User) -> Game:
    """Every kind of seat: the creator, an invitee who has not answered, an open seat, a bot."""
    return services.create_game(
        creator=alice,
        options={"players": 4},
        seats=[
            services.SeatSpec("me"),
            services.SeatSpec("invite", email=bob.email),
            services.SeatSpec("open"),
            services.SeatSpec("bot", bot="greedy"),
        ],
    )


@pytest.fixture
def bot_game(alice: User) -> Game:
    """A four-player game: alice (seat 0, start player) against three bots."""
    game = services.create_game(
        creator=alice,
        options={"players": 4, "start_player": 0},
        seats=[
            services.SeatSpec("me"),
            services.SeatSpec("bot", bot="greedy"),
            services.SeatSpec("bot", bot="random"),
            services.SeatSpec("bot", bot="random"),
        ],
    )
    game.refresh_from_db()  # the last seat taken: it started by itself
    return game


@pytest.fixture
def reviewed_when_finished(settings: Any) -> None:
    """Every finished game is queued for review, at a tiny budget (2 iterations a search)."""
    settings.GAME_REVIEW = "all"
    settings.GAME_REVIEW_ITERATIONS = 2


@pytest.fixture
def finished_bot_game(reviewed_when_finished: None, alice: User) -> Game:
    """Alice against the greedy bot, heads-up, played to its end: its review is queued."""
    game = two_player_bot_game(alice)
    play_to_end(game, alice)
    return game


@pytest.fixture(autouse=True)
def _fresh_cache() -> Iterator[None]:
    """Rate-limit counters and heartbeats live in the caches: no test inherits another's."""
    from django.core.cache import caches

    for cache in caches.all():
        cache.clear()
    yield
    for cache in caches.all():
        cache.clear()


@pytest.fixture
def smtp() -> Iterator[tuple[Inbox, int]]:
    """A local SMTP server (aiosmtpd) on a free port: what it is sent, and its port."""
    with smtp_server() as (inbox, port):
        yield inbox, port

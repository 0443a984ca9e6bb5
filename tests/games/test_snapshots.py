"""The per-process cache of folded states (``games.store.states``): a state read
through it always equals the fold of the whole log, whatever the cache holds.
"""

from __future__ import annotations

from collections.abc import Iterator
from uuid import uuid4

import pytest
from django.db import transaction
from django.utils import timezone
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from accounts.models import User
from games import engine, services, store
from games.errors import GameError
from games.models import Game, GameEvent
from tests.notifications.helpers import greedy_move, play_until

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _cold_cache() -> Iterator[None]:
    store.states.clear()
    yield
    store.states.clear()


@pytest.fixture
def finished_game(bot_game: Game) -> Game:
    """alice against three bots, played to the end (greedy moves for alice)."""
    play_until(bot_game, lambda g: g.status == Game.Status.FINISHED)
    bot_game.refresh_from_db()
    return bot_game


def full_fold(game: Game, upto: int | None = None) -> engine.GameState:
    return engine.fold(store.event_payloads(game, upto=upto))


def mark_at(game: Game, seq: int) -> store.Mark:
    """The mark a state folded up to ``seq`` of this log carries."""
    pk, created = GameEvent.objects.filter(game=game, seq=seq).values_list("pk", "created").get()
    return store.Mark(pk, created)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_a_state_read_through_the_cache_equals_the_fold_of_the_log(finished_game: Game, data: st.DataObject) -> None:
    """Whatever version the cache holds (none, earlier, the same, later), reading
    the game at any version gives exactly the fold of the log up to it."""
    version = finished_game.version
    store.states.clear()
    known = data.draw(st.one_of(st.none(), st.integers(1, version)), label="cached version")
    if known is not None:
        store.states.remember(finished_game.public_id, full_fold(finished_game, known), mark_at(finished_game, known))
    upto = data.draw(st.one_of(st.none(), st.integers(1, version)), label="read at")
    state = store.state_of(finished_game, upto)
    assert state == full_fold(finished_game, upto)
    assert state is not None
    assert state.seq == (version if upto is None else upto)


def test_reads_after_moves_equal_the_fold_at_every_version(bot_game: Game, django_capture_on_commit_callbacks) -> None:
    """Moves played with their commit callbacks run, so the cache follows the game
    from version to version as in production, and is checked at each one."""
    checked = 0
    while bot_game.status == Game.Status.ACTIVE and checked < 60:
        with django_capture_on_commit_callbacks(execute=True):
            play_until(bot_game, lambda g, v=bot_game.version: g.version > v)
        cached = store.states.latest(bot_game.public_id)
        assert cached is not None
        assert cached.seq == bot_game.version, "the move's own state is remembered on commit"
        assert cached == full_fold(bot_game)
        assert store.state_of(bot_game) == full_fold(bot_game)
        checked += 1
    assert checked >= 10


def test_a_rolled_back_move_is_not_remembered(started_game: Game, alice: User) -> None:
    game = Game.objects.get(pk=started_game.pk)
    before = game.version
    with transaction.atomic():
        services.submit_action(
            game_id=game.public_id,
            user=alice,
            action=greedy_move(game),
            expected_version=before,
        )
        transaction.set_rollback(True)
    game.refresh_from_db()
    assert game.version == before
    cached = store.states.latest(game.public_id)
    assert cached is None or cached.seq <= before
    state = store.state_of(game)
    assert state == full_fold(game)
    with pytest.raises(GameError):  # the state is still before the move: it is alice's turn
        services.submit_action(
            game_id=game.public_id,
            user=alice,
            action=greedy_move(game),
            expected_version=before + 99,
        )


def test_the_cache_keeps_the_latest_state_and_forgets_the_least_used_games() -> None:
    cache = store.StateCache(max_games=2)
    a, b, c = uuid4(), uuid4(), uuid4()
    early, late = engine.fold([_created()]), engine.fold([_created()])
    late.seq = 5
    mark = store.Mark(1, timezone.now())
    cache.remember(a, late, mark)
    cache.remember(a, early, mark)  # an older state never replaces a later one
    assert cache.latest(a) is late
    cache.remember(b, early, mark)
    cache.latest(a)  # a is used: b is now the least recently used
    cache.remember(c, early, mark)
    assert cache.latest(b) is None
    assert cache.latest(a) is late
    assert cache.latest(c) is early


def _created() -> engine.Event:
    import random

    return engine.create_game(engine.GameOptions(players=2), random.Random(1))

"""The timeout sweep against the player's own move, on real threads and connections.

A seat's turn has timed out (the warning was sent) and the player moves just
as the sweep runs. Whatever the timing, exactly one of the two is stored; the
player's move is refused only when the timeout's move was stored first (a 409
``stale_version``, never a 503); nothing deadlocks. The bot thinks before any
lock is taken and its move counts only if the game is still at the version it
thought about; a database error in one game leaves the sweep going for the others.

The race needs row locks, so it runs on PostgreSQL
(``DATABASE_URL=postgres://…``); on SQLite, whose writers queue for one file
lock, it runs a few trials only. See docs/reliability.md.
"""

from __future__ import annotations

import logging
import random
import time
from datetime import timedelta
from functools import partial
from typing import Any

import pytest
from django.db import DatabaseError, connection
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import User
from accounts.services import create_api_token
from games import services, store
from games.engine.actions import action_to_json
from games.models import Game, GameEvent, Seat
from games.services import play
from notifications import reminders
from notifications.models import TurnClock
from tests.factories import greedy_move, two_player_game
from tests.support.concurrency import race

pytestmark = pytest.mark.django_db(transaction=True)

HOUR = timedelta(hours=1)
TRIALS = 50 if connection.vendor == "postgresql" else 5
WINDOW_S = 0.04  # each side starts at a random moment within this window


def timed_out_game(alice: User, bob: User) -> Game:
    """Alice to move, her turn timed out and her warning sent: the next sweep lets the bot move."""
    game = two_player_game(
        alice, bob, reminders=services.ReminderPolicy(first_hours=24, every_hours=48, timeout_hours=1)
    )
    assert game.to_act_seat == 0
    assert reminders.time_out_absent_players(now=game.turn_since + HOUR) == 0  # the warning
    assert TurnClock.objects.get(game=game).warned
    return game


def after(delay: float, call: Any) -> Any:
    # Not a wait for a condition: the random head start IS the race under test
    # (each side starts at a random moment of the window).
    time.sleep(delay)
    return call()


def test_the_sweep_and_the_players_move_race_and_exactly_one_is_stored(
    alice: User, bob: User, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(play, "TIMEOUT_BOT", "greedy")  # the cheap bot: 50 trials in well under a minute
    client = APIClient()
    client.raise_request_exception = False
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {create_api_token(user=alice, name='race').raw}")
    rng = random.Random(20)
    outcomes = {"player": 0, "timeout": 0}
    for trial in range(TRIALS):
        game = timed_out_game(alice, bob)
        version = game.version
        body = {"action": action_to_json(greedy_move(game)), "expected_version": version}
        url = f"/api/v1/games/{game.public_id}/actions"
        sweep_at = game.turn_since + 3 * HOUR
        response, moved = race(
            [
                partial(after, rng.uniform(0, WINDOW_S), partial(client.post, url, body, format="json")),
                partial(after, rng.uniform(0, WINDOW_S), partial(reminders.time_out_absent_players, now=sweep_at)),
            ]
        )
        first = GameEvent.objects.get(game=game, seq=version + 1)
        stored_by_player = first.actor_id == alice.pk
        absent = Seat.objects.get(game=game, index=0).absent_since is not None
        context = f"trial {trial}: HTTP {response.status_code} {response.content!r}, sweep moved {moved}"
        assert response.status_code in (200, 201, 409), context
        if response.status_code == 409:
            assert response.json()["code"] == "stale_version", context
            # Refused only because the timeout's move came first.
            assert moved == 1, context
            assert not stored_by_player, context
            assert absent, context
            outcomes["timeout"] += 1
        else:
            assert moved == 0, context
            assert stored_by_player, context
            assert not absent, context
            outcomes["player"] += 1
        game.refresh_from_db()  # state_of trusts the row it is given: give it today's
        state = store.state_of(game)
        assert state is not None
        assert state.seq == game.version
        # Set aside, so that the next trial's sweep finds only the next trial's game due.
        Game.objects.filter(pk=game.pk).update(status=Game.Status.ABANDONED)
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], "no deadlock, no failed game"
    assert sum(outcomes.values()) == TRIALS


def test_the_bot_thinks_before_any_lock_is_taken(alice: User, bob: User, monkeypatch: pytest.MonkeyPatch) -> None:
    game = timed_out_game(alice, bob)
    thought_inside: list[bool] = []
    think = play._bot_action

    def watched(*args: Any, **kwargs: Any) -> Any:
        # No transaction open, so no row lock held, while the bot thinks.
        thought_inside.append(connection.in_atomic_block)
        return think(*args, **kwargs)

    monkeypatch.setattr(play, "_bot_action", watched)
    assert reminders.time_out_absent_players(now=game.turn_since + 3 * HOUR) == 1
    assert thought_inside
    assert not any(thought_inside)


def test_a_move_made_while_the_bot_thinks_wins_and_the_bots_move_is_dropped(
    alice: User, bob: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(play, "TIMEOUT_BOT", "greedy")
    game = timed_out_game(alice, bob)
    move = greedy_move(game)
    think = play._bot_action

    def slow(*args: Any, **kwargs: Any) -> Any:
        decided = think(*args, **kwargs)
        # The player moves while the bot is still thinking about the old position.
        (result,) = race(
            [
                lambda: services.submit_action(
                    game_id=game.public_id, user=alice, action=move, expected_version=game.version
                )
            ]
        )
        assert result.seat == 0
        return decided

    monkeypatch.setattr(play, "_bot_action", slow)
    assert reminders.time_out_absent_players(now=game.turn_since + 3 * HOUR) == 0
    first = GameEvent.objects.get(game=game, seq=game.version + 1)
    assert first.actor_id == alice.pk
    assert Seat.objects.get(game=game, index=0).absent_since is None


def test_a_database_error_in_one_game_does_not_stop_the_sweep(
    alice: User, bob: User, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(play, "TIMEOUT_BOT", "greedy")
    broken, fine = timed_out_game(alice, bob), timed_out_game(alice, bob)
    decide = services.decide_for_absent_player

    def failing(*, game_id: Any, **kwargs: Any) -> Any:
        if str(game_id) == str(broken.public_id):
            raise DatabaseError("connection lost")
        return decide(game_id=game_id, **kwargs)

    monkeypatch.setattr(services, "decide_for_absent_player", failing)
    later = timezone.now() + 3 * HOUR
    assert reminders.time_out_absent_players(now=later) == 1
    assert Seat.objects.get(game=fine, index=0).absent_since is not None
    assert Seat.objects.get(game=broken, index=0).absent_since is None
    assert any("timeout sweep" in r.getMessage() for r in caplog.records)
    monkeypatch.setattr(services, "decide_for_absent_player", decide)
    assert reminders.time_out_absent_players(now=later) == 1, "the failed game is retried by the next sweep"

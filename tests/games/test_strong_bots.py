"""Strong bots in the service: a seat kind from the web form and the API, their
turns on a queue of their own, decided outside the game's row lock, and a
person who plays carelessly against them loses."""

from __future__ import annotations

import random
from types import SimpleNamespace
from typing import Any

import pytest
from django.test import Client

from accounts.models import User
from games import engine, services, store
from games.engine import bots
from games.models import Game
from games.services import lobby, play
from manhattan_site.celery import app

pytestmark = pytest.mark.django_db


def test_bot_turns_have_a_queue_of_their_own() -> None:
    assert app.amqp.router.route({}, "games.tasks.play_bot_turns")["queue"].name == "bots"
    assert app.amqp.router.route({}, "notifications.tasks.deliver_notifications")["queue"].name == "celery"


@pytest.mark.slow  # a whole game against searching bots
def test_a_game_against_strong_bots_from_the_web_page(client: Client, alice: User, monkeypatch: Any) -> None:
    """Created from the form, named by their level, and a careless human loses."""
    monkeypatch.setattr(lobby, "secrets", SimpleNamespace(token_hex=lambda _n: "a fixed deal for this test"))
    client.force_login(alice)
    form = {"players": "4", "seat_2": "strong", "seat_3": "strong", "seat_4": "strong", "timeout": "168"}
    assert client.post("/games/new/", form).status_code == 302
    game = Game.objects.get(creator=alice)
    assert [seat.bot for seat in game.seats.order_by("index")] == ["", "strong", "strong", "strong"]
    client.post(f"/games/{game.public_id}/start/")
    page = client.get(f"/games/{game.public_id}/").content.decode()
    assert "Bot 2 (strong bot)" in page

    rng = random.Random(7)
    for _ in range(400):
        play.play_bot_turns(game_id=game.public_id)
        loaded = store.load(game.public_id)
        if loaded.game.status == Game.Status.FINISHED:
            break
        assert loaded.state is not None
        actions = engine.enumerate_actions(engine.player_view(loaded.state, 0))
        careless = rng.choice([a for a in actions if not isinstance(a, engine.Resign)])
        services.submit_action(
            game_id=game.public_id, user=alice, action=careless, expected_version=loaded.game.version
        )
    state = store.load(game.public_id).state
    assert state is not None
    assert state.is_finished
    assert 0 not in state.winners, "three strong bots beat a player who moves at random"


def test_a_bot_decides_outside_the_lock_and_decides_again_if_the_game_moved(bot_game: Game, monkeypatch: Any) -> None:
    """While the bot thinks, the game is not locked; if it moved meanwhile, the
    bot's stale decision is dropped and it decides on the new position."""
    alice = bot_game.creator
    loaded = store.load(bot_game.public_id)
    assert loaded.state is not None
    services.submit_action(
        game_id=bot_game.public_id,
        user=alice,
        action=engine.enumerate_actions(engine.player_view(loaded.state, 0))[0],
        expected_version=bot_game.version,
    )
    assert play.bot_to_act(bot_game.public_id) is not None
    seen: list[int] = []
    real = bots.greedy_bot

    def thinking(view: engine.PlayerView, rng: random.Random) -> engine.Action:
        seen.append(view.version)
        if len(seen) == 1:  # meanwhile, the person at the table resigns
            version = Game.objects.get(pk=bot_game.pk).version
            services.submit_action(
                game_id=bot_game.public_id, user=alice, action=engine.Resign(), expected_version=version
            )
        return real(view, rng)

    monkeypatch.setitem(bots.BOTS, "greedy", thinking)
    play.play_bot_turns(game_id=bot_game.public_id, limit=1)
    assert len(seen) >= 2
    assert seen[1] > seen[0], "the second decision saw the new position"


def test_the_bot_task_stops_after_its_time_and_queues_the_rest(bot_game: Game, monkeypatch: Any, settings: Any) -> None:
    from games import tasks

    settings.BOT_TASK_SECONDS = 0
    alice = bot_game.creator
    loaded = store.load(bot_game.public_id)
    assert loaded.state is not None
    services.submit_action(
        game_id=bot_game.public_id,
        user=alice,
        action=engine.enumerate_actions(engine.player_view(loaded.state, 0))[0],
        expected_version=bot_game.version,
    )
    queued: list[str] = []
    monkeypatch.setattr(tasks.play_bot_turns, "delay", queued.append)
    assert tasks.play_bot_turns(str(bot_game.public_id)) == 1
    assert queued == [str(bot_game.public_id)], "the bots still to move are queued again"

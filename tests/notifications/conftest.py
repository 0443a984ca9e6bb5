"""Fixtures for the notification tests: a broker that records what is published,
a game with a short timeout, and alice's "your turn" email with its reply
address, a legal move to answer with, and both ways a reply comes in."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from celery import current_app
from kombu.exceptions import OperationalError

from games import engine, services, store
from games.models import Game
from notifications import emails, outbox
from notifications.models import Kind, Notification
from tests.factories import placement_turn_of, two_player_game
from tests.support.mail import latest, post_to_webhook, run_command


@dataclass
class Broker:
    """What the outbox published: one list of notification ids per delivery task."""

    published: list[list[int]] = field(default_factory=list)
    other_tasks: list[str] = field(default_factory=list)
    """Other tasks published meanwhile (a finished game's review), by name."""
    is_down: bool = False

    def send_task(self, name: str, args: Any = None, **kwargs: Any) -> None:
        if self.is_down:
            raise OperationalError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")
        if name != outbox.DELIVER_TASK:
            self.other_tasks.append(name)
            return
        self.published.append(list(args[0]))


@pytest.fixture
def broker(monkeypatch: pytest.MonkeyPatch) -> Broker:
    recorder = Broker()
    monkeypatch.setattr(current_app, "send_task", recorder.send_task)
    return recorder


@pytest.fixture
def quick_game(alice, bob) -> Game:
    """Alice and bob, a one-hour timeout (the first reminder would come after 24 h)."""
    return two_player_game(
        alice, bob, reminders=services.ReminderPolicy(first_hours=24, every_hours=48, timeout_hours=1)
    )


@pytest.fixture
def your_turn(started_game) -> Notification:
    """Alice's "your turn" email, as sent: it is hers to place a piece."""
    placement_turn_of(started_game, 0)
    return latest(Kind.YOUR_TURN, seat=0)


@pytest.fixture
def reply_address(your_turn) -> str:
    """The Reply-To of the email that was really built for her."""
    message = emails.build_message(your_turn)
    assert len(message.reply_to) == 1
    return str(message.reply_to[0])


@pytest.fixture
def legal_move(started_game) -> str:
    state = store.state_of(started_game)
    assert state is not None
    legal = engine.legal_actions(engine.player_view(state, 0))
    placement = legal.placements[0]
    action = engine.PlacePiece(card=placement.card, city=placement.city, size=placement.size, colour=placement.colour)
    return engine.format_action(action)


@pytest.fixture(params=["webhook", "command"])
def receive(request, client, monkeypatch) -> Callable[[bytes], None]:
    """Deliver a raw message through one of the two inbound paths."""
    if request.param == "webhook":

        def through_webhook(raw: bytes) -> None:
            response = post_to_webhook(client, raw)
            assert response.status_code == 200, response.content

        return through_webhook

    def through_command(raw: bytes) -> None:
        run_command(monkeypatch, raw)

    return through_command

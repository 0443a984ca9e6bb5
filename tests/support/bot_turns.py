"""A bot's turn played a moment after the human's move was answered, as the
worker would play it: the stand-in for ``play_bot_turns.delay`` in the tests
that serve the site live with no worker (clients that play whole games)."""

from __future__ import annotations

import threading

from django.db import OperationalError, connections

from games.services import play
from tests.support.waiting import wait_until


def bots_move_soon(game_id: str) -> None:
    """What the worker does with a queued bot turn, a moment after the human's
    move was answered (so clients wait for it, as they would for a real worker)."""

    def work() -> None:
        # On SQLite a busy moment answers "database is locked"; the worker's bot
        # sweep would try again a minute later, and so does this, at once.

        def played() -> bool:
            try:
                play.play_bot_turns(game_id=game_id)
            except OperationalError:
                connections.close_all()
                return False
            return True

        try:
            wait_until(played, timeout=10, interval=0.2, message="the bot's turn stayed locked out")
        finally:
            connections.close_all()

    threading.Timer(0.05, work).start()  # "a moment after": the delay is the behaviour, not a wait

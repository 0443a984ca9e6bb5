"""Turn games' hooks into wake-up messages, sent once the transaction commits.

A message only says which game changed; listeners then read the new events
from the database, so a lost or late message delays a stream and never loses
an event, and nothing secret travels through the broker.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.dispatch import receiver

from games.signals import Appended, events_appended, lobby_changed, message_posted, review_ready

from . import bus


@receiver(events_appended, dispatch_uid="streams.events_appended")
def wake_game_listeners(sender: Any, *, appended: Appended, **kwargs: Any) -> None:
    game_id = str(appended.loaded.game.public_id)
    seq = appended.last_seq
    transaction.on_commit(lambda: bus.publish(bus.Wake(game=game_id, seq=seq)))


@receiver(lobby_changed, dispatch_uid="streams.lobby_changed")
def wake_lobby_listeners(sender: Any, game: Any, **kwargs: Any) -> None:
    game_id = str(game.public_id)
    transaction.on_commit(lambda: bus.publish(bus.Wake(game=game_id, seq=game.version, lobby=True)))


@receiver(message_posted, dispatch_uid="streams.message_posted")
def wake_table_listeners(sender: Any, message: Any, loaded: Any, **kwargs: Any) -> None:
    game_id = str(loaded.game.public_id)
    seq = loaded.game.version
    transaction.on_commit(lambda: bus.publish(bus.Wake(game=game_id, seq=seq)))


@receiver(review_ready, dispatch_uid="streams.review_ready")
def wake_review_listeners(sender: Any, game: Any, **kwargs: Any) -> None:
    """The review is stored and committed (the task sends this after it): wake the
    game's streams and its players' streams, which follow it until then."""
    game_id = str(game.public_id)
    seq = game.version
    transaction.on_commit(lambda: bus.publish(bus.Wake(game=game_id, seq=seq)))

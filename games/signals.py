"""What the games app announces, for other apps to act on in the same transaction.

``games`` never imports the apps that listen (emails, reminders): it sends
these, and they connect in their ``AppConfig.ready``. Receivers run inside
the writer's transaction, so what they write is stored with the events or
not at all; anything that leaves the server they must defer with
``transaction.on_commit``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import TYPE_CHECKING

from django.dispatch import Signal

if TYPE_CHECKING:  # the store sends the signal: importing it here would be a loop
    from games.engine import Event
    from games.table import LoadedGame


class Cause(StrEnum):
    """Why events were appended: the one list, for every listener (and the webhooks' ``cause``)."""

    START = "start"  # the deal (the last seat taken, or the creator's start)
    MOVE = "move"  # a player's own action (API, page or email reply)
    BOT = "bot"  # a bot's seat moved
    ABSENT = "absent"  # the timeout bot moved for a player who has not come back
    TIMEOUT = "timeout"  # the timeout bot's first move for a player whose turn timed out
    OPERATOR = "operator"  # an operator's correction (undo)


@dataclass(frozen=True)
class Appended:
    """What ``events_appended`` carries, as its one argument ``appended``.

    ``loaded`` is the game with its seats and the state after the events;
    ``acting_seat`` is ``None`` for the dealer and an operator; ``now`` is the
    events' time (their ``created``)."""

    loaded: LoadedGame
    events: tuple[Event, ...]
    first_seq: int
    acting_seat: int | None
    cause: Cause
    now: datetime

    @property
    def last_seq(self) -> int:
        return self.first_seq + len(self.events) - 1


# Events were appended to a game's log: ``appended`` (an ``Appended``).
events_appended = Signal()

# A game's lobby changed: ``game``, ``seats``, ``change`` ("created",
# "joined", "declined") and ``user`` (who joined or declined; the creator for
# "created").
lobby_changed = Signal()

# A player took their seat back from the timeout bot: ``loaded`` (no state),
# ``seat`` and ``now``.
player_returned = Signal()

# A player wrote at a game's table: ``message`` (a ``talk.TableMessage``) and
# ``loaded`` (the game with its seats, no state). Sent in the writer's transaction.
message_posted = Signal()

# A finished game's review is done and stored (``games.services.review``): ``game`` and
# ``review`` (a ``GameReview``). Sent by the task on the bots queue after it commits, for
# the apps that tell people (an email's link, a webhook, a stream event).
review_ready = Signal()

# A finished game's review could not be made (the task failed or ran out of time):
# ``game`` and ``review``. Sent by the task after it stored the failure, so that what
# waited for the review (the game-over email) goes without it at once.
review_failed = Signal()

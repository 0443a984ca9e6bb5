"""What the games app announces, for other apps to act on in the same transaction.

``games`` never imports the apps that listen (emails, reminders): it sends
these, and they connect in their ``AppConfig.ready``. Receivers run inside
the writer's transaction, so what they write is stored with the events or
not at all; anything that leaves the server they must defer with
``transaction.on_commit``.
"""

from django.dispatch import Signal

# Events were appended to a game's log: ``loaded`` (a ``store.LoadedGame``
# whose state is the state after them), ``events``, ``first_seq``,
# ``acting_seat`` (None for the dealer, an operator or a sweep), ``cause``
# ("start", "move", "bot", "timeout", "operator") and ``now``.
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

"""What this app does when a game announces something (connected in
``WebhooksConfig.ready``): each player with an endpoint that wants the event
gets a delivery, written in the announcer's transaction and sent after it.

Whether a seat's player has an enabled endpoint at all is read with the
writer's locked table (``HAS_ENDPOINT``, registered in ``ready`` as a
``games.seat_facts`` fact): a move at a table where nobody has one, the usual
case, reads no endpoint here.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Exists, OuterRef
from django.dispatch import receiver
from django.utils import timezone

from accounts.models import User
from accounts.signals import account_closed
from games.models import Game, GameReview, Seat
from games.seat_facts import SeatFact
from games.services import visibility
from games.signals import Appended, events_appended, lobby_changed, review_ready

from . import delivery, payloads
from .models import Delivery, Endpoint

# Whether the seat's player has an enabled endpoint, as of the move's locked read.
HAS_ENDPOINT = SeatFact("has_webhook_endpoint", Exists(Endpoint.objects.filter(owner=OuterRef("user"), enabled=True)))


def _rows(endpoint: Endpoint, made: list[payloads.WebhookEvent]) -> list[Delivery]:
    return [
        Delivery(endpoint=endpoint, event_id=event.event_id, event_type=event.type, payload=event.body)
        for event in made
        if event.type in endpoint.event_types
    ]


@receiver(events_appended, dispatch_uid="webhooks.game_events")
def queue_game_deliveries(sender: Any, *, appended: Appended, **kwargs: Any) -> None:
    """Moves, turns, starts, scores and ends, to the endpoints of the players at the table."""
    loaded = appended.loaded
    # A seat whose read said "no endpoint" needs no look; one read without the fact (None) does.
    players = {
        seat.user_id: seat for seat in loaded.seats if seat.user_id is not None and HAS_ENDPOINT.of(seat) is not False
    }
    if not players:
        return
    rows: list[Delivery] = []
    made: dict[int, list[payloads.WebhookEvent]] = {}
    # The owners are players at the table, read with the game: not read again here.
    for endpoint in Endpoint.objects.filter(owner_id__in=players, enabled=True):
        owner = players[endpoint.owner_id].user
        if not visibility.may_see(loaded.game, owner, seats=loaded.seats):  # the one rule, asked here too
            continue
        seat = players[endpoint.owner_id].index
        if seat not in made:
            made[seat] = payloads.game_events(appended, seat=seat)
        rows += _rows(endpoint, made[seat])
    delivery.queue(rows)


@receiver(lobby_changed, dispatch_uid="webhooks.invitations")
def queue_invitations(sender: Any, *, game: Game, seats: list[Seat], change: str, **kwargs: Any) -> None:
    """A new game's invitations, to the endpoints of invitees who have an account."""
    if change != "created":
        return
    invited = {seat.invited_email.lower(): seat.index for seat in seats if seat.invited_email and seat.user_id is None}
    if not invited:
        return
    now = timezone.now()
    rows: list[Delivery] = []
    endpoints = Endpoint.objects.filter(owner__email__in=list(invited), enabled=True).select_related("owner")
    for endpoint in endpoints:
        if not visibility.may_see(game, endpoint.owner):
            continue
        seat = invited[endpoint.owner.email.lower()]
        rows += _rows(endpoint, [payloads.invitation(game, seat, game.creator.public_name, now)])
    delivery.queue(rows)


@receiver(review_ready, dispatch_uid="webhooks.review_ready")
def queue_review_ready(sender: Any, *, game: Game, review: GameReview, **kwargs: Any) -> None:
    """A finished game's review, to the endpoints of its players who may still see it."""
    seats = {seat.user_id: seat.index for seat in game.seats.all() if seat.user_id is not None}
    if not seats:
        return
    now = timezone.now()
    rows: list[Delivery] = []
    for endpoint in Endpoint.objects.filter(owner_id__in=seats, enabled=True).select_related("owner"):
        if not visibility.may_see(game, endpoint.owner):  # the one rule, asked here too
            continue
        rows += _rows(endpoint, [payloads.review_ready(game, review, seats[endpoint.owner_id], now)])
    delivery.queue(rows)


@receiver(account_closed, dispatch_uid="webhooks.account_closed")
def delete_endpoints(sender: Any, *, user: User, **kwargs: Any) -> None:
    """A closed account's webhooks stop with its tokens (their deliveries go with them)."""
    Endpoint.objects.filter(owner=user).delete()

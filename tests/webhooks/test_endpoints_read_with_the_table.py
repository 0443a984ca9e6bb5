"""Whether anyone at the table has a webhook endpoint is read with the move's
locked table (``webhooks.receivers.HAS_ENDPOINT``, a ``games.seat_facts`` fact):
a move where nobody has one reads no endpoint, and one where somebody has
still writes its delivery in the move's transaction."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games import store
from games.models import Game
from games.signals import Appended, Cause
from tests.support.api import legal_body
from tests.support.queries import mentions, statement_names
from webhooks import services
from webhooks.models import Delivery, Endpoint, EventType
from webhooks.receivers import HAS_ENDPOINT, queue_game_deliveries

pytestmark = pytest.mark.django_db


def _endpoint(user: Any) -> Endpoint:
    """An endpoint of ``user`` wanting every game event (a public host: the stub resolver answers it)."""
    every = [value for value, _ in EventType.choices]
    return services.create_endpoint(owner=user, url="https://hooks.example.com/hook", event_types=every).endpoint


def _move(clients: dict[int, Any], game: Game) -> list[dict[str, Any]]:
    """The player to act moves over the API; the statements of the POST."""
    game.refresh_from_db()
    seat = game.seats.get(index=game.to_act_seat)
    client = clients[seat.user_id]
    body = legal_body(client, game)
    with CaptureQueriesContext(connection) as queries:
        response = client.post(f"/api/v1/games/{game.public_id}/actions", body, format="json")
    assert response.status_code == 200, response.content
    return queries.captured_queries


@pytest.fixture
def clients(alice, bob, client_for) -> dict[int, Any]:
    return {alice.pk: client_for(alice), bob.pk: client_for(bob)}


def test_a_move_where_nobody_has_an_endpoint_reads_none(started_game, clients):
    queries = _move(clients, started_game)

    named = statement_names(queries)
    assert "SELECT webhooks_endpoint" not in named
    asked = mentions(queries, "webhooks_endpoint")
    assert len(asked) == 1, "asked once, inside the locked read of the table"
    assert statement_names([{"sql": asked[0]}]) == ["SELECT games_seat"]
    assert " FOR UPDATE" in asked[0] or connection.vendor != "postgresql"
    assert not Delivery.objects.exists()


def test_with_an_endpoint_at_the_table_the_delivery_is_written_in_the_moves_transaction(started_game, clients, bob):
    bobs = _endpoint(bob)

    named = statement_names(_move(clients, started_game))

    assert "SELECT webhooks_endpoint" in named, "the endpoint itself (its URL, its event types) is read"
    begin, commit = named.index("BEGIN"), len(named) - 1 - named[::-1].index("COMMIT")
    assert begin < named.index("INSERT webhooks_delivery") < commit
    assert list(bobs.deliveries.values_list("event_type", flat=True)) == [EventType.GAME_MOVE]


def test_a_disabled_endpoint_counts_as_none(started_game, clients, bob):
    bobs = _endpoint(bob)
    Endpoint.objects.filter(pk=bobs.pk).update(enabled=False)

    named = statement_names(_move(clients, started_game))

    assert "SELECT webhooks_endpoint" not in named
    assert not Delivery.objects.exists()


def test_an_endpoint_made_between_two_moves_is_seen_by_the_next(started_game, clients, bob):
    _move(clients, started_game)
    assert not Delivery.objects.exists()

    bobs = _endpoint(bob)
    named = statement_names(_move(clients, started_game))

    assert "INSERT webhooks_delivery" in named
    started_game.refresh_from_db()
    sent = bobs.deliveries.get(event_type=EventType.GAME_MOVE)
    assert sent.payload["data"]["version"] == started_game.version


def test_only_the_writers_read_carries_the_fact(started_game, bob):
    _endpoint(bob)

    with CaptureQueriesContext(connection) as read:
        reader = store.load(started_game.public_id)
    assert not mentions(read.captured_queries, "webhooks_endpoint"), "a reader pays nothing for it"
    assert {HAS_ENDPOINT.of(seat) for seat in reader.seats} == {None}

    with transaction.atomic():
        writer = store.load(started_game.public_id, lock=True)
    assert {seat.user_id: HAS_ENDPOINT.of(seat) for seat in writer.seats} == {
        started_game.creator_id: False,
        bob.pk: True,
    }


def test_a_table_read_without_the_fact_still_finds_the_endpoints(started_game, bob):
    """A seat with no answer (read without the lock, or built by hand) is asked about as before."""
    bobs = _endpoint(bob)
    reader = store.load(started_game.public_id)
    last = store.event_payloads(started_game)[-1]
    appended = Appended(
        reader, (last,), first_seq=started_game.version, acting_seat=None, cause=Cause.START, now=timezone.now()
    )

    with CaptureQueriesContext(connection) as queries:
        queue_game_deliveries(sender=Game, appended=appended)

    assert "SELECT webhooks_endpoint" in statement_names(queries.captured_queries)
    assert bobs.deliveries.filter(event_type=EventType.GAME_STARTED).exists()

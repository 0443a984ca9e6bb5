"""``game.review_ready``: once a finished game's review is stored, its players'
endpoints that asked for it are told, signed, with where to read it; nobody else."""

from __future__ import annotations

from typing import Any

import pytest
from standardwebhooks import Webhook

from games.models import Game, GameReview
from games.services.review import run_review
from webhooks.models import Delivery
from webhooks.tasks import deliver_webhooks

pytestmark = pytest.mark.django_db


@pytest.fixture
def finished_game(finished_bot_game: Game) -> Game:
    return finished_bot_game


def test_the_players_endpoint_hears_the_review_is_ready_and_nobody_else(
    finished_game: Game, alice: Any, stranger: Any, receiver: Any, endpoint_for: Any
) -> None:
    alices = endpoint_for(alice, ["game.review_ready"])
    only_over = endpoint_for(alice, ["game.over"], path="/over")
    strangers = endpoint_for(stranger)
    finished_game.public = True  # a stranger may see it, but it is not their game
    finished_game.save(update_fields=["public"])
    assert not Delivery.objects.filter(event_type="game.review_ready").exists(), "not before the review"

    run_review(str(finished_game.public_id))

    [ready] = alices.endpoint.deliveries.filter(event_type="game.review_ready")
    assert not only_over.endpoint.deliveries.exists()
    assert not strangers.endpoint.deliveries.exists()
    deliver_webhooks([ready.pk])
    [request] = receiver.requests
    body = Webhook(alices.secret).verify(request.body, request.headers)
    review = GameReview.objects.get(game=finished_game)
    marked = [row for row in review.moves if row["mark"]]
    assert body["type"] == "game.review_ready"
    assert body["data"] == {
        "game": str(finished_game.public_id),
        "version": finished_game.version,
        "seat": 0,
        "review": f"/api/v1/games/{finished_game.public_id}/review",
        "moves_reviewed": len(review.moves),
        "marked": len(marked),
        "marked_yours": sum(row["seat"] == 0 for row in marked),
    }
    assert "seed" not in request.body.decode()


def test_endpoints_can_ask_for_the_review_event_over_the_api(alice: Any, client_for: Any, resolver: Any) -> None:
    client = client_for(alice)
    created = client.post(
        "/api/v1/webhooks",
        {"url": "https://hooks.example.com/x", "event_types": ["game.review_ready"]},
        format="json",
    )
    assert created.status_code == 201, created.content
    assert created.json()["event_types"] == ["game.review_ready"]
    refused = client.post(
        "/api/v1/webhooks", {"url": "https://hooks.example.com/y", "event_types": ["review.ready"]}, format="json"
    )
    assert refused.status_code in (400, 422), refused.content


def test_the_schema_types_the_review_event(client_for: Any) -> None:
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    body = schema["components"]["schemas"]["WebhookReviewReady"]
    assert body["properties"]["type"]["enum"] == ["game.review_ready"]
    assert {"game", "seat", "review", "marked_yours"} <= set(body["properties"]["data"]["required"])
    frame = schema["components"]["schemas"]["ReviewReadyStreamEvent"]
    assert frame["properties"]["type"]["enum"] == ["review_ready"]
    assert "review_ready" in schema["components"]["schemas"]["UserStreamEvent"]["properties"]["type"]["enum"]

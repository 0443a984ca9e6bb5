"""``GET /api/v1/games/{id}/review``: the bot's review of a finished game.

Who may see the game may read its review (``SeesTheGame`` answers the unknown id's 404
to anyone else). A game in play has none (409 ``review_not_available``), so a review
never helps anyone during the game; while the task runs the answer is 202 with its
progress, then 200 with every reviewed move.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_field
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.scopes import GAMES_READ
from games.errors import GameError
from games.models import GameReview
from games.services.review import review_of

from .permissions import seen_game

PROBLEM = OpenApiResponse(description="An RFC 9457 problem (application/problem+json) with a stable 'code'.")


@extend_schema_field(
    # Components, not inline objects: the same inline variants under both "played" and "best"
    # made openapi-python-client drop ReviewedMove and Review (games.api.schema_types).
    {"oneOf": [{"$ref": "#/components/schemas/ReviewedPlace"}, {"$ref": "#/components/schemas/ReviewedSelect"}]}
)
class ReviewedActionField(serializers.JSONField):
    """A placement or selection in the API's action form (as ``POST …/actions`` takes it)."""


class ReviewedMoveSerializer(serializers.Serializer[Any]):
    event_index = serializers.IntegerField(help_text="The move's event number in the log (GET …/events).")
    seat = serializers.IntegerField()
    round = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=["placement", "selection"])
    played = ReviewedActionField(help_text="The move played.")
    best = ReviewedActionField(help_text="The move the bot would have played.")
    chance_before = serializers.FloatField(help_text="Estimated chance (0–1) to win with the bot's move.")
    chance_after = serializers.FloatField(help_text="Estimated chance (0–1) to win after the move played.")
    mark = serializers.ChoiceField(
        choices=["inaccuracy", "mistake", "blunder"],
        allow_null=True,
        help_text="Set when the move cost more win chance than the mark's threshold (docs/bots.md).",
    )


class ReviewProgressSerializer(serializers.Serializer[Any]):
    status = serializers.ChoiceField(choices=["queued", "running"])
    progress = serializers.FloatField(help_text="The share of the moves reviewed so far, 0–1.")
    moves_done = serializers.IntegerField()
    moves_total = serializers.IntegerField(help_text="0 until the review has started.")


class ReviewSerializer(serializers.Serializer[Any]):
    status = serializers.ChoiceField(choices=["done"])
    iterations = serializers.IntegerField(help_text="Search iterations of each estimate.")
    finished = serializers.DateTimeField()
    moves = ReviewedMoveSerializer(many=True, help_text="Every placement and selection that stands, in log order.")


class ReviewView(APIView):
    required_scopes = {"GET": GAMES_READ}

    @extend_schema(
        operation_id="game_review",
        summary="The bot's review of a finished game",
        responses={200: ReviewSerializer, 202: ReviewProgressSerializer, 404: PROBLEM, 409: PROBLEM},
    )
    def get(self, request: Request, game_id: str) -> Response:
        review = review_of(seen_game(request, game_id).game)
        if review is None or review.status == GameReview.Status.FAILED:
            raise GameError(
                "review_not_available",
                "A review is made once the game is finished, if this server reviews such games.",
            )
        if review.status != GameReview.Status.DONE:
            body = {
                "status": review.status,
                "progress": round(review.progress, 3),
                "moves_done": review.moves_done,
                "moves_total": review.moves_total,
            }
            return Response(ReviewProgressSerializer(body).data, status=status.HTTP_202_ACCEPTED)
        return Response(ReviewSerializer(review).data)

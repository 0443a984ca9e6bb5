"""The webhooks API: translate HTTP to ``webhooks.services`` and the rows back."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import exceptions, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import BaseThrottle
from rest_framework.views import APIView

from accounts.auth_helpers import request_user
from accounts.scopes import WEBHOOKS_MANAGE
from accounts.throttles import ScopedRateThrottle
from manhattan_site.api.codes import ProblemError
from manhattan_site.strict_input import takes_no_body

from .. import services
from ..models import Delivery, Endpoint
from .serializers import (
    NewWebhookEndpointSerializer,
    WebhookDeliverySerializer,
    WebhookEndpointCreateSerializer,
    WebhookEndpointSerializer,
    WebhookEndpointUpdateSerializer,
)

PROBLEM = OpenApiResponse(description="An RFC 9457 problem (application/problem+json) with a stable 'code'.")
DELIVERY_PAGE = 100
REGISTRATION_EXAMPLES = [
    OpenApiExample(
        "A bot that wants its turns",
        request_only=True,
        value={"url": "https://bot.example.com/manhattan", "event_types": ["game.your_turn", "game.over"]},
    ),
    OpenApiExample(
        "Registered",
        response_only=True,
        status_codes=["201"],
        value={
            "id": 7,
            "url": "https://bot.example.com/manhattan",
            "description": "",
            "event_types": ["game.over", "game.your_turn"],
            "enabled": True,
            "disabled_reason": "",
            "disabled_at": None,
            "consecutive_failures": 0,
            "created": "2026-01-05T10:00:00Z",
            "updated": "2026-01-05T10:00:00Z",
            "secret": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
        },
    ),
]


def _endpoint(request: Request, endpoint_id: int) -> Endpoint:
    endpoint = Endpoint.objects.filter(owner=request_user(request), pk=endpoint_id).first()
    if endpoint is None:
        raise exceptions.NotFound("You have no webhook endpoint with this id.", code="webhook_not_found")
    return endpoint


MANAGES = {"*": WEBHOOKS_MANAGE}


class EndpointListView(APIView):
    required_scopes = MANAGES

    @extend_schema(
        operation_id="webhooks_list",
        summary="My webhook endpoints",
        responses={200: WebhookEndpointSerializer(many=True)},
    )
    def get(self, request: Request) -> Response:
        endpoints = Endpoint.objects.filter(owner=request_user(request))
        return Response(WebhookEndpointSerializer(endpoints, many=True).data)

    @extend_schema(
        operation_id="webhooks_create",
        summary="Register a webhook endpoint (its signing secret is in the answer, once)",
        request=WebhookEndpointCreateSerializer,
        responses={201: NewWebhookEndpointSerializer, 400: PROBLEM, 422: PROBLEM},
        examples=REGISTRATION_EXAMPLES,
    )
    def post(self, request: Request) -> Response:
        serializer = WebhookEndpointCreateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        new = services.create_endpoint(owner=request_user(request), **data)
        body = NewWebhookEndpointSerializer(new.endpoint, context={"secret": new.secret}).data
        return Response(body, status=status.HTTP_201_CREATED)


class EndpointDetailView(APIView):
    required_scopes = MANAGES

    @extend_schema(
        operation_id="webhooks_retrieve",
        summary="A webhook endpoint",
        responses={200: WebhookEndpointSerializer, 404: PROBLEM},
    )
    def get(self, request: Request, endpoint_id: int) -> Response:
        return Response(WebhookEndpointSerializer(_endpoint(request, endpoint_id)).data)

    @extend_schema(
        operation_id="webhooks_update",
        summary="Change a webhook endpoint (enabled: true switches it back on)",
        request=WebhookEndpointUpdateSerializer,
        responses={200: WebhookEndpointSerializer, 400: PROBLEM, 404: PROBLEM, 422: PROBLEM},
    )
    def patch(self, request: Request, endpoint_id: int) -> Response:
        endpoint = _endpoint(request, endpoint_id)
        serializer = WebhookEndpointUpdateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        return Response(WebhookEndpointSerializer(services.update_endpoint(endpoint=endpoint, **data)).data)

    @extend_schema(
        operation_id="webhooks_destroy",
        summary="Delete a webhook endpoint and its delivery log",
        responses={204: None, 404: PROBLEM},
    )
    @takes_no_body
    def delete(self, request: Request, endpoint_id: int) -> Response:
        services.delete_endpoint(endpoint=_endpoint(request, endpoint_id))
        return Response(status=status.HTTP_204_NO_CONTENT)


class SecretView(APIView):
    required_scopes = MANAGES

    @extend_schema(
        operation_id="webhooks_rotate_secret",
        summary="Replace the endpoint's signing secret (the new one is in the answer, once)",
        request=None,
        responses={200: NewWebhookEndpointSerializer, 404: PROBLEM},
    )
    @takes_no_body
    def post(self, request: Request, endpoint_id: int) -> Response:
        new = services.rotate_secret(endpoint=_endpoint(request, endpoint_id))
        return Response(NewWebhookEndpointSerializer(new.endpoint, context={"secret": new.secret}).data)


class DeliveryListView(APIView):
    required_scopes = MANAGES

    @extend_schema(
        operation_id="webhooks_deliveries_list",
        summary="The endpoint's delivery log, newest first (at most 100)",
        parameters=[
            OpenApiParameter("status", str, enum=Delivery.Status.values, description="Only deliveries in this status."),
        ],
        responses={200: WebhookDeliverySerializer(many=True), 400: PROBLEM, 404: PROBLEM},
    )
    def get(self, request: Request, endpoint_id: int) -> Response:
        deliveries = _endpoint(request, endpoint_id).deliveries.all()
        wanted = request.query_params.get("status")
        if wanted is not None:
            if wanted not in Delivery.Status.values:
                raise ProblemError(
                    "bad_filter", f"Unknown status {wanted!r}; one of: {', '.join(Delivery.Status.values)}."
                )
            deliveries = deliveries.filter(status=wanted)
        return Response(WebhookDeliverySerializer(deliveries[:DELIVERY_PAGE], many=True).data)


class TestEventView(APIView):
    required_scopes = MANAGES
    throttle_scope = "webhook_test"

    def get_throttles(self) -> list[BaseThrottle]:
        return [*super().get_throttles(), ScopedRateThrottle()]

    @extend_schema(
        operation_id="webhooks_test",
        summary="Send a test event (webhook.test) to the endpoint; the answer is the queued delivery",
        request=None,
        responses={202: WebhookDeliverySerializer, 404: PROBLEM, 429: PROBLEM},
    )
    @takes_no_body
    def post(self, request: Request, endpoint_id: int) -> Response:
        delivery = services.send_test_event(endpoint=_endpoint(request, endpoint_id))
        return Response(WebhookDeliverySerializer(delivery).data, status=status.HTTP_202_ACCEPTED)

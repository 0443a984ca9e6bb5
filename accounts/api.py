"""Personal API tokens over the API: list, create (shown once), revoke; and who am I."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import exceptions, permissions, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import BaseThrottle
from rest_framework.views import APIView

from .auth_helpers import request_user
from .models import ApiToken
from .permissions import MayCreateTokens
from .serializers import MeSerializer, NewTokenSerializer, TokenSerializer
from .services import create_api_token, revoke_api_token
from .throttles import ScopedRateThrottle

PROBLEM = OpenApiResponse(description="An RFC 9457 problem (application/problem+json).")


class TokenListView(APIView):
    throttle_scope = "token_create"
    # Creating a token needs a fresh sign-in in a browser (accounts/permissions.py).
    permission_classes = [permissions.IsAuthenticated, MayCreateTokens]

    def get_throttles(self) -> list[BaseThrottle]:
        # The scoped limit applies to creating only; every request has the user limit.
        throttles = list(super().get_throttles())
        return [*throttles, ScopedRateThrottle()] if self.request.method == "POST" else throttles

    @extend_schema(operation_id="tokens_list", summary="My API tokens", responses={200: TokenSerializer(many=True)})
    def get(self, request: Request) -> Response:
        return Response(TokenSerializer(ApiToken.objects.filter(user=request_user(request)), many=True).data)

    @extend_schema(
        operation_id="tokens_create",
        summary="Create an API token (the token is in the response, once)",
        request=TokenSerializer,
        responses={201: NewTokenSerializer, 400: PROBLEM, 403: PROBLEM, 429: PROBLEM},
    )
    def post(self, request: Request) -> Response:
        serializer = TokenSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        new = create_api_token(user=request_user(request), name=serializer.validated_data["name"])
        body = NewTokenSerializer(new.token, context={"raw": new.raw}).data
        return Response(body, status=status.HTTP_201_CREATED)


class TokenDetailView(APIView):
    @extend_schema(operation_id="tokens_revoke", summary="Revoke an API token", responses={204: None, 404: PROBLEM})
    def delete(self, request: Request, token_id: int) -> Response:
        token = ApiToken.objects.filter(user=request_user(request), pk=token_id).first()
        if token is None:
            raise exceptions.NotFound("You have no API token with this id.", code="token_not_found")
        revoke_api_token(token=token)
        return Response(status=status.HTTP_204_NO_CONTENT)


class MeView(APIView):
    @extend_schema(operation_id="me", summary="Who am I", responses={200: MeSerializer})
    def get(self, request: Request) -> Response:
        return Response(MeSerializer(request_user(request)).data)

"""Personal API tokens over the API: list, create (shown once), revoke; and who am I."""

from __future__ import annotations

from django.contrib.auth import logout
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import exceptions, permissions, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import BaseThrottle
from rest_framework.views import APIView

from manhattan_site.strict_input import takes_no_body

from .auth_helpers import request_user
from .closing import close_account
from .models import ApiToken
from .permissions import FreshSignInToClose, MayCreateTokens
from .scopes import ACCOUNT_HOLDER, ALL_SCOPES, GAMES_PLAY, ScopeRequired
from .serializers import MeSerializer, NewTokenSerializer, TokenSerializer
from .services import create_api_token, make_bot_account, revoke_api_token
from .throttles import ScopedRateThrottle

PROBLEM = OpenApiResponse(description="An RFC 9457 problem (application/problem+json).")


class TokenListView(APIView):
    throttle_scope = "token_create"
    # Creating a token needs a fresh sign-in in a browser (accounts/permissions.py).
    permission_classes = [permissions.IsAuthenticated, ScopeRequired, MayCreateTokens]
    required_scopes = {"*": ACCOUNT_HOLDER}

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
        data = serializer.validated_data
        new = create_api_token(user=request_user(request), name=data["name"], scope=data.get("scope", ALL_SCOPES))
        body = NewTokenSerializer(new.token, context={"raw": new.raw}).data
        return Response(body, status=status.HTTP_201_CREATED)


class TokenDetailView(APIView):
    required_scopes = {"*": ACCOUNT_HOLDER}

    @extend_schema(operation_id="tokens_revoke", summary="Revoke an API token", responses={204: None, 404: PROBLEM})
    @takes_no_body
    def delete(self, request: Request, token_id: int) -> Response:
        token = ApiToken.objects.filter(user=request_user(request), pk=token_id).first()
        if token is None:
            raise exceptions.NotFound("You have no API token with this id.", code="token_not_found")
        revoke_api_token(token=token)
        return Response(status=status.HTTP_204_NO_CONTENT)


class MeView(APIView):
    permission_classes = [permissions.IsAuthenticated, ScopeRequired, FreshSignInToClose]

    @extend_schema(operation_id="me", summary="Who am I", responses={200: MeSerializer})
    def get(self, request: Request) -> Response:
        return Response(MeSerializer(request_user(request), context={"auth": request.auth}).data)

    @extend_schema(
        operation_id="me_close",
        summary="Close my account (a browser session with a fresh sign-in only)",
        description=(
            "Ends every sign-in, token and app at once, erases the address, preferences and presence,"
            " and shows the person as 'former player N' in every game; the bot takes their seats in"
            " games being played. Takes no body. See docs/people.md."
        ),
        request=None,
        responses={204: None, 400: PROBLEM, 403: PROBLEM},
    )
    @takes_no_body
    def delete(self, request: Request) -> Response:
        close_account(user=request_user(request))
        logout(request)  # this browser's session ends with the rest
        return Response(status=status.HTTP_204_NO_CONTENT)


class BotAccountView(APIView):
    """Turns the caller's account into a bot account (lichess's "upgrade to bot"):
    from then on it plays only through the API and is never sent email. Only an
    operator can turn it back (the admin)."""

    required_scopes = {"POST": GAMES_PLAY}

    @extend_schema(
        operation_id="me_become_bot",
        summary="Make my account a bot account",
        request=None,
        responses={200: MeSerializer, 403: PROBLEM},
    )
    @takes_no_body
    def post(self, request: Request) -> Response:
        user = request_user(request)
        if user.is_staff:
            raise exceptions.PermissionDenied("An operator's account cannot be a bot account.", code="staff_not_bot")
        make_bot_account(user=user)
        return Response(MeSerializer(user, context={"auth": request.auth}).data)

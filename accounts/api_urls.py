"""The accounts API (tokens, the signed-in account), mounted under ``/api/v1/``
by the project's API router (``AccountsConfig.api_urls``)."""

from django.urls import path

from .api import BotAccountView, MeView, TokenDetailView, TokenListView

# What the API index (``/api/v1/``) links to from here.
index_links = {"me": "api-me", "tokens": "api-tokens"}

urlpatterns = [
    path("tokens", TokenListView.as_view(), name="api-tokens"),
    path("tokens/<int:token_id>", TokenDetailView.as_view(), name="api-token"),
    path("me", MeView.as_view(), name="api-me"),
    path("me/bot", BotAccountView.as_view(), name="api-me-bot"),
]

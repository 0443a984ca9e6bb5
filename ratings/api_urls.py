"""The players API, mounted under ``/api/v1/`` by the project's API router (``RatingsConfig.api_urls``)."""

from django.urls import path

from .api import LeaderboardView, PlayerView

urlpatterns = [
    path("players/<str:player_id>", PlayerView.as_view(), name="api-player"),
    path("leaderboard", LeaderboardView.as_view(), name="api-leaderboard"),
]

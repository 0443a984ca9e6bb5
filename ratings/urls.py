"""The profile and leaderboard pages."""

from django.urls import path

from . import web

app_name = "ratings"
urlpatterns = [
    path("players/<int:player_id>/", web.profile, name="profile"),
    path("players/<int:player_id>/visibility/", web.visibility, name="visibility"),
    path("leaderboard/", web.leaderboard, name="leaderboard"),
]

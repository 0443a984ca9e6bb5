"""Server-rendered play pages (the basic flow works without JavaScript)."""

from django.urls import path

from . import presence, views
from .new_game import new_game

app_name = "games"
urlpatterns = [
    path("", views.game_list, name="list"),
    path("new/", new_game, name="new"),
    path("<str:game_id>/", views.game_detail, name="detail"),
    path("<str:game_id>/play/", views.play, name="play"),
    path("<str:game_id>/resign/", views.resign, name="resign"),
    path("<str:game_id>/join/", views.join, name="join"),
    path("<str:game_id>/decline/", views.decline, name="decline"),
    path("<str:game_id>/start/", views.start, name="start"),
    path("<str:game_id>/back/", views.come_back, name="come_back"),
    path("<str:game_id>/presence/", presence.heartbeat, name="presence"),
]

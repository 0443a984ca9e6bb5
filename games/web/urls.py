"""Server-rendered play pages (the basic flow works without JavaScript)."""

from django.urls import path

from . import lobby_pages, presence, review_steps, talk, views, watch
from .new_game import new_game

app_name = "games"
urlpatterns = [
    path("", views.game_list, name="list"),
    path("new/", new_game, name="new"),
    path("lobby/", lobby_pages.lobby, name="lobby"),
    path("lobby/play-now/", lobby_pages.play_now, name="play_now"),
    path("watch/", watch.watch_list, name="watch_list"),
    path("<str:game_id>/watch/", watch.watch, name="watch"),
    path("<str:game_id>/visibility/", watch.visibility, name="visibility"),
    path("<str:game_id>/rematch/", lobby_pages.rematch, name="rematch"),
    path("<str:game_id>/", views.game_detail, name="detail"),
    path("<str:game_id>/review/", review_steps.review_step, name="review_step"),
    path("<str:game_id>/play/", views.play, name="play"),
    path("<str:game_id>/resign/", views.resign, name="resign"),
    path("<str:game_id>/join/", views.join, name="join"),
    path("<str:game_id>/decline/", views.decline, name="decline"),
    path("<str:game_id>/start/", views.start, name="start"),
    path("<str:game_id>/back/", views.come_back, name="come_back"),
    path("<str:game_id>/messages/", talk.post_message, name="post_message"),
    path("<str:game_id>/seats/<int:index>/mute/", talk.mute, name="mute"),
    path("<str:game_id>/presence/", presence.heartbeat, name="presence"),
]

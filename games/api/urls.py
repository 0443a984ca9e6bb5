"""The games API, mounted under ``/api/v1/`` by the project's API router
(``GamesConfig.api_urls``)."""

from django.urls import path

from . import lobby, presence, review, talk, views, watching

# What the API index (``/api/v1/``) links to from here.
index_links = {"games": "api-games"}

urlpatterns = [
    path("games", views.GameListView.as_view(), name="api-games"),
    path("games/<str:game_id>", views.GameDetailView.as_view(), name="api-game"),
    path("games/<str:game_id>/join", views.JoinView.as_view(), name="api-game-join"),
    path("games/<str:game_id>/start", views.StartView.as_view(), name="api-game-start"),
    path("games/<str:game_id>/legal-actions", views.LegalActionsView.as_view(), name="api-game-legal-actions"),
    path("games/<str:game_id>/actions", views.ActionsView.as_view(), name="api-game-actions"),
    path("games/<str:game_id>/events", views.EventsView.as_view(), name="api-game-events"),
    path("games/<str:game_id>/states/<int:n>", views.StateAtView.as_view(), name="api-game-state"),
    path("games/<str:game_id>/rematch", lobby.RematchView.as_view(), name="api-game-rematch"),
    path("games/<str:game_id>/visibility", watching.VisibilityView.as_view(), name="api-game-visibility"),
    path("watch", watching.WatchListView.as_view(), name="api-watch"),
    path("lobby", lobby.LobbyView.as_view(), name="api-lobby"),
    path("lobby/play-now", lobby.PlayNowView.as_view(), name="api-lobby-play-now"),
    path("games/<str:game_id>/review", review.ReviewView.as_view(), name="api-game-review"),
    path("games/<str:game_id>/record", views.RecordView.as_view(), name="api-game-record"),
    path("games/<str:game_id>/messages", talk.MessagesView.as_view(), name="api-game-messages"),
    path("games/<str:game_id>/seats/<int:index>/mute", talk.MuteView.as_view(), name="api-game-seat-mute"),
    path("games/<str:game_id>/presence", presence.PresenceView.as_view(), name="api-game-presence"),
]

from django.urls import path

from . import views

urlpatterns = [
    path("stream", views.user_stream, name="api-stream"),
    path("games/<str:game_id>/stream", views.game_stream, name="api-game-stream"),
]

from django.urls import path

from . import views

app_name = "notifications"
urlpatterns = [
    path("unsubscribe/<str:token>/", views.unsubscribe_view, name="unsubscribe"),
    path("preferences/", views.preferences_view, name="preferences"),
    path("outbox/", views.outbox_view, name="outbox"),
]

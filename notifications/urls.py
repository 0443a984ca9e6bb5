from django.urls import path

from . import export_views, views

app_name = "notifications"
urlpatterns = [
    path("unsubscribe/<str:token>/", views.unsubscribe_view, name="unsubscribe"),
    path("preferences/", views.preferences_view, name="preferences"),
    path("no-invitations/<str:token>/", views.no_invitations_view, name="no_invitations"),
    path("outbox/", views.outbox_view, name="outbox"),
    path("export/", export_views.request_export_view, name="export"),
    path("export/<str:token>/", export_views.download_view, name="export_download"),
]

"""The data export API, mounted under ``/api/v1/`` by the project's API router
(``NotificationsConfig.api_urls``)."""

from django.urls import path

from .export_views import DataExportView

urlpatterns = [
    path("me/export", DataExportView.as_view(), name="api-me-export"),
]

"""Mounted under ``/api/v1/`` by the project's API router (``WebhooksConfig.api_urls``)."""

from django.urls import path

from . import views

urlpatterns = [
    path("webhooks", views.EndpointListView.as_view(), name="api-webhooks"),
    path("webhooks/<int:endpoint_id>", views.EndpointDetailView.as_view(), name="api-webhook"),
    path("webhooks/<int:endpoint_id>/deliveries", views.DeliveryListView.as_view(), name="api-webhook-deliveries"),
    path("webhooks/<int:endpoint_id>/secret", views.SecretView.as_view(), name="api-webhook-secret"),
    path("webhooks/<int:endpoint_id>/test", views.TestEventView.as_view(), name="api-webhook-test"),
]

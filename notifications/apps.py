from django.apps import AppConfig


class NotificationsConfig(AppConfig):
    name = "notifications"
    default_auto_field = "django.db.models.BigAutoField"
    api_urls = "notifications.api_urls"  # mounted under /api/v1/ by manhattan_site.api.urls

    def ready(self) -> None:
        # Connects what this app listens to: the games' and accounts' hooks, and inbound mail.
        from . import checks, receivers, signals  # noqa: F401

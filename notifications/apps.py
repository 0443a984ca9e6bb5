from django.apps import AppConfig


class NotificationsConfig(AppConfig):
    name = "notifications"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Connects what this app listens to: the games' and accounts' hooks, and inbound mail.
        from . import checks, receivers, signals  # noqa: F401

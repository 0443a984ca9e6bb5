from django.apps import AppConfig


class StreamsConfig(AppConfig):
    name = "streams"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from . import wakeups  # noqa: F401 - connects games' hooks to the wake-up publisher

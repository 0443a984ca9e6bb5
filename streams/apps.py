from django.apps import AppConfig


class StreamsConfig(AppConfig):
    name = "streams"
    default_auto_field = "django.db.models.BigAutoField"
    api_urls = "streams.urls"  # mounted under /api/v1/ by manhattan_site.api.urls

    def ready(self) -> None:
        from . import wakeups  # noqa: F401 - connects games' hooks to the wake-up publisher

from django.apps import AppConfig


class GamesConfig(AppConfig):
    name = "games"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from . import leaving, tasks  # noqa: F401 - connect the hooks that queue bot turns and free seats

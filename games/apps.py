from django.apps import AppConfig


class GamesConfig(AppConfig):
    name = "games"
    default_auto_field = "django.db.models.BigAutoField"
    api_urls = "games.api.urls"  # mounted under /api/v1/ by manhattan_site.api.urls

    def ready(self) -> None:
        from manhattan_site.api.problems import register_translator

        from . import leaving, tasks  # noqa: F401 - connect the hooks that queue bot turns and free seats
        from .api.problems import as_problem

        register_translator(as_problem)  # the engine's refusals, and a private game's refusals as its 404

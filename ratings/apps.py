from django.apps import AppConfig


class RatingsConfig(AppConfig):
    name = "ratings"
    default_auto_field = "django.db.models.BigAutoField"
    api_urls = "ratings.api_urls"  # mounted under /api/v1/ by manhattan_site.api.urls

    def ready(self) -> None:
        from games.presentation import profile_links

        from . import receivers  # noqa: F401 - rates a game in the transaction that finishes it
        from .web import profile_link

        profile_links.register(profile_link)  # players' names on the game pages link to their profiles

from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "accounts"
    default_auto_field = "django.db.models.BigAutoField"
    api_urls = "accounts.api_urls"  # mounted under /api/v1/ by manhattan_site.api.urls

    def ready(self) -> None:
        # The OpenAPI extension, and the receiver that clears a link's mark on every sign-in.
        from . import permissions, schema  # noqa: F401

from django.apps import AppConfig


class WebhooksConfig(AppConfig):
    name = "webhooks"
    default_auto_field = "django.db.models.BigAutoField"
    api_urls = "webhooks.api.urls"  # mounted under /api/v1/ by manhattan_site.api.urls

    def ready(self) -> None:
        from games import seat_facts

        # Connects to the games' hooks: each new event may become deliveries.
        from . import receivers

        # And asks the writer's read of a table whether anyone at it has an endpoint.
        seat_facts.register(receivers.HAS_ENDPOINT)

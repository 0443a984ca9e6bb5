from django.apps import AppConfig


class TalkConfig(AppConfig):
    name = "games.talk"
    label = "talk"
    verbose_name = "Table talk"
    default_auto_field = "django.db.models.BigAutoField"

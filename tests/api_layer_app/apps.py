from django.apps import AppConfig


class TeapotConfig(AppConfig):
    name = "tests.api_layer_app"
    label = "api_layer_app"
    api_urls = "tests.api_layer_app.api_urls"

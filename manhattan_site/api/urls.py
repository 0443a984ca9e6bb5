"""The one router of the API: every app's endpoints under ``/api/v1/``, then
the layer's own (the index, the problem pages, the schema), then a problem+json
404 for anything else under ``/api/``.

An app mounts its endpoints by naming its URL module on its ``AppConfig``
(``api_urls = "games.api.urls"``); that module may list the entry points the
index shows (``index_links = {"games": "api-games"}``). Adding an endpoint
touches only its app. App routes are disjoint (no two apps share a path: a test
resolves every named route to itself), so the order of the apps does not
matter; the layer's catch-all comes last.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

from django.apps import apps
from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from .pages import LAYER_LINKS, ApiIndexView, ProblemListView, ProblemView
from .problems import api_not_found


def app_url_modules() -> list[str]:
    """The API URL modules of the installed apps, in the order of INSTALLED_APPS."""
    return [module for config in apps.get_app_configs() if (module := getattr(config, "api_urls", None))]


def v1_urlpatterns() -> list[Any]:
    """Every app's routes, then the layer's: what ``/api/v1/`` answers."""
    routes: list[Any] = []
    links: dict[str, str] = {}
    for name in app_url_modules():
        routes.append(path("", include(name)))
        links.update(getattr(import_module(name), "index_links", {}))
    return [
        *routes,
        path("", ApiIndexView.as_view(links={**links, **LAYER_LINKS}), name="api-index"),
        path("problems/", ProblemListView.as_view(), name="api-problems"),
        path("problems/<str:code>", ProblemView.as_view(), name="api-problem"),
        path("schema/", SpectacularAPIView.as_view(), name="api-schema"),
        path("docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
    ]


def api_urlpatterns() -> list[Any]:
    """What the site mounts at its root: the API, and a problem+json 404 for the rest of ``/api/``."""
    return [path("api/v1/", include(v1_urlpatterns())), re_path(r"^api/", api_not_found)]


urlpatterns = api_urlpatterns()

"""The one API layer (manhattan_site/api): an app mounts its endpoints and
declares its problem codes in its own files, and the layer serves both — the
route, the problem body with the code's status and title, the code's problem
page and the index link — with no line of manhattan_site naming the app.
And every code the product answers with is registered, with a description
translated into every language the site offers."""

from __future__ import annotations

import re
import types
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client, override_settings
from django.urls import URLPattern, get_resolver, path, resolve, reverse
from django.utils import translation
from django.utils.functional import Promise
from rest_framework.test import APIClient

from games.engine.messages import RULE_MESSAGES
from manhattan_site import urls as site_urls
from manhattan_site.api.codes import ErrorCode, all_codes, status_for
from manhattan_site.api.urls import api_urlpatterns, app_url_modules
from tests.api_layer_app.pages import teapot_page
from tests.support.api import codes_raised_in_product_code
from tests.support.translation_catalogues import LANGUAGES, po_file

ROOT = Path(__file__).resolve().parents[1]
APP = "tests.api_layer_app.apps.TeapotConfig"


@pytest.fixture
def teapot_installed() -> Iterator[None]:
    """The stand-in app installed, and the site's URLs built again as at start-up."""
    with override_settings(INSTALLED_APPS=[*settings.INSTALLED_APPS, APP]):
        urls = types.ModuleType("teapot_site_urls")
        others = [p for p in site_urls.urlpatterns if not str(p.pattern).startswith(("api/", "^api/"))]
        page = path("teapot/", teapot_page)
        urls.urlpatterns = [*api_urlpatterns(), page, *others]  # type: ignore[attr-defined]
        with override_settings(ROOT_URLCONF=urls):
            yield


def test_the_layer_names_no_app():
    layer = "\n".join(path.read_text() for path in (ROOT / "manhattan_site" / "api").rglob("*.py"))
    assert "teapot" not in layer
    for app in ("games", "accounts", "notifications", "ratings", "webhooks", "streams"):
        assert f"from {app}" not in layer, app
        assert f"import {app}" not in layer, app


@pytest.mark.django_db
def test_an_apps_endpoint_and_code_are_served_by_the_layer(teapot_installed):
    client = APIClient()
    assert client.get("/api/v1/teapot").json() == {"tea": "ready"}
    refused = client.post("/api/v1/teapot", {}, format="json")
    assert refused.status_code == 418
    assert refused["Content-Type"] == "application/problem+json"
    assert refused.json() == {
        "type": "/api/v1/problems/teapot_refused",
        "title": "Teapot refused",
        "status": 418,
        "code": "teapot_refused",
        "detail": "No coffee here.",
        "brew": "tea",
    }
    page = client.get("/api/v1/problems/teapot_refused").json()
    assert page["status"] == 418
    assert page["description"] == "This server is a teapot: it refuses to brew coffee."
    html = client.get("/api/v1/problems/teapot_refused", HTTP_ACCEPT="text/html").content.decode()
    assert "<code>teapot_refused</code>" in html
    listed = [kind["code"] for kind in client.get("/api/v1/problems/").json()["problems"]]
    assert "teapot_refused" in listed
    assert "game_not_found" in listed
    assert client.get("/api/v1/").json()["links"]["teapot"] == "http://testserver/api/v1/teapot"
    assert client.get("/api/v1/teapot/nope").json()["code"] == "not_found"


@pytest.mark.django_db
def test_an_apps_page_words_its_code_as_the_code_declares(teapot_installed):
    """What a page tells a person is declared with the code, in the app (not in
    a table of the page's); the API keeps the refusal's own message."""
    page = Client().get("/teapot/")
    assert page.status_code == 418
    assert page.content.decode() == "Only tea here, Alice."
    assert APIClient().post("/api/v1/teapot", {}, format="json").json()["detail"] == "No coffee here."


def test_no_apps_route_shadows_another():
    """The router mounts the apps in INSTALLED_APPS order; that order must not
    matter, so every named route resolves to itself."""
    samples = {"IntConverter": 7, "StringConverter": "x"}
    checked = 0
    for module in app_url_modules():
        for pattern in get_resolver(module).url_patterns:
            if not isinstance(pattern, URLPattern) or not pattern.name:
                continue
            converters = pattern.pattern.converters
            kwargs = {name: samples[type(converter).__name__] for name, converter in converters.items()}
            assert resolve(reverse(pattern.name, kwargs=kwargs)).url_name == pattern.name, (module, pattern.name)
            checked += 1
    assert checked > 30


def test_an_uninstalled_apps_code_is_not_registered():
    assert "teapot_refused" not in all_codes()
    assert status_for("teapot_refused") == 422  # what an unregistered code answers


def product_codes() -> list[str]:
    return sorted(codes_raised_in_product_code() | {code for code, _rule, _template in RULE_MESSAGES.values()})


@pytest.mark.parametrize("code", product_codes())
def test_every_code_answered_is_registered_with_a_translated_description(code):
    kind = all_codes().get(code)
    assert isinstance(kind, ErrorCode), f"{code}: declare it in its app's problem_codes.py"
    assert isinstance(kind.description, Promise), f"{code}: mark its description with gettext_lazy"
    with translation.override("en"):
        english = str(kind.description)
    for language in LANGUAGES:
        entry = po_file(language).find(english)
        assert entry is not None, f"{code}: no {language} translation of {english!r}"
        assert entry.translated(), f"{code}: no {language} translation of {english!r}"
        with translation.override(language):
            assert str(kind.description) == entry.msgstr, (code, language)


# A problem answered with its status written out at the raise site.
ANSWERED = re.compile(r'(?:problem(?:_response)?|InputRefused)\(\s*(\d+),\s*"([a-z_]+)"')


def test_a_status_written_at_a_raise_site_is_the_one_its_page_gives():
    answered = {
        (int(status), code, str(source.relative_to(ROOT)))
        for app in ("games", "accounts", "notifications", "ratings", "webhooks", "streams", "manhattan_site")
        for source in (ROOT / app).rglob("*.py")
        for status, code in ANSWERED.findall(source.read_text())
    }
    assert len(answered) > 8
    wrong = [(code, where, status, status_for(code)) for status, code, where in answered if status != status_for(code)]
    assert wrong == []


def test_the_problem_page_speaks_the_readers_language():
    client = APIClient()
    page = client.get("/api/v1/problems/game_not_found", HTTP_ACCEPT_LANGUAGE="de").json()
    assert page["description"] == po_file("de").find("There is no game with this id, or it is not a UUID.").msgstr
    assert page["status"] == 404
    html = client.get("/api/v1/problems/game_not_found", HTTP_ACCEPT="text/html", HTTP_ACCEPT_LANGUAGE="ko").content
    assert po_file("ko").find("There is no game with this id, or it is not a UUID.").msgstr in html.decode()
    assert po_file("ko").find("Every code").msgstr in html.decode()

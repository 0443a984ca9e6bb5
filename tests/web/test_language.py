"""The signed-in user's language preference chooses the site's language."""

from __future__ import annotations

import pytest
from django.test import Client

from accounts.models import User
from notifications.models import Preference

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("language", ["de", "nl", "fr", "ko", "en"])
def test_the_users_language_is_activated(alice, browser, language):
    User.objects.filter(pk=alice.pk).update(language=language)
    response = browser(alice).get("/games/", HTTP_ACCEPT_LANGUAGE="fr" if language != "fr" else "de")
    assert response.status_code == 200
    assert response["Content-Language"] == language
    activated = response.wsgi_request.LANGUAGE_CODE
    assert activated == language
    assert f'<html lang="{language}">' in response.content.decode()


def test_without_a_preference_the_browser_decides(alice, browser):
    response = browser(alice).get("/games/", HTTP_ACCEPT_LANGUAGE="de")
    assert response["Content-Language"] == "de"
    assert not Preference.objects.filter(user=alice).exists()  # reading never writes


def test_anonymous_visitors_get_the_browsers_language():
    response = Client().get("/accounts/login/", HTTP_ACCEPT_LANGUAGE="nl")
    assert response["Content-Language"] == "nl"


def test_changing_the_preference_changes_the_next_page(alice, browser):
    client = browser(alice)
    client.post("/mail/preferences/", {"frequency": "every_turn", "language": "ko", "vacation_days": ""})
    assert client.get("/games/")["Content-Language"] == "ko"


@pytest.mark.parametrize(
    ("language", "saved"), [("de", "Gespeichert."), ("ko", "저장했습니다."), ("fr", "Enregistré.")]
)
def test_preferences_confirm_in_the_language_just_chosen(alice, browser, language, saved):
    client = browser(alice, HTTP_ACCEPT_LANGUAGE="en")
    response = client.post(
        "/mail/preferences/", {"frequency": "every_turn", "language": language, "vacation_days": ""}, follow=True
    )
    html = response.content.decode()
    assert saved in html
    assert f'<html lang="{language}">' in html


def test_preferences_back_to_the_browsers_language_confirm_in_it(alice, browser):
    alice.language = "de"
    alice.save(update_fields=["language"])
    client = browser(alice, HTTP_ACCEPT_LANGUAGE="nl")
    response = client.post(
        "/mail/preferences/", {"frequency": "every_turn", "language": "", "vacation_days": ""}, follow=True
    )
    assert response["Content-Language"] == "nl"
    assert "Gespeichert." not in response.content.decode()

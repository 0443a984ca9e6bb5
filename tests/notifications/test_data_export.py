"""Download my data, end to end: asked for over HTTP (API and the preferences
page's button), built by the worker's task, linked by email; the link gives
the JSON document with the account, preferences, every game's record and the
person's own messages, and stops working when it expires or is swept."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any
from urllib.parse import urlparse

import pytest
import time_machine
from celery import current_app
from django.core import mail
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import User
from games.models import Game
from notifications import exports, outbox, tasks
from notifications.models import DataExport
from tests.factories import play_until, two_player_game
from tests.support.api import signed_in

pytestmark = pytest.mark.django_db


@pytest.fixture
def queued(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, list[Any]]]:
    """The tasks sent to the broker (none runs by itself)."""
    sent: list[tuple[str, list[Any]]] = []
    monkeypatch.setattr(current_app, "send_task", lambda name, args, **kw: sent.append((name, list(args))))
    return sent


def finished_game(alice: User, bob: User) -> Game:
    return two_player_game(alice, bob)


def run_worker(queued: list[tuple[str, list[Any]]]) -> None:
    """What the worker would do with the queued tasks: build exports, send emails."""
    for name, args in list(queued):
        if name == exports.BUILD_TASK:
            tasks.build_data_export(*args)
    outbox.sweep_outbox(now=timezone.now() + timedelta(minutes=1))


def link_in(message: Any) -> str:
    match = re.search(r"https?://\S+/mail/export/\S+/", message.body)
    assert match, message.body
    return urlparse(match.group(0)).path


@pytest.mark.slow  # a whole game, then the export built
def test_asked_for_built_by_the_worker_and_downloaded_by_the_emailed_link(
    alice: User, bob: User, queued: list[tuple[str, list[Any]]], django_capture_on_commit_callbacks: Any
) -> None:
    game = finished_game(alice, bob)
    alice_api, bob_api = signed_in(alice), signed_in(bob)
    url = f"/api/v1/games/{game.public_id}/messages"
    assert alice_api.post(url, {"text": "good luck, bob"}, format="json").status_code == 201
    assert bob_api.post(url, {"text": "bob's own words"}, format="json").status_code == 201
    play_until(game, lambda g: g.status == Game.Status.FINISHED, limit=1000)

    with django_capture_on_commit_callbacks(execute=True):
        first = alice_api.get("/api/v1/me/export")
        again = alice_api.get("/api/v1/me/export")
    assert first.status_code == 202, first.content
    assert first.json()["status"] == "building"
    assert again.json()["id"] == first.json()["id"], "one export at a time"
    assert [name for name, _ in queued].count(exports.BUILD_TASK) == 1

    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        run_worker(queued)
    (message,) = [m for m in mail.outbox if alice.email in m.to and "/mail/export/" in m.body]
    path = link_in(message)
    response = Client().get(path)
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/json")
    assert "attachment" in response["Content-Disposition"]
    document = response.json()
    assert document["account"]["email"] == alice.email
    assert document["preferences"] is not None
    (entry,) = document["games"]
    assert entry["id"] == str(game.public_id)
    assert entry["my_seat"] == 0
    assert entry["record"] == alice_api.get(f"/api/v1/games/{game.public_id}/record").json()
    assert [m["text"] for m in document["messages"]] == ["good luck, bob"]
    assert "bob's own words" not in response.content.decode()

    # The link expires; a tampered one never worked; the sweep deletes the copy.
    with time_machine.travel(timezone.now() + timedelta(days=exports.EXPORT_DAYS, hours=1)):
        assert Client().get(path).status_code == 404
    assert Client().get(path[:-3] + "xx/").status_code == 404
    assert exports.sweep(now=timezone.now() + timedelta(days=exports.EXPORT_DAYS, hours=1)) == 1
    assert not DataExport.objects.exists()


def test_the_preferences_page_has_the_button(
    alice: User, queued: list[tuple[str, list[Any]]], django_capture_on_commit_callbacks: Any
) -> None:
    browser = Client()
    browser.force_login(alice)
    page = browser.get("/mail/preferences/")
    assert b'data-testid="download-my-data"' in page.content
    with django_capture_on_commit_callbacks(execute=True):
        response = browser.post("/mail/export/")
    assert response.status_code == 302
    export = DataExport.objects.get(user=alice)
    assert (exports.BUILD_TASK, [export.pk]) in queued
    assert browser.get("/mail/export/").status_code == 405


def test_a_closed_accounts_export_is_gone(
    alice: User, queued: list[tuple[str, list[Any]]], django_capture_on_commit_callbacks: Any
) -> None:
    browser = signed_in(alice)
    with django_capture_on_commit_callbacks(execute=True):
        assert browser.get("/api/v1/me/export").status_code == 202
    export = DataExport.objects.get(user=alice)
    exports.build(export.pk)
    export.refresh_from_db()
    path = urlparse(exports.download_url(export)).path
    assert Client().get(path).status_code == 200
    assert browser.delete("/api/v1/me").status_code == 204
    assert Client().get(path).status_code == 404
    assert not DataExport.objects.filter(user=alice).exists()


def test_anonymous_cannot_ask(client: Client) -> None:
    assert APIClient().get("/api/v1/me/export").status_code == 401

"""The game-over email of a reviewed game says the review is ready and links to it.

It waits for the review (written with the last move, held), goes as soon as the review is
stored, with the link; at once without it if the review fails; and without it when the
wait runs out (the outbox's sweep). Read as the recipient's mail program would: the real
MIME message the worker handed to the mail backend."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.core import mail
from django.test import Client
from django.utils import timezone

from accounts.models import User
from games.services.review import run_review
from manhattan_site import heartbeats
from notifications import outbox
from notifications.models import Kind, Notification
from notifications.tasks import deliver_notifications
from tests.factories import resigned_game
from tests.support.mail import bodies, game_over_email

pytestmark = pytest.mark.django_db

READY = "The bot's review of the game is ready"


@pytest.fixture(autouse=True)
def _reviewed(settings: Any) -> None:
    settings.GAME_REVIEW = "all"
    settings.GAME_REVIEW_ITERATIONS = 2
    settings.GAME_REVIEW_EMAIL_WAIT_SECONDS = 600
    # A worker to make the review, alive for the whole test however busy the machine.
    settings.HEARTBEAT_STALE_SECONDS = 3600
    heartbeats.beat("bots@test-host [bots]", "worker", queues=["bots"])


def test_the_game_over_email_waits_for_the_review_then_links_to_it(
    settings: Any, alice: User, bob: User, broker: Any, django_capture_on_commit_callbacks: Any
) -> None:
    game = resigned_game(alice, bob, django_capture_on_commit_callbacks)
    held = list(Notification.objects.filter(kind=Kind.GAME_OVER))
    assert len(held) == 2
    assert not any(n.pk in batch for n in held for batch in broker.published), "held for the review"
    outbox.sweep_outbox()  # the game's other emails; not these before the wait runs out
    assert {n.status for n in Notification.objects.filter(kind=Kind.GAME_OVER)} == {Notification.Status.PENDING}

    with django_capture_on_commit_callbacks(execute=True):
        run_review(str(game.public_id))
    released = [pk for batch in broker.published for pk in batch]
    assert sorted(released) == sorted(n.pk for n in held)
    assert deliver_notifications(released) == 2  # the task's body, as a worker runs it

    text, markup = bodies(game_over_email(alice))
    assert READY in text
    [link] = [line for line in text.splitlines() if line.endswith("?show=review")]
    assert link in markup
    assert "Read the review" in markup
    # The link's button signs her in and lands on the game's page, at the review.
    browser = Client()
    path = link.removeprefix(settings.SITE_URL)
    assert browser.get(path).status_code == 200  # the button (a mail scanner signs no one in)
    landing = browser.post(path)
    assert landing.status_code == 302
    assert landing["Location"] == f"/games/{game.public_id}/#review"
    page = browser.get(landing["Location"].removesuffix("#review"))
    assert page.status_code == 200
    assert 'id="review"' in page.content.decode()
    assert outbox.sweep_outbox(now=timezone.now() + timedelta(hours=1)) == 0, "sent once"


@pytest.mark.parametrize(
    ("language", "words"),
    [
        ("de", "Die Analyse des Bots"),
        ("nl", "De analyse van de bot"),
        ("fr", "L’analyse du bot"),
        ("ko", "봇의 복기"),
    ],
)
def test_the_review_line_is_in_the_players_language(
    alice: User, bob: User, broker: Any, django_capture_on_commit_callbacks: Any, language: str, words: str
) -> None:
    alice.language = language
    alice.save(update_fields=["language"])
    game = resigned_game(alice, bob, django_capture_on_commit_callbacks)
    with django_capture_on_commit_callbacks(execute=True):
        run_review(str(game.public_id))
    deliver_notifications([pk for batch in broker.published for pk in batch])
    text, markup = bodies(game_over_email(alice))
    assert words in text
    assert READY not in text
    assert "?show=review" in text
    assert "?show=review" in markup


def test_a_failed_review_sends_the_email_at_once_without_the_link(
    alice: User, bob: User, broker: Any, django_capture_on_commit_callbacks: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = resigned_game(alice, bob, django_capture_on_commit_callbacks)

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("the search broke")

    monkeypatch.setattr("games.services.review.review_game", broken)
    monkeypatch.setattr("games.services.review.reviewable_moves", lambda events: [(0, None)])
    with django_capture_on_commit_callbacks(execute=True), pytest.raises(RuntimeError):
        run_review(str(game.public_id))
    deliver_notifications([pk for batch in broker.published for pk in batch])
    text, markup = bodies(game_over_email(alice))
    assert "Your game of Manhattan is over." in text
    assert "show=review" not in text
    assert "show=review" not in markup


def test_without_the_review_in_time_the_sweep_sends_the_email_without_the_link(
    alice: User, bob: User, broker: Any, django_capture_on_commit_callbacks: Any
) -> None:
    game = resigned_game(alice, bob, django_capture_on_commit_callbacks)  # no worker takes the review
    outbox.sweep_outbox()  # the game's other emails
    before = len(mail.outbox)
    assert outbox.sweep_outbox(now=timezone.now() + timedelta(seconds=590)) == 0
    assert outbox.sweep_outbox(now=timezone.now() + timedelta(seconds=601)) == 2
    text, _ = bodies(game_over_email(alice))
    assert "show=review" not in text
    with django_capture_on_commit_callbacks(execute=True):
        run_review(str(game.public_id))  # late: the email went; nothing more is sent
    assert outbox.sweep_outbox(now=timezone.now() + timedelta(hours=1)) == 0
    assert len(mail.outbox) == before + 2


def test_without_reviews_the_game_over_email_goes_at_once(
    settings: Any, alice: User, bob: User, broker: Any, django_capture_on_commit_callbacks: Any
) -> None:
    settings.GAME_REVIEW = "off"
    resigned_game(alice, bob, django_capture_on_commit_callbacks)
    over = Notification.objects.filter(kind=Kind.GAME_OVER)
    assert {n.pk for n in over} <= {pk for batch in broker.published for pk in batch}

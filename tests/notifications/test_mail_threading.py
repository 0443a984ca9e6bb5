"""Every game is one conversation in the player's mail client: each of its
emails refers to the game's root Message-ID (In-Reply-To, References).
Message-IDs are on the site's domain, the same on a retry, and different for
a second installation or a restored database's new email."""

from __future__ import annotations

from datetime import timedelta

import pytest

from games import services
from notifications import emails
from notifications.models import Kind, Notification
from tests.factories import open_game, play_until

pytestmark = [pytest.mark.django_db]


def headers(notification: Notification):
    return emails.build_message(notification).message()


def test_all_the_emails_of_a_game_are_one_conversation_and_another_game_is_another(started_game, alice, bob):
    play_until(started_game, lambda g: Notification.objects.filter(kind=Kind.ROUND_SCORED).exists())
    mine = list(Notification.objects.filter(game=started_game).exclude(kind=Kind.INVITATION))
    assert {n.kind for n in mine} >= {Kind.GAME_STARTED, Kind.YOUR_TURN, Kind.ROUND_SCORED}
    roots = {headers(n)["In-Reply-To"] for n in mine}
    assert len(roots) == 1
    root = roots.pop()
    assert all(headers(n)["References"] == root for n in mine)
    assert root not in {n.message_id for n in Notification.objects.all()}, "the root is no email's own id"

    other = open_game(alice)
    services.join_game(game=other, user=bob)
    started = Notification.objects.filter(game=other, kind=Kind.GAME_STARTED).first()
    assert started is not None
    assert headers(started)["In-Reply-To"] != root


def test_mail_without_a_game_starts_no_conversation(alice):
    from accounts.signals import sign_in_link_requested

    sign_in_link_requested.send(sender=None, user=alice, next_path="")
    login = Notification.objects.get(kind=Kind.LOGIN)
    assert headers(login)["In-Reply-To"] is None


def test_message_ids_are_on_the_sites_domain_and_the_same_on_a_retry(started_game, settings):
    settings.SITE_URL = "https://manhattan.example.org"
    notification = Notification.objects.filter(game=started_game).first()
    assert notification is not None
    first = headers(notification)["Message-ID"]
    assert first.endswith("@manhattan.example.org>")
    assert headers(Notification.objects.get(pk=notification.pk))["Message-ID"] == first
    settings.MAIL_DOMAIN = "mail.example.org"
    assert headers(notification)["Message-ID"].endswith("@mail.example.org>")


def test_a_second_installation_and_a_restored_database_make_other_ids(started_game, settings):
    notification = Notification.objects.filter(game=started_game).first()
    assert notification is not None
    production = notification.message_id

    settings.MAIL_INSTALLATION_ID = "staging"
    assert notification.message_id != production
    settings.MAIL_INSTALLATION_ID = ""
    secret = settings.SECRET_KEY
    settings.SECRET_KEY = "another installation's secret, long enough to be a real one"
    assert notification.message_id != production
    settings.SECRET_KEY = secret
    assert notification.message_id == production

    # A restored database writes a new email under the same key later: another id.
    notification.created += timedelta(minutes=5)
    assert notification.message_id != production

"""Invitations: to real mail domains only, and a working one-click "do not
invite me again" for people without an account."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import pytest
from django.test import Client

from accounts.addresses import has_mail_domain
from games import services
from games.errors import GameError
from notifications import emails, outbox
from notifications.models import Kind, Notification, Suppression

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("email", "ok"),
    [
        ("carol@example.com", True),
        ("carol@mail.example.co.uk", True),
        ("carol@[127.0.0.1]", False),
        ("carol@[IPv6:::1]", False),
        ("carol@127.0.0.1", False),
        ("carol@localhost", False),
        ("carol@-bad.example", False),
    ],
)
def test_invitation_addresses_need_a_mail_domain(email, ok):
    assert has_mail_domain(email) is ok


def invite(alice, email):
    return services.create_game(
        creator=alice,
        options={"players": 2},
        seats=[services.SeatSpec("me"), services.SeatSpec("invite", email=email)],
    )


def test_an_ip_literal_is_refused_at_game_creation(alice):
    with pytest.raises(GameError) as refused:
        invite(alice, "carol@[127.0.0.1]")
    assert refused.value.code == "no_mail_domain"
    assert "mail domain" in refused.value.message
    assert not Notification.objects.exists()


def test_the_api_refuses_it_with_a_problem(alice, client_for):
    response = client_for(alice).post(
        "/api/v1/games",
        {"options": {"players": 2}, "seats": [{"kind": "me"}, {"kind": "invite", "email": "carol@[10.0.0.1]"}]},
        format="json",
    )
    assert 400 <= response.status_code < 500
    assert response["Content-Type"].startswith("application/problem+json")


def test_the_new_game_form_shows_a_field_error(alice):
    client = Client()
    client.force_login(alice)
    response = client.post("/games/new/", {"players": "2", "seat_2": "invite", "email_2": "carol@[127.0.0.1]"})
    assert response.status_code == 400
    assert "not an IP address" in response.content.decode()


def test_an_invitee_without_an_account_can_stop_invitations_in_one_click(alice, mailoutbox):
    game = invite(alice, "carol@example.com")
    invitation = Notification.objects.get(kind=Kind.INVITATION)
    message = emails.build_message(invitation)
    link = re.search(r"<(http[^>]+)>", message.extra_headers["List-Unsubscribe"]).group(1)
    assert "/mail/no-invitations/" in link
    assert link in str(message.body)
    assert message.extra_headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    path = urlsplit(link).path
    assert Client().get(path).status_code == 200  # a scanner's GET changes nothing
    assert not Suppression.objects.exists()
    response = Client(enforce_csrf_checks=True).post(path, {"List-Unsubscribe": "One-Click"})
    assert response.status_code == 200
    assert Suppression.objects.get().reason == Suppression.Reason.NO_INVITATIONS
    # The next invitation to the address is not sent.
    game.delete()
    invite(alice, "carol@example.com")
    later = Notification.objects.filter(kind=Kind.INVITATION).order_by("-pk").first()
    assert outbox.deliver(later.pk) is False
    assert Notification.objects.get(pk=later.pk).status == Notification.Status.SKIPPED

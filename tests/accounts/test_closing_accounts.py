"""Closing an account, end to end through HTTP and the page: every way in
ends at once, no email goes to the address again, the person becomes
"former player N" everywhere, games stay whole, others' ratings stay, the bot
takes their seat in a game being played, and the address can sign up again as
a new person with nothing of the old one."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.core import mail
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import ApiToken, User
from accounts.permissions import SESSION_KEY
from accounts.services import create_api_token
from games import services, store
from games.models import Game, Presence, Seat
from notifications import outbox
from notifications.models import Kind, Notification, Preference, TurnClock
from ratings.models import Rating
from tests.factories import play_until, two_player_game
from tests.support.api import signed_in

pytestmark = pytest.mark.django_db


@pytest.fixture
def history(alice: User, bob: User) -> dict[str, Any]:
    """A finished game of alice against bob, one being played (alice to move), her token, her preferences."""
    finished = two_player_game(alice, bob)
    play_until(finished, lambda g: g.status == Game.Status.FINISHED, limit=1000)
    playing = two_player_game(alice, bob)
    alice.display_name = "Alice Liddell"
    alice.save(update_fields=["display_name"])
    outbox.preference_for(alice)
    talk = signed_in(alice).post(f"/api/v1/games/{playing.public_id}/messages", {"text": "hi bob"}, format="json")
    assert talk.status_code == 201
    Presence.objects.create(game=playing, user=alice, seen=playing.created)
    return {"finished": finished, "playing": playing, "token": create_api_token(user=alice, name="script").raw}


def record_of(game: Game, reader: User) -> Any:
    response = signed_in(reader).get(f"/api/v1/games/{game.public_id}/record")
    assert response.status_code == 200, response.content
    return response.json()


def test_closing_ends_everything_and_leaves_former_player_n(alice: User, bob: User, history: dict[str, Any]) -> None:
    finished, playing = history["finished"], history["playing"]
    record_before = record_of(finished, bob)
    bob_rating = Rating.objects.get(user=bob, players=2)
    address = alice.email
    by_token = APIClient()
    by_token.credentials(HTTP_AUTHORIZATION=f"Bearer {history['token']}")
    assert by_token.get("/api/v1/me").status_code == 200
    browser = signed_in(alice)
    other_browser = signed_in(alice)

    response = browser.delete("/api/v1/me")
    assert response.status_code == 204, response.content

    # Every way in ends at once: this session, another one, the token.
    assert browser.get("/api/v1/me").status_code in (401, 403)
    assert other_browser.get("/api/v1/me").status_code in (401, 403)
    assert by_token.get("/api/v1/me").status_code == 401
    assert not ApiToken.objects.filter(user=alice).exists()
    alice.refresh_from_db()
    assert alice.closed is not None
    assert alice.email != address
    assert alice.public_name == f"former player {alice.pk}"
    # Address, preferences and presence are erased.
    assert not Preference.objects.filter(user=alice).exists()
    assert not Presence.objects.filter(user=alice).exists()
    assert not Notification.objects.filter(email__iexact=address).exists()
    assert not TurnClock.objects.filter(user=alice).exists()

    # The log folds to the same record; the game names her "former player N".
    assert record_of(finished, bob) == record_before
    seats = signed_in(bob).get(f"/api/v1/games/{finished.public_id}").json()["seats"]
    assert seats[0]["player"] == f"former player {alice.pk}"
    assert address not in str(seats)
    assert "Alice Liddell" not in str(seats)
    assert store.state_of(finished) is not None
    bob_after = Rating.objects.get(user=bob, players=2)
    assert (bob_after.mu, bob_after.sigma, bob_after.games) == (bob_rating.mu, bob_rating.sigma, bob_rating.games)
    # The profile and the leaderboard say "former player N" too.
    reader = signed_in(bob)
    profile = reader.get(f"/api/v1/players/{alice.pk}")
    assert profile.status_code == 200
    assert profile.json()["name"] == f"former player {alice.pk}"
    assert address not in profile.content.decode()
    board = reader.get("/api/v1/leaderboard?players=2")
    assert board.status_code == 200
    assert "Alice Liddell" not in board.content.decode()

    # Her message stays, under the new name.
    (said,) = reader.get(f"/api/v1/games/{playing.public_id}/messages").json()["messages"]
    assert (said["text"], said["player"]) == ("hi bob", f"former player {alice.pk}")

    # The bot took her seat in the game being played and moves for her.
    seat = Seat.objects.get(game=playing, index=0)
    assert seat.absent_since is not None
    before = playing.version
    services.play_bot_turns(game_id=playing.public_id)
    playing.refresh_from_db()
    assert playing.version > before


def test_no_email_goes_to_a_closed_address(alice: User, bob: User, started_game: Game) -> None:
    address = alice.email
    assert Notification.objects.filter(user=alice, status=Notification.Status.PENDING).exists()
    assert signed_in(alice).delete("/api/v1/me").status_code == 204
    alice.refresh_from_db()
    assert not Notification.objects.filter(user=alice, status=Notification.Status.PENDING).exists()
    # The game goes on (the bot for her, bob himself) and emails are written for the table...
    play_until(started_game, lambda g: g.version >= 8)
    # ...and one addressed to her account by any path is skipped at delivery, too.
    late = outbox.enqueue(kind=Kind.LOGIN, key="late-login", email=alice.email, user=alice, context={})
    mail.outbox.clear()
    outbox.sweep_outbox(now=timezone.now() + timedelta(days=1))
    assert not [m for m in mail.outbox if address in m.to or alice.email in m.to]
    assert late is not None
    late.refresh_from_db()
    assert late.status == Notification.Status.SKIPPED


def test_a_closed_address_signs_up_again_as_a_new_person(alice: User, bob: User, history: dict[str, Any]) -> None:
    address, old_pk = alice.email, alice.pk
    invitation = services.create_game(
        creator=bob,
        options={"players": 2},
        seats=[services.SeatSpec("me"), services.SeatSpec("invite", email=address)],
    )
    assert signed_in(alice).delete("/api/v1/me").status_code == 204
    assert not invitation.seats.filter(invited_email__iexact=address).exists(), "the invitation was declined"
    page = Client().post("/accounts/login/", {"email": address})
    assert page.status_code == 200
    again = User.objects.get(email=address)
    assert again.pk != old_pk
    assert again.closed is None
    assert again.display_name == ""
    assert not store.games_of(again).exists()
    assert not Rating.objects.filter(user=again).exists()
    response = signed_in(again).get("/api/v1/me")
    assert response.status_code == 200
    assert "Alice Liddell" not in response.content.decode()


def test_closing_takes_no_body_and_no_token_and_no_weak_session(alice: User) -> None:
    browser = signed_in(alice)
    response = browser.delete("/api/v1/me", {"really": True}, format="json")
    assert response.status_code == 400
    assert response.json()["code"] == "body_not_allowed"
    by_token = APIClient()
    # A token cannot close an account, whatever its scopes: so neither can the
    # schema fuzzer (it calls every operation with tokens) nor a leaked token.
    by_token.credentials(HTTP_AUTHORIZATION=f"Bearer {create_api_token(user=alice, name='x').raw}")
    response = by_token.delete("/api/v1/me")
    assert response.status_code == 403
    assert response.json()["code"] == "fresh_sign_in_required"
    weak = signed_in(alice)
    session = weak.session
    session[SESSION_KEY] = "game"
    session.save()
    response = weak.delete("/api/v1/me")
    assert response.status_code == 403
    alice.refresh_from_db()
    assert alice.closed is None


def test_the_page_closes_the_account_after_a_confirmation(alice: User) -> None:
    browser = Client()
    browser.force_login(alice)
    preferences = browser.get("/mail/preferences/").content.decode()
    assert "/accounts/close/" in preferences
    page = browser.get("/accounts/close/")
    assert page.status_code == 200
    assert b'data-testid="close-account-button"' in page.content
    assert browser.post("/accounts/close/", {}).status_code == 400
    alice.refresh_from_db()
    assert alice.closed is None
    done = browser.post("/accounts/close/", {"confirm": "yes"})
    assert done.status_code == 200
    assert b'data-testid="account-closed"' in done.content
    alice.refresh_from_db()
    assert alice.closed is not None
    assert browser.get("/mail/preferences/").status_code == 302  # signed out

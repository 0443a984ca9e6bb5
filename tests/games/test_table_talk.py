"""Table talk through the API, the game page and the admin: who may read and
write, the limits, muting, and an operator hiding a message."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client, override_settings
from rest_framework.test import APIClient

from accounts.models import User
from accounts.scopes import GAMES_READ
from accounts.services import create_api_token
from games.models import Game
from games.talk.models import MAX_LENGTH, TableMessage

pytestmark = pytest.mark.django_db
API = "/api/v1"


def messages_url(game: Game) -> str:
    return f"{API}/games/{game.public_id}/messages"


def post(api: Callable[[User | None], Any], user: User, game: Game, text: Any) -> Any:
    return api(user).post(messages_url(game), {"text": text}, format="json")


def test_a_player_writes_and_the_other_reads_it_in_messages_and_in_events(api, alice, bob, started_game):
    response = post(api, alice, started_game, "  Good luck, Bob!\n\n\n\nHave fun  ")

    assert response.status_code == 201, response.content
    body = response.json()
    assert body["text"] == "Good luck, Bob!\n\nHave fun"
    assert body["seat"] == 0
    assert body["via"] == "api"
    assert body["player"]
    read = api(bob).get(messages_url(started_game)).json()["messages"]
    assert [m["text"] for m in read] == ["Good luck, Bob!\n\nHave fun"]
    events = api(bob).get(f"{API}/games/{started_game.public_id}/events").json()
    assert [m["id"] for m in events["messages"]] == [body["id"]]
    after = api(bob).get(messages_url(started_game), {"after": body["id"]}).json()["messages"]
    assert after == []


def test_strangers_neither_read_nor_write_nor_see_messages_in_events(api, alice, stranger, started_game):
    post(api, alice, started_game, "for the players only")
    Game.objects.filter(pk=started_game.pk).update(public=True)  # a stranger may watch it, not hear it

    assert api(stranger).get(messages_url(started_game)).json()["code"] == "not_a_player"
    refused = post(api, stranger, started_game, "hi")
    assert refused.status_code == 403
    assert refused.json()["code"] == "not_a_player"
    events = api(stranger).get(f"{API}/games/{started_game.public_id}/events")
    assert events.status_code == 200
    assert "messages" not in events.json()
    assert "for the players only" not in events.content.decode()


@pytest.mark.parametrize(
    ("text", "status", "code"),
    [
        ("", 422, "message_empty"),
        ("\x00", 400, "malformed_request"),  # NUL no text field holds: refused by the JSON parser
        ("\x01\x02 \n ", 422, "message_empty"),  # other control characters are dropped
        ("x" * (MAX_LENGTH + 1), 400, "invalid"),
        (12, 400, "invalid"),  # a number is not text (StrictCharField), never stored as "12"
    ],
)
def test_bad_messages_are_refused_with_a_problem(api, alice, started_game, text, status, code):
    response = post(api, alice, started_game, text)
    assert response.status_code == status, response.content
    if code:
        assert response["Content-Type"] == "application/problem+json"
        assert response.json()["code"] == code


def test_unknown_fields_are_refused(api, alice, started_game):
    response = api(alice).post(messages_url(started_game), {"text": "hi", "html": "<b>hi</b>"}, format="json")
    assert response.status_code == 422
    assert response.json()["code"] == "unknown_field"
    assert response.json()["field"] == "html"


def test_control_characters_are_dropped_and_markup_stays_text_on_the_page(api, browser, alice, bob, started_game):
    post(api, alice, started_game, "look \x07<script>alert(1)</script> https://example.com")

    stored = TableMessage.objects.get()
    assert stored.text == "look <script>alert(1)</script> https://example.com"
    page = browser(bob).get(f"/games/{started_game.public_id}/").content.decode()
    assert "look &lt;script&gt;alert(1)&lt;/script&gt; https://example.com" in page
    assert 'href="https://example.com"' not in page


@override_settings(TALK_MESSAGES_PER_MINUTE=3)
def test_a_player_who_writes_too_fast_waits(api, alice, bob, started_game):
    for n in range(3):
        assert post(api, alice, started_game, f"message {n}").status_code == 201
    refused = post(api, alice, started_game, "one more")
    assert refused.status_code == 429
    assert refused.json()["code"] == "too_many_messages"
    assert refused["Retry-After"] == "60"
    assert post(api, bob, started_game, "my turn to talk").status_code == 201  # counted per player


def test_muting_hides_a_players_messages_everywhere_until_unmuted(api, browser, alice, bob, started_game):
    post(api, bob, started_game, "spam spam spam")
    mute = f"{API}/games/{started_game.public_id}/seats/1/mute"

    assert api(alice).put(mute).status_code == 204
    assert api(alice).get(messages_url(started_game)).json()["messages"] == []
    assert "spam spam spam" not in browser(alice).get(f"/games/{started_game.public_id}/").content.decode()
    assert len(api(bob).get(messages_url(started_game)).json()["messages"]) == 1  # only for alice
    assert api(alice).delete(mute).status_code == 204
    assert len(api(alice).get(messages_url(started_game)).json()["messages"]) == 1
    assert api(alice).put(f"{API}/games/{started_game.public_id}/seats/0/mute").json()["code"] == "mute_self"


def test_the_page_posts_a_message_and_mutes_without_javascript(browser, alice, bob, started_game):
    page = f"/games/{started_game.public_id}/"
    alices = browser(alice)

    response = alices.post(f"{page}messages/", {"text": "Hello from the page"})
    assert response.status_code == 302
    assert response["Location"].endswith("#talk")
    shown = browser(bob).get(page).content.decode()
    assert 'data-testid="talk-message"' in shown
    assert "Hello from the page" in shown
    assert TableMessage.objects.get().via == "web"

    bobs = browser(bob)
    bobs.post(f"{page}seats/0/mute/")
    assert "Hello from the page" not in bobs.get(page).content.decode()
    bobs.post(f"{page}seats/0/mute/", {"undo": "1"})
    assert "Hello from the page" in bobs.get(page).content.decode()


def test_the_page_says_why_a_message_was_refused_in_the_players_language(browser, alice, started_game):
    alice.language = "de"
    alice.save()
    response = browser(alice).post(f"/games/{started_game.public_id}/messages/", {"text": "  "}, follow=True)
    assert "Eine Nachricht braucht etwas Text." in response.content.decode()


def test_a_stranger_has_no_table_on_the_page(browser, stranger, started_game):
    response = browser(stranger).post(f"/games/{started_game.public_id}/messages/", {"text": "hi"}, follow=True)
    assert not TableMessage.objects.exists()
    assert 'data-testid="talk-form"' not in response.content.decode()


@pytest.fixture
def browser() -> Callable[[User], Client]:
    def signed_in(user: User) -> Client:
        client = Client()
        client.force_login(user)
        return client

    return signed_in


@pytest.fixture
def admin_client(make_user: Callable[..., User]) -> tuple[Client, User]:
    operator = make_user("operator@example.com", is_staff=True, is_superuser=True)
    client = Client()
    client.force_login(operator)
    return client, operator


def test_an_operator_hides_a_message_and_the_record_keeps_it(api, alice, bob, started_game, admin_client):
    client, operator = admin_client
    message_id = post(api, alice, started_game, "something rude").json()["id"]

    response = client.post(
        "/admin/talk/tablemessage/", {"action": "hide_messages", "_selected_action": [message_id]}, follow=True
    )

    assert response.status_code == 200
    hidden = TableMessage.objects.get(pk=message_id)
    assert hidden.hidden_by == operator
    assert hidden.hidden_at is not None
    assert api(bob).get(messages_url(started_game)).json()["messages"] == []
    assert client.get(f"/admin/talk/tablemessage/{message_id}/change/").status_code == 200
    assert client.post(f"/admin/talk/tablemessage/{message_id}/delete/").status_code == 403


def test_a_read_only_token_reads_the_table_but_does_not_write_or_mute(alice, bob, started_game):
    reader = APIClient()
    reader.credentials(HTTP_AUTHORIZATION=f"Bearer {create_api_token(user=alice, name='r', scope=GAMES_READ).raw}")
    assert reader.get(messages_url(started_game)).status_code == 200
    refused = reader.post(messages_url(started_game), {"text": "hi"}, format="json")
    assert refused.status_code == 403
    assert refused.json()["code"] == "insufficient_scope"
    assert reader.put(f"{API}/games/{started_game.public_id}/seats/1/mute").json()["code"] == "insufficient_scope"
    assert not TableMessage.objects.exists()

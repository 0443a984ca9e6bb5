"""The bad input catalogue: one test per kind of bad input, through each way
input comes in (the API, sign-in and unsubscribe links, reply mail and the
inbound webhook, the play page's form).

Every test shows two things: the refusal is clear (a 4xx problem+json for the
API; a page that says what is wrong; for mail, a reply or, for forgeries,
silence), and no game changed: its events, version, status and seats are as
they were (``unchanged``). Where a refusal could hide a harness that never
reaches the game, the test then sends the same input made good and sees it
played.

API requests go through a client that enforces CSRF as a real server does
(Django's test client skips the check by default; see
``test_an_unsafe_method_on_an_unknown_api_url``). The tests/games/test_api_*.py
error tests have the finer variants of the API entries (every problem code, nesting, digits
beyond int's limit); this catalogue is the one place that lists each kind of
bad input once, with its effect on a game.
"""

from __future__ import annotations

import base64
import json
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from email.message import EmailMessage
from typing import Any

import pytest
from anymail.inbound import AnymailInboundMessage
from django.conf import settings
from django.core import signing
from django.core.cache import cache
from django.test import Client
from rest_framework.test import APIClient

from accounts import links
from accounts.models import User
from accounts.services import create_api_token
from games import engine, services, store
from games.models import Game, GameEvent
from notifications import outbox, replies
from notifications.models import Kind, Notification
from notifications.reply_address import reply_address

pytestmark = [
    pytest.mark.django_db,
    # Anymail warns that it no longer supports SendGrid officially; its inbound parsing is what we use.
]

API = "/api/v1"
PROBLEM = "application/problem+json"
WEBHOOK = "/inbound/sendgrid/inbound/"


@pytest.fixture(autouse=True)
def _fresh_cache() -> Iterator[None]:
    """Throttle counters live in the cache, which outlives each test's database."""
    cache.clear()
    yield
    cache.clear()


# --- helpers ------------------------------------------------------------------------------------


def snapshot(game: Game) -> tuple[Any, ...]:
    fresh = Game.objects.get(pk=game.pk)
    seats = tuple(fresh.seats.order_by("index").values_list("user_id", "invited_email", "bot"))
    return GameEvent.objects.filter(game=game).count(), fresh.version, fresh.status, fresh.to_act_seat, seats


@contextmanager
def unchanged(game: Game) -> Iterator[None]:
    """The block leaves ``game`` as it was: events, version, status, turn, seats."""
    before = snapshot(game)
    assert before[0] == before[1], "a game's version is its number of events"
    yield
    assert snapshot(game) == before


@pytest.fixture
def api() -> Callable[[User], APIClient]:
    """API clients with a real token, that check CSRF as a server does and
    report a server error as a 500 response instead of raising it."""

    def make(user: User) -> APIClient:
        client = APIClient(enforce_csrf_checks=True)
        client.raise_request_exception = False
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {create_api_token(user=user, name='catalogue').raw}")
        return client

    return make


def assert_problem(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, (response.status_code, response.content[:300])
    assert response["Content-Type"] == PROBLEM, response["Content-Type"]
    body = json.loads(response.content)
    assert body["status"] == status
    assert body["code"] == code
    assert body["type"] == f"/api/v1/problems/{code}"
    assert body["title"]
    assert body["detail"]
    return dict(body)


def actions_url(game: Game) -> str:
    return f"{API}/games/{game.public_id}/actions"


def legal_moves(game: Game, seat: int) -> list[engine.Action]:
    """The seat's legal actions, resigning aside."""
    game.refresh_from_db()
    state = store.state_of(game)
    assert state is not None
    return [a for a in engine.enumerate_actions(engine.player_view(state, seat)) if not isinstance(a, engine.Resign)]


def a_legal_move(game: Game, seat: int = 0) -> dict[str, Any]:
    moves = legal_moves(game, seat)
    assert moves, f"seat {seat} has nothing to do"
    return engine.action_to_json(moves[0])


def signed_in_as(client: Client) -> str | None:
    return client.session.get("_auth_user_id")


# --- the API ------------------------------------------------------------------------------------


def test_malformed_json(api, alice, started_game):
    with unchanged(started_game):
        body = '{"action": "resign", "expected_version": ' + str(started_game.version)  # no closing brace
        response = api(alice).post(actions_url(started_game), body, content_type="application/json")
        assert_problem(response, 400, "malformed_request")


def test_wrong_types(api, alice, started_game):
    """A version that is not a number, with an action that would end the game."""
    with unchanged(started_game):
        response = api(alice).post(
            actions_url(started_game), {"action": "resign", "expected_version": "latest"}, format="json"
        )
        problem = assert_problem(response, 400, "invalid")
        assert "expected_version" in problem["errors"]


def test_oversized_body(api, alice, started_game):
    padding = " " * settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    body = f'{{"action": "resign{padding}", "expected_version": {started_game.version}}}'
    with unchanged(started_game):
        response = api(alice).post(actions_url(started_game), body, content_type="application/json")
        assert_problem(response, 413, "body_too_large")


def test_unknown_action_type(api, alice, started_game):
    with unchanged(started_game):
        response = api(alice).post(
            actions_url(started_game),
            {"action": {"type": "teleport", "card": 1, "city": 1}, "expected_version": started_game.version},
            format="json",
        )
        assert_problem(response, 422, "bad_action")


def test_notation_garbage(api, alice, started_game):
    text = "select red 1 1 1 banana"
    with unchanged(started_game):
        response = api(alice).post(
            actions_url(started_game), {"action": text, "expected_version": started_game.version}, format="json"
        )
        problem = assert_problem(response, 422, "bad_notation")
        assert problem["token"] == "banana"
        assert problem["pointer"] == f"{text}\n{' ' * text.index('banana')}^"


def test_out_of_turn_action(api, bob, started_game):
    """Bob sends a well-formed selection while it is alice's turn."""
    assert started_game.to_act_seat == 0
    with unchanged(started_game):
        response = api(bob).post(
            actions_url(started_game),
            {"action": {"type": "select", "pieces": [1, 1, 1, 1]}, "expected_version": started_game.version},
            format="json",
        )
        problem = assert_problem(response, 422, "not_your_turn")
        assert problem["rule"] == "R9"


def test_action_by_a_stranger(api, stranger, started_game):
    """A legal move for the seat to act, sent by someone who has no seat: a
    private game is not there for them; a public one refuses them."""
    body = {"action": a_legal_move(started_game), "expected_version": started_game.version}
    with unchanged(started_game):
        response = api(stranger).post(actions_url(started_game), body, format="json")
        assert_problem(response, 404, "game_not_found")
        Game.objects.filter(pk=started_game.pk).update(public=True)
        response = api(stranger).post(actions_url(started_game), body, format="json")
        assert_problem(response, 403, "not_a_player")


def test_stale_version(api, alice, started_game):
    """A legal move made against an older version of the game."""
    move = a_legal_move(started_game)
    client = api(alice)
    with unchanged(started_game):
        response = client.post(
            actions_url(started_game), {"action": move, "expected_version": started_game.version - 1}, format="json"
        )
        problem = assert_problem(response, 409, "stale_version")
        assert problem["current_version"] == started_game.version
        response = client.post(actions_url(started_game), {"action": move}, format="json", HTTP_IF_MATCH='"0"')
        assert_problem(response, 412, "precondition_failed")
    # The same move at the current version is played: only the version was wrong.
    response = client.post(
        actions_url(started_game), {"action": move, "expected_version": started_game.version}, format="json"
    )
    assert response.status_code == 200, response.content


def test_reused_idempotency_key_with_another_body(api, alice, started_game):
    client = api(alice)
    first = client.post(
        actions_url(started_game),
        {"action": a_legal_move(started_game), "expected_version": started_game.version},
        format="json",
        HTTP_IDEMPOTENCY_KEY="move-1",
    )
    assert first.status_code == 200, first.content
    started_game.refresh_from_db()
    with unchanged(started_game):
        # The key again, with a body that would end the game for alice.
        response = client.post(
            actions_url(started_game),
            {"action": "resign", "expected_version": started_game.version},
            format="json",
            HTTP_IDEMPOTENCY_KEY="move-1",
        )
        assert_problem(response, 422, "idempotency_key_reused")


@pytest.mark.parametrize("body", ['""', "0", "false", "[]"])
def test_join_with_a_body_that_is_not_an_object(api, alice, stranger, body):
    """The join body is an object ({"seat": n}) or nothing; other JSON must be
    refused, not read as "no preference" and acted on.

    Found by the API fuzzer (negative data): ``JoinSerializer(data=request.data
    or {})`` turns every falsy body into {}, so the stranger took the open seat."""
    game = services.create_game(
        creator=alice, options={"players": 2}, seats=[services.SeatSpec("me"), services.SeatSpec("open")]
    )
    with unchanged(game):
        response = api(stranger).post(f"{API}/games/{game.public_id}/join", body, content_type="application/json")
        assert_problem(response, 400, "invalid")
    # With no body at all, or an object, the stranger joins.
    response = api(stranger).post(f"{API}/games/{game.public_id}/join", "{}", content_type="application/json")
    assert response.status_code == 200, response.content


def test_an_unsafe_method_on_an_unknown_api_url(api, alice, started_game):
    """A typo in an action URL must be a 404 problem, as it is for GET.

    Found by the API fuzzer: the catch-all view under /api/ (``api_not_found``)
    is a plain Django view, so CsrfViewMiddleware refuses POST, PUT, PATCH and
    DELETE to unknown URLs with Django's HTML "403 CSRF verification failed"
    page (Django's test client skips that check, which is why this client
    enforces it)."""
    client = api(alice)
    with unchanged(started_game):
        for method, path in [
            ("post", f"{API}/games/{started_game.public_id}/act"),
            ("delete", f"{API}/tokens/first"),
            ("put", f"{API}/games/{started_game.public_id}/join/"),
            ("post", "/api/v2/games"),
        ]:
            response = getattr(client, method)(path, {"action": "resign", "expected_version": 1}, format="json")
            assert_problem(response, 404, "not_found")


# --- links in emails ----------------------------------------------------------------------------


def test_expired_magic_link(alice, started_game, monkeypatch):
    """A sign-in link made three hours ago (they last two)."""
    made_at = time.time() - 3 * 3600
    with monkeypatch.context() as travel:
        travel.setattr(signing.time, "time", lambda: made_at)  # type: ignore[attr-defined]
        url = links.login_url(alice, next_path=f"/games/{started_game.public_id}/")
    client = Client()
    with unchanged(started_game):
        response = client.get(url.removeprefix(settings.SITE_URL))
        assert response.status_code == 400
        assert "This link has expired. Ask for a new one." in response.content.decode()
    assert signed_in_as(client) is None
    alice.refresh_from_db()
    assert alice.last_login is None


def test_tampered_magic_link(alice, started_game):
    """A game link with one character of its signature changed."""
    url = links.game_url(alice, str(started_game.public_id)).removeprefix(settings.SITE_URL)
    head, token, tail = url.rsplit("/", 2)
    at = len(token) - 5  # inside the signature, the last part of the token
    tampered = token[:at] + ("A" if token[at] != "A" else "B") + token[at + 1 :]
    client = Client()
    with unchanged(started_game):
        response = client.get(f"{head}/{tampered}/{tail}")
        assert response.status_code == 400
        assert "This link is not valid." in response.content.decode()
        assert response["Referrer-Policy"] == "no-referrer"
    assert signed_in_as(client) is None
    # The untampered link works (its button signs in).
    assert client.get(url).status_code == 200
    assert client.post(url).status_code == 302
    assert signed_in_as(client) == str(alice.pk)


def test_a_link_of_one_purpose_used_for_another(alice, started_game):
    """The token of an unsubscribe link, put in a sign-in link's URL."""
    unsubscribe = links.unsubscribe_url(alice, Kind.YOUR_TURN).removeprefix(settings.SITE_URL)
    token = unsubscribe.rstrip("/").rsplit("/", 1)[1]
    client = Client()
    with unchanged(started_game):
        response = client.get(f"/accounts/link/{links.LOGIN}/{token}/")
        assert response.status_code == 400
        assert "This link is not valid." in response.content.decode()
        response = client.get(f"/accounts/link/{links.GAME}/{token}/")
        assert response.status_code == 400
    assert signed_in_as(client) is None
    assert Kind.YOUR_TURN not in outbox.preference_for(alice).unsubscribed


# --- mail -----------------------------------------------------------------------------------------


def reply(to: str, first_line: str, *, sender: str = "Alice <alice@example.com>", charset: str = "utf-8") -> bytes:
    message = EmailMessage()
    message["From"] = sender
    message["To"] = to
    message["Subject"] = "Re: Manhattan: the game has started"
    message["Message-ID"] = f"<{time.monotonic_ns()}@mail.example.com>"
    message.set_content(f"{first_line}\n\n> It is your turn.\n")
    raw = message.as_bytes()
    if charset != "utf-8":
        raw = raw.replace(b'charset="utf-8"', f'charset="{charset}"'.encode())
    return raw


def deliver(raw: bytes) -> replies.ReplyOutcome:
    """As ``manage.py receive_email`` does."""
    return replies.handle_inbound(AnymailInboundMessage.parse_raw_mime_bytes(raw))


def basic_auth(credentials: str) -> dict[str, str]:
    return {"HTTP_AUTHORIZATION": "Basic " + base64.b64encode(credentials.encode()).decode()}


@pytest.fixture
def started_mail(started_game) -> Notification:
    """Alice's "game started" email, which can be answered with a move: it is her turn."""
    notification = Notification.objects.get(kind=Kind.GAME_STARTED, seat=0, game=started_game)
    assert notification.kind in replies.REPLYABLE
    assert started_game.to_act_seat == 0
    return notification


@pytest.fixture
def alices_move(started_game) -> str:
    return engine.format_action(legal_moves(started_game, 0)[0])


def test_forged_reply_token(started_game, started_mail, alices_move):
    forged = f"play+{started_mail.pk}x{'0' * 20}@localhost"
    mails = Notification.objects.count()
    with unchanged(started_game):
        outcome = deliver(reply(forged, alices_move))
        assert outcome == replies.ReplyOutcome(False, "no valid reply token")
    assert Notification.objects.count() == mails  # no answer to a forger
    assert deliver(reply(reply_address(started_mail), alices_move)).accepted


def test_right_reply_token_from_the_wrong_address(started_game, started_mail, alices_move):
    address = reply_address(started_mail)
    mails = Notification.objects.count()
    with unchanged(started_game):
        for sender in ("Bob <bob@example.com>", "alice@example.com.evil.example", "<>"):
            outcome = deliver(reply(address, alices_move, sender=sender))
            assert outcome == replies.ReplyOutcome(False, "the reply does not come from the player's address")
    assert Notification.objects.count() == mails
    assert deliver(reply(address, alices_move)).accepted


@pytest.mark.parametrize("credentials", [None, "inbound:guessed", "nobody:"])
def test_inbound_webhook_without_basic_auth(client, started_game, started_mail, alices_move, credentials):
    raw = reply(reply_address(started_mail), alices_move)
    headers = basic_auth(credentials) if credentials is not None else {}
    mails = Notification.objects.count()
    with unchanged(started_game):
        response = client.post(WEBHOOK, {"email": raw.decode()}, **headers)
        assert response.status_code in (400, 401, 403)
    assert Notification.objects.count() == mails
    right = basic_auth(settings.ANYMAIL["WEBHOOK_SECRET"])
    assert client.post(WEBHOOK, {"email": raw.decode()}, **right).status_code == 200
    assert GameEvent.objects.filter(game=started_game).count() > started_game.version


@pytest.mark.parametrize(
    "fields",
    [
        {},
        {"subject": "neither 'email' nor 'headers'"},
        {"email": "x", "envelope": "[]"},
        {"email": "x", "envelope": '{"from": "a@example.com"}'},
        {"headers": "From: alice@example.com\n", "text": "hi", "charsets": '{"text": "x-no-such-charset"}'},
    ],
)
def test_malformed_inbound_webhook_payload(started_game, fields):
    """A request with the right credentials but not SendGrid's shape: a 400, not a 500.

    Found with this catalogue: django-anymail's SendGrid inbound view raises
    KeyError, TypeError or LookupError on these, which Django answers with a
    500 (and the provider retries)."""
    client = Client(raise_request_exception=False)
    with unchanged(started_game):
        response = client.post(WEBHOOK, fields, **basic_auth(settings.ANYMAIL["WEBHOOK_SECRET"]))
        assert response.status_code == 400, response.status_code


def test_reply_in_an_unknown_charset(started_game, started_mail, alices_move):
    """A mail client's label the codec registry does not know ("unknown-8bit"
    is what some clients write): the reply is read anyway (the move is ASCII)
    or refused with a reply, never a crash.

    Found with this catalogue: ``replies._decode`` calls
    ``bytes.decode(charset)``, which raises LookupError for an unknown charset;
    through the webhook that is a 500 and through ``receive_email`` a traceback."""
    raw = reply(reply_address(started_mail), alices_move, charset="unknown-8bit")
    client = Client(raise_request_exception=False)
    response = client.post(WEBHOOK, {"email": raw.decode()}, **basic_auth(settings.ANYMAIL["WEBHOOK_SECRET"]))
    assert response.status_code == 200, response.status_code
    played = GameEvent.objects.filter(game=started_game).count() > started_game.version
    assert played or Notification.objects.filter(kind=Kind.MOVE_REFUSED, game=started_game).exists()


def test_garbage_move_by_mail_is_answered(started_game, started_mail, mailoutbox):
    with unchanged(started_game):
        outcome = deliver(reply(reply_address(started_mail), "please place my tower somewhere nice"))
        assert not outcome.accepted
    refused = Notification.objects.get(kind=Kind.MOVE_REFUSED, game=started_game)
    assert outbox.deliver(refused.pk) is True
    assert [m.to for m in mailoutbox] == [["alice@example.com"]]
    assert "please place my tower somewhere nice" in mailoutbox[0].body
    assert "unknown word" in mailoutbox[0].body


# --- the play page's form ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "fields",
    [
        {"intent": "dance", "version": "now", "card": "ace", "city": "Manhattan", "size": "XL"},
        {"intent": "select", "version": "{version}", "size_1": "-3", "size_2": "1e3", "notation": "x\x00y"},
        {"colour": "plaid", "size_4": "99"},
        {"intent": "place", "card": "1", "city": "1", "size": "1", "colour": "red"},  # no version
    ],
)
def test_web_form_garbage(alice, started_game, fields):
    client = Client()
    client.force_login(alice)
    with unchanged(started_game):
        sent = {name: value.replace("{version}", str(started_game.version)) for name, value in fields.items()}
        response = client.post(f"/games/{started_game.public_id}/play/", sent)
        assert response.status_code == 400
        html = response.content.decode()
        assert 'data-testid="refusal"' in html
        assert "Please check the move." in html


def test_a_post_to_the_game_page_itself(alice, started_game):
    """The game's page only shows the game: a form posted to it changes nothing."""
    client = Client()
    client.force_login(alice)
    with unchanged(started_game):
        response = client.post(
            f"/games/{started_game.public_id}/", {"notation": "resign", "version": started_game.version}
        )
        assert response.status_code == 405

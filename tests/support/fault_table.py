"""The web side of the fault drills (tests/reliability/test_faults_*.py), as a
real server runs it: requests through Django's WSGI handler, a started game
with a token for each player, and the checks every drill ends with (the log
whole, every email sent exactly once)."""

from __future__ import annotations

import json
from typing import Any

from django.core.handlers.wsgi import WSGIHandler
from django.test.client import RequestFactory

from accounts.models import User
from accounts.services import create_api_token
from games import store
from games.models import Game, GameEvent
from notifications.models import Notification
from tests.factories import two_player_game
from tests.support.faults import Inbox, Worker, legal_move, wait_until

DELIVERY_TIMEOUT_S = 25.0


class Web:
    """Requests through Django's WSGI handler, in this thread: the real request
    cycle, including ``request_started``/``request_finished`` and so the
    ``close_old_connections`` that a server relies on to reconnect (the test
    client switches those off)."""

    def __init__(self) -> None:
        self.handler = WSGIHandler()
        self.factory = RequestFactory()

    def post(self, path: str, body: dict[str, Any], token: str, **headers: str) -> tuple[int, dict[str, str], bytes]:
        request = self.factory.post(
            path,
            data=json.dumps(body),
            content_type="application/json",
            HTTP_AUTHORIZATION=f"Bearer {token}",
            **headers,
        )
        answer: dict[str, Any] = {}

        def start_response(status: str, response_headers: list[tuple[str, str]], exc_info: Any = None) -> None:
            answer["status"] = int(status.split()[0])
            answer["headers"] = dict(response_headers)

        result = self.handler(request.environ, start_response)
        try:
            content = b"".join(result)
        finally:
            result.close()  # request_finished
        return answer["status"], answer["headers"], content


class Table:
    """A started two-player game (alice, bob) and a token for each player."""

    def __init__(self, alice: User, bob: User) -> None:
        self.game = two_player_game(alice, bob)
        self.tokens = {0: create_api_token(user=alice, name="faults").raw, 1: create_api_token(user=bob, name="f").raw}

    @property
    def url(self) -> str:
        return f"/api/v1/games/{self.game.public_id}/actions"

    def next_move(self) -> tuple[str, dict[str, Any]]:
        """The token of the seat to act and a legal action for it, at the current version."""
        move = legal_move(self.game.pk)
        assert move is not None
        seat, version, action = move
        self.game.refresh_from_db()
        return self.tokens[seat], {"action": action, "expected_version": version}


def assert_log_whole(game: Game) -> list[int]:
    game.refresh_from_db()
    seqs = list(GameEvent.objects.filter(game=game).order_by("seq").values_list("seq", flat=True))
    assert seqs == list(range(1, game.version + 1)), seqs
    state = store.state_of(game)
    assert state is not None
    assert state.seq == game.version
    return seqs


def assert_each_email_once(inbox: Inbox, rows: list[Notification]) -> None:
    """Every notification was sent, and the SMTP server accepted each Message-ID exactly once."""
    expected = {n.message_id for n in rows}
    assert len(expected) == len(rows)
    assert [n.status for n in rows] == [Notification.Status.SENT] * len(rows), [(n.key, n.status) for n in rows]
    with inbox.lock:
        received = dict(inbox.ids)
    assert set(received) == expected, {"missing": expected - set(received), "unexpected": set(received) - expected}
    assert {mid: n for mid, n in received.items() if n != 1} == {}, "an email was sent twice"


def all_sent() -> bool:
    return not Notification.objects.exclude(status=Notification.Status.SENT).exists()


def wait_for_delivery(*workers: Worker) -> None:
    """Until every notification is sent; fails at once if a worker's task raised."""

    def done() -> bool:
        for worker in workers:
            failure = worker.failed_task()
            assert not failure, f"a task failed in the worker:\n{failure}"
        return all_sent()

    delivered = wait_until(done, DELIVERY_TIMEOUT_S, step=0.2)
    assert delivered, f"still pending after {DELIVERY_TIMEOUT_S} s:\n{workers[-1].log()[-3000:]}"

"""Tables: games played through the API while the crawler looks at every
phase (lobby, selection, mid-round placement, after a redraw or a reshuffle,
finished), and the assertion that nothing leaked."""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import timedelta
from email.message import EmailMessage
from types import SimpleNamespace
from typing import Any

import pytest
from django.core.cache import cache
from django.utils import timezone

from accounts.models import User
from games import engine
from games.engine import Action
from games.engine.bots import bot_for
from games.models import Game
from games.services import lobby
from notifications import reminders, replies
from notifications.models import Notification, Preference
from notifications.reply_address import reply_address
from tests.support.secrets.crawler import Crawler, Viewer, make_viewer
from tests.support.secrets.truth import API, Truth, seed_for

# --- tables: games played through the API while the crawler looks ---------------------------


Script = dict[int, list[Action]]


class Table:
    """A game of ``players`` humans, created, joined, started and played through
    the API, every response checked, the crawler walking at each checkpoint."""

    def __init__(
        self,
        name: str,
        players: int,
        monkeypatch: pytest.MonkeyPatch,
        mailbox: list[Any],
        *,
        copies: int = 5,
        policy: str = "random",
    ) -> None:
        self.name = name
        self.players = players
        self.monkeypatch = monkeypatch
        self.seed = seed_for(name)
        self.policy = policy
        self.users = [User.objects.create_user(email=f"{name}-seat{i}@example.com") for i in range(players)]
        self.seat_viewers = [make_viewer(f"seat {i}", i, u) for i, u in enumerate(self.users)]
        stranger = User.objects.create_user(email=f"{name}-stranger@example.com")
        staff = User.objects.create_user(email=f"{name}-staff@example.com", is_staff=True, is_superuser=True)
        viewers = [*self.seat_viewers, make_viewer("stranger", None, stranger), make_viewer("anonymous", None, None)]
        creator = self.seat_viewers[0]
        body = {
            "options": {"players": players, "start_player": 0, "copies_per_position": copies},
            "seats": [{"kind": "me"}] + [{"kind": "invite", "email": u.email} for u in self.users[1:]],
        }
        response = creator.api.post(f"{API}/games", body, format="json")
        assert response.status_code == 201, response.content
        self.game = Game.objects.get(public_id=response.json()["id"])
        self.crawler = Crawler(self.game, viewers, make_viewer("staff", None, staff), mailbox)
        self.crawler.check_response(creator, "post", "POST /games", response)
        self.script: Script = {}

    @property
    def truth(self) -> Truth:
        return self.crawler.truth

    @property
    def gid(self) -> str:
        return str(self.game.public_id)

    def post(self, viewer: Viewer, path: str, body: dict[str, Any] | None = None) -> Any:
        response = viewer.api.post(f"{API}/games/{self.gid}/{path}", body or {}, format="json")
        assert response.status_code == 200, (path, response.status_code, response.content[:500])
        self.truth.refresh()
        self.crawler.check_response(viewer, "post", f"POST {path}", response)
        return response

    def join_all(self) -> None:
        """Every invitee but the last joins: the last join deals (``start``)."""
        for viewer in self.seat_viewers[1:-1]:
            self.post(viewer, "join")

    def start(self, rig: Callable[[dict[str, Any]], None] | None = None) -> None:
        self.monkeypatch.setattr(lobby, "secrets", SimpleNamespace(token_hex=lambda _n: self.seed))
        if rig is not None:
            real = engine.create_game

            def rigged(options: engine.GameOptions, rng: random.Random) -> dict[str, Any]:
                created = real(options, rng)
                rig(created)
                return created

            self.monkeypatch.setattr(engine, "create_game", rigged)
        # The last seat taken, the game deals itself.
        self.post(self.seat_viewers[-1], "join")
        assert self.truth.seed == self.seed

    def choose(self, state: engine.GameState, seat: int) -> Action:
        if self.script.get(seat):
            return self.script[seat].pop(0)
        view = engine.player_view(state, seat)
        return bot_for(self.policy)(view, random.Random(f"drive:{self.seed}:{state.seq}"))

    def move(self, action: Action | None = None, *, seat: int | None = None) -> list[dict[str, Any]]:
        """``seat`` (by default the seat to act) plays ``action`` (by default its
        scripted move, or the bot's choice); the new events."""
        state = self.truth.state
        assert state is not None
        seat = state.to_act if seat is None else seat
        assert seat is not None, "nobody is to act"
        before = self.truth.version
        action = action or self.choose(state, seat)
        body = {"action": engine.action_to_json(action), "expected_version": before}
        with self.crawler.timed("moves"):
            self.post(self.seat_viewers[seat], "actions", body)
        return self.truth.payloads[before:]

    def play_until(self, done: Callable[[list[dict[str, Any]]], bool], limit: int = 400) -> None:
        for _ in range(limit):
            if self.truth.finished:
                raise AssertionError("the game finished before the condition was met")
            if done(self.move()):
                return
        raise AssertionError("the condition was never met")

    def play_to_end(self) -> None:
        moves = 0
        while not self.truth.finished:
            self.move()
            moves += 1
            if moves % 150 == 0:
                cache.clear()

    # -- extra emails ----------------------------------------------------------------------------

    def remind_and_time_out(self) -> None:
        """A reminder (two days on), then a timeout move and its email, for the seat to act (a month later)."""
        # Not at the month: by then the timeout is past, and the warning is the one email (issue 22).
        assert reminders.send_due_reminders(now=timezone.now() + timedelta(days=2)) >= 1
        later = timezone.now() + timedelta(days=30)
        reminders.time_out_absent_players(now=later)  # the warning comes first (issue 12)
        assert reminders.time_out_absent_players(now=later + timedelta(days=2)) >= 1
        self.truth.refresh()

    def refused_reply(self) -> None:
        """The seat to act replies to their "your turn" email with a card they do not hold."""
        self.game.refresh_from_db()
        state = self.truth.state
        assert state is not None
        seat = state.to_act
        assert seat is not None
        notification = (
            Notification.objects.filter(game=self.game, seat=seat, kind__in=replies.REPLYABLE)
            .order_by("-created", "-pk")
            .first()
        )
        assert notification is not None
        missing = next(card for card in range(9) if card not in state.hands[seat])
        message = EmailMessage()
        message["From"] = self.users[seat].email
        message["To"] = reply_address(notification)
        message["Subject"] = "Re: your turn"
        message["Message-ID"] = f"<refused-{self.name}@example.com>"
        message.set_content(f"card {missing + 1} city 1 size 1\n")
        outcome = replies.handle_inbound(message)
        assert not outcome.accepted

    def digest_reader(self, seat: int) -> None:
        Preference.objects.update_or_create(
            user=self.users[seat], defaults={"frequency": Preference.Frequency.DAILY_DIGEST}
        )


def has(kind: str) -> Callable[[list[dict[str, Any]]], bool]:
    return lambda events: any(e["type"] == kind for e in events)


def reshuffled(events: list[dict[str, Any]]) -> bool:
    return any("reshuffle" in e for e in events)


def assert_clean(table: Table, *, expected_checkpoints: list[str], expected_kinds: set[str]) -> None:
    crawler = table.crawler
    print(f"\n{table.name}: {crawler.summary()}")
    assert crawler.findings == [], "\n".join(crawler.findings[:40])
    assert crawler.checkpoints == expected_checkpoints
    assert expected_kinds <= set(crawler.email_kinds), crawler.email_kinds
    for viewer in crawler.viewers:
        assert crawler.counts[viewer.label, "api"] > 0
        assert crawler.counts[viewer.label, "web"] > 0
    for viewer in table.seat_viewers:
        assert crawler.counts[viewer.label, "email"] > 0, viewer.label
    assert crawler.counts["staff", "admin"] > 0
    assert crawler.signatures > 1000, "the crawl checked next to nothing: the test would prove nothing"

"""The crawler: every viewer of a game (each seat, a stranger, an anonymous
client, a staff operator) walks every GET endpoint of the API, every web page
and every email they were sent, and each document is checked against the truth."""

from __future__ import annotations

import json
import re
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from django.core.cache import cache
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import User
from accounts.services import create_api_token
from games.models import Game
from notifications import outbox
from notifications.models import Notification
from tests.support.secrets.truth import API, EMAIL_HAND_LINE, EMAIL_TITLE_CARD, Truth, find_leaks

# --- viewers and the crawl ----------------------------------------------------------------


@dataclass
class Viewer:
    label: str
    seat: int | None
    user: User | None
    api: APIClient
    web: Client


def api_client(user: User | None) -> APIClient:
    client = APIClient()
    client.raise_request_exception = False
    if user is not None:
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {create_api_token(user=user, name='crawler').raw}")
    return client


def web_client(user: User | None) -> Client:
    client = Client(raise_request_exception=False)
    if user is not None:
        client.force_login(user)
    return client


def make_viewer(label: str, seat: int | None, user: User | None) -> Viewer:
    return Viewer(label=label, seat=seat, user=user, api=api_client(user), web=web_client(user))


@dataclass
class Crawler:
    game: Game
    viewers: list[Viewer]
    staff: Viewer
    mailbox: list[Any]
    truth: Truth = field(init=False)
    findings: list[str] = field(default_factory=list)
    counts: Counter[tuple[str, str]] = field(default_factory=Counter)
    email_kinds: Counter[str] = field(default_factory=Counter)
    checkpoints: list[str] = field(default_factory=list)
    signatures: int = 0
    states_done: dict[str, int] = field(default_factory=dict)
    events_seen: dict[str, int] = field(default_factory=dict)
    mail_index: int = 0
    once: set[str] = field(default_factory=set)
    seconds: dict[str, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.truth = Truth(self.game)

    @property
    def gid(self) -> str:
        return str(self.game.public_id)

    def viewer_by_email(self, email: str) -> Viewer | None:
        return next((v for v in self.viewers if v.user is not None and v.user.email == email.lower()), None)

    # -- checking ----------------------------------------------------------------------

    def check(
        self, viewer: Viewer, channel: str, where: str, text: str, *, ns: Iterable[int] = (), data: Any = None
    ) -> list[str]:
        with self.timed("checks"):
            problems, checked = find_leaks(self.truth, viewer.seat, text, ns, data=data)
        self.signatures += checked
        self.counts[viewer.label, channel] += 1
        found = [f"[{self.checkpoints[-1] if self.checkpoints else '-'}] {viewer.label} {where}: {p}" for p in problems]
        self.findings += found
        return found

    def check_response(self, viewer: Viewer, channel: str, where: str, response: Any, ns: Iterable[int] = ()) -> None:
        if response.status_code >= 500:
            self.findings.append(f"{viewer.label} {where}: HTTP {response.status_code}")
        text = response.content.decode("utf-8", errors="replace")
        data = None
        if "json" in response.get("Content-Type", "") and text:
            data = json.loads(text)
        for header in ("Location", "ETag", "Link"):
            if response.has_header(header):
                text += f"\n{header}: {response[header]}"
        self.check(viewer, channel, where, text, ns=ns, data=data)

    # -- one checkpoint ---------------------------------------------------------------------

    def checkpoint(self, name: str, *, last: bool = False) -> None:
        """Every viewer walks everything they can reach now (the staff walks
        the whole admin at the ``last`` checkpoint, the game's pages at every one)."""
        self.game.refresh_from_db()
        self.truth.refresh()
        self.checkpoints.append(name)
        cache.clear()  # the throttles count in the cache; the crawl is not what they are for
        for viewer in self.viewers:
            with self.timed("api"):
                self.crawl_api(viewer)
            with self.timed("web"):
                self.crawl_web(viewer)
        with self.timed("admin"):
            self.crawl_admin(self.staff, everything=last)
        with self.timed("email"):
            self.crawl_emails()

    @contextmanager
    def timed(self, what: str) -> Iterator[None]:
        start = time.perf_counter()
        try:
            yield
        finally:
            self.seconds[what] = self.seconds.get(what, 0.0) + time.perf_counter() - start

    def history_points(self) -> list[int]:
        v = self.truth.version
        points = {1, v // 2, v - 1}
        points |= {seq for seq, _order in self.truth.reshuffles}
        points |= {i + 1 for i, p in enumerate(self.truth.payloads) if p["type"] == "hand_redrawn"}
        return sorted(n for n in points if 1 <= n <= v)

    def crawl_api(self, viewer: Viewer) -> None:
        gid, v = self.gid, self.truth.version
        urls = [
            f"{API}/games",
            f"{API}/games?status=lobby",
            f"{API}/games?status=active",
            f"{API}/games?status=finished",
            f"{API}/games?my_turn=1",
            f"{API}/games/{gid}",
            f"{API}/games/{gid}/legal-actions",
            f"{API}/games/{gid}/events?after=0",
            f"{API}/games/{gid}/events?after={self.events_seen.get(viewer.label, 0)}",
            f"{API}/games/{gid}/record",
            f"{API}/games/{gid}/states/0",
            f"{API}/games/{gid}/states/{v + 1}",
            f"{API}/me",
            f"{API}/tokens",
        ]
        if viewer.label in ("seat 0", "anonymous") and f"static:{viewer.label}" not in self.once:
            # The same for every user: read once per game by a player and by nobody.
            self.once.add(f"static:{viewer.label}")
            urls += [f"{API}/schema/", f"{API}/docs/"]
        for url in urls:
            self.check_response(viewer, "api", f"GET {url}", viewer.api.get(url))
        states = range(self.states_done.get(viewer.label, 0) + 1, v + 1)
        if viewer.user is None:
            states = range(max(v, 1), v + 1)  # refused (401) whatever n is: one is enough
        for n in states:
            url = f"{API}/games/{gid}/states/{n}"
            self.check_response(viewer, "api", f"GET {url}", viewer.api.get(url), ns=[n])
        self.states_done[viewer.label] = v
        self.events_seen[viewer.label] = v

    def crawl_web(self, viewer: Viewer) -> None:
        gid = self.gid
        pages: list[tuple[str, list[int]]] = [
            ("/games/", []),
            ("/games/new/", []),
            (f"/games/{gid}/", []),
            ("/mail/preferences/", []),
        ]
        pages += [(f"/games/{gid}/?at={n}", [n]) for n in self.history_points()]
        for url, ns in pages:
            self.check_response(viewer, "web", f"GET {url}", viewer.web.get(url), ns=ns)

    def crawl_admin(self, staff: Viewer, *, everything: bool) -> None:
        pk = self.game.pk
        pages: list[tuple[str, list[int]]] = [
            ("/admin/games/game/", []),
            (f"/admin/games/game/{pk}/change/", []),
            (f"/admin/games/game/{pk}/replay/", []),
        ]
        if everything:
            pages += [
                ("/admin/", []),
                (f"/admin/games/game/?q={self.gid}", []),
                (f"/admin/games/game/{pk}/undo/", []),
                ("/admin/games/gamesecret/", []),  # not registered: 404, and must stay so
                (f"/admin/games/gamesecret/{pk}/change/", []),
                ("/admin/games/gameevent/", []),
                ("/admin/notifications/notification/", []),
                ("/admin/accounts/apitoken/", []),
            ]
            pages += [(f"/admin/games/game/{pk}/replay/?n={n}", [n]) for n in self.history_points()]
        for url, ns in pages:
            self.check_response(staff, "admin", f"GET {url}", staff.web.get(url), ns=ns)

    def crawl_emails(self) -> None:
        """Deliver everything pending, then read every email sent since the last look."""
        self.deliver()
        messages = self.mailbox[self.mail_index :]
        self.mail_index = len(self.mailbox)
        by_message_id = {n.message_id: n for n in Notification.objects.filter(status=Notification.Status.SENT)}
        for message in messages:
            viewer = self.viewer_by_email(message.to[0])
            assert viewer is not None, f"an email to someone outside the game: {message.to}"
            notification = by_message_id.get(message.extra_headers.get("Message-ID", ""))
            assert notification is not None, f"an email without its outbox row: {message.subject}"
            self.email_kinds[notification.kind] += 1
            seq = notification.context.get("seq") or self.truth.version
            ns = [seq] if seq else []
            where = f"email {notification.kind} #{notification.pk}"
            headers = "\n".join(f"{k}: {v}" for k, v in message.extra_headers.items())
            text = f"Subject: {message.subject}\nReply-To: {message.reply_to}\n{headers}\n\n{message.body}"
            html = "\n".join(str(content) for content, _mime in message.alternatives)
            self.check(viewer, "email part", f"{where} (text)", text, ns=ns)
            self.check(viewer, "email part", f"{where} (html)", html, ns=ns)
            self.counts[viewer.label, "email"] += 1
            self.check_email_hand(viewer, where, message.body, html, seq)

    def deliver(self) -> None:
        """Send every pending email (the crawl reads them from the mailbox)."""
        with self.timed("email building"):
            while outbox.sweep_outbox(timezone.now() + timedelta(days=365)):
                pass

    def check_email_hand(self, viewer: Viewer, where: str, text: str, html: str, seq: int) -> None:
        """The hand an email shows is the recipient's own, as it was when the email was written."""
        own = self.truth.own_hands(viewer.seat, [seq, self.truth.version])
        for line in EMAIL_HAND_LINE.findall(text):
            cards = tuple(int(x) for x in re.findall(r"\d+", line))
            if cards and cards not in own:
                self.findings.append(f"{viewer.label} {where}: 'Your hand' shows {list(cards)}, not theirs")
        allowed = {card for hand in own for card in hand}
        shown = {int(x) for x in EMAIL_TITLE_CARD.findall(html)}
        if shown - allowed:
            self.findings.append(f"{viewer.label} {where}: mini-cards {sorted(shown - allowed)} not in their hand")

    def summary(self) -> str:
        kinds = dict(sorted(self.email_kinds.items()))
        lines = [f"checkpoints: {', '.join(self.checkpoints)}; emails by kind: {kinds}"]
        for viewer in [*self.viewers, self.staff]:
            c = {ch: self.counts[viewer.label, ch] for ch in ("api", "web", "email", "post", "admin")}
            lines.append(f"  {viewer.label}: " + ", ".join(f"{k} {n}" for k, n in c.items() if n))
        documents = sum(n for (_label, channel), n in self.counts.items() if channel != "email")
        lines.append(f"  documents {documents}, signatures checked {self.signatures}, gated {self.truth.gated}")
        lines.append("  seconds: " + ", ".join(f"{k} {v:.1f}" for k, v in sorted(self.seconds.items())))
        return "\n".join(lines)

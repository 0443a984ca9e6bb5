"""Who is watching a game's page right now.

The page sends a heartbeat while it is open and visible; a player whose last
heartbeat is younger than ``PRESENCE_SECONDS`` is at the table, and the
notifications app sends them no turn email or reminder for that game. A page
that is hidden or closed says so, and the normal rules resume at once (unless
another page of the same player, a second tab or a reload, is still there).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from accounts.models import User
from games.models import Game, Presence


def _window() -> timedelta:
    return timedelta(seconds=settings.PRESENCE_SECONDS)


def mark(*, game: Game, user: User, visible: bool, page: str = "", now: datetime | None = None) -> None:
    """Record a heartbeat of ``user``'s page ``page`` (an id each page load makes
    up) on ``game``, or that this page left. Only the page's own row goes: when a
    page reloads, the old page's "left" may arrive after the new one's "here"."""
    now = now or timezone.now()
    if visible:
        Presence.objects.update_or_create(game=game, user=user, page=page, defaults={"seen": now})
        # Pages that went without a word (a crash, a lost network) expire by time; tidy them.
        Presence.objects.filter(game=game, user=user, seen__lt=now - _window()).delete()
    else:
        Presence.objects.filter(game=game, user=user, page=page).delete()


def watching(pairs: Iterable[tuple[int, int]], now: datetime | None = None) -> set[tuple[int, int]]:
    """Which of these (game row id, user id) pairs have the game's page open now."""
    pairs = list(pairs)
    if not pairs:
        return set()
    since = (now or timezone.now()) - _window()
    match = Q()
    for game_id, user_id in pairs:
        match |= Q(game_id=game_id, user_id=user_id)
    return set(Presence.objects.filter(match, seen__gte=since).values_list("game_id", "user_id"))


def is_watching(game_id: int, user_id: int, now: datetime | None = None) -> bool:
    return (game_id, user_id) in watching([(game_id, user_id)], now)

"""Where a player's name links to: their public profile, if the app that keeps
profiles says the reader may see it.

Profiles (and whether one is hidden) belong to an app that builds on games, so
games cannot ask it directly; that app registers the link here when it starts
(``AppConfig.ready``). Without one, names are plain text.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from accounts.models import User
from games.models import Seat

ProfileLink = Callable[[User, object], "str | None"]
"""(player, reader) -> the URL of the player's profile, or None if the reader may not see it."""

_link: ProfileLink | None = None


def register(link: ProfileLink) -> None:
    global _link
    _link = link


def profile_url(player: User, reader: object) -> str:
    """The link for ``player``'s name as ``reader`` sees it, or "" for none."""
    return (_link(player, reader) or "") if _link is not None else ""


def seat_links(seats: Iterable[Seat], reader: object) -> dict[int, str]:
    """Seat index -> the link of its player's name, for the seats with one."""
    links = {}
    for seat in seats:
        url = profile_url(seat.user, reader) if seat.user is not None else ""
        if url:
            links[seat.index] = url
    return links

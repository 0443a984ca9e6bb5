"""A game left as it was: the guard every refused input is checked with,
whichever way the input came in (the API, a link, a reply mail, the play
page's form). Stricter than the API's ``LogWatch``: the status, the turn and
the seats must not move either."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from games.models import Game, GameEvent


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

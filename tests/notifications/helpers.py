"""Helpers for the email tests: play a game forward through the services,
and read the two parts of a built email."""

from __future__ import annotations

import html
import random
import re
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from django.core.mail import EmailMultiAlternatives
from django.utils import timezone

from games import engine, services, store
from games.engine.bots import greedy_bot
from games.models import Game
from notifications import emails
from notifications.models import Kind, Notification

HEX = {"red": "#d64541", "blue": "#3a6fd8", "green": "#2e9e5b", "yellow": "#e6b422"}


def digest_time(days: int = 0) -> datetime:
    """Late on today's date (UTC), plus ``days``: past every default digest hour (8:00), so a
    digest is due whatever the time a test runs at (a bare now() is before 8:00 at night)."""
    return (timezone.now() + timedelta(days=days)).replace(hour=23, minute=0, second=0, microsecond=0)


def act(game: Game, action: engine.Action | str) -> None:
    """The seat to act plays ``action`` (an action or its notation) through the services."""
    game.refresh_from_db()
    if isinstance(action, str):
        action = engine.parse_action(action)
    assert game.to_act_seat is not None
    seat = game.seats.select_related("user").get(index=game.to_act_seat)
    assert seat.user is not None, "a bot's turn: use services.play_bot_turns"
    services.submit_action(
        game_id=game.public_id,
        user=seat.user,
        action=action,
        expected_version=game.version,
    )
    game.refresh_from_db()


def greedy_move(game: Game) -> engine.Action:
    """The greedy bot's choice for the seat to act (deterministic per version)."""
    game.refresh_from_db()
    state = store.state_of(game)
    assert state is not None
    assert state.to_act is not None
    return greedy_bot(engine.player_view(state, state.to_act), random.Random(game.version))


def play_until(game: Game, done: Callable[[Game], bool], limit: int = 400) -> None:
    """Human seats play greedy moves (bots are run after each) until ``done(game)``."""
    for _ in range(limit):
        game.refresh_from_db()
        if done(game):
            return
        assert game.status == Game.Status.ACTIVE, "the game ended before the condition was met"
        act(game, greedy_move(game))
        services.play_bot_turns(game_id=game.public_id)
    raise AssertionError("the condition was never met")


def placement_turn_of(game: Game, seat: int) -> None:
    """Play on until ``seat`` is to place a piece."""
    play_until(game, lambda g: g.phase == engine.PLACEMENT and g.to_act_seat == seat)


def parts(message: EmailMultiAlternatives) -> tuple[str, str]:
    """The text body and the HTML alternative of ``message``."""
    htmls = [content for content, mimetype in message.alternatives if mimetype == "text/html"]
    assert len(htmls) == 1, message.alternatives
    return str(message.body), str(htmls[0])


def headline(message: EmailMultiAlternatives) -> str:
    """What the email is about (the subject names only the game): the text
    body's first line, which the HTML part's preheader and first line say too."""
    first = str(message.body).split("\n", 1)[0]
    markup = parts(message)[1]
    preheader = re.search(r"<div style=\"display:none[^>]*>(.*?)</div>", markup, flags=re.S)
    assert preheader is not None, markup[:800]
    assert html.unescape(preheader.group(1)).startswith(first), preheader.group(1)
    shown = re.search(r"<td style=\"padding:20px;[^>]*>\s*<p[^>]*>(.*?)</p>", markup, flags=re.S)
    assert shown is not None, markup[:1500]
    assert html.unescape(shown.group(1)) == first, "the HTML's first line"
    return first


def visible_text(markup: str) -> str:
    """What a reader of the HTML part sees, as one line of words."""
    markup = re.sub(r"<div style=\"display:none[^>]*>.*?</div>", " ", markup, flags=re.S)  # the preheader
    text = html.unescape(re.sub(r"<[^>]+>", " ", markup))
    return " ".join(text.split())


def latest(kind: str, **filters: Any) -> Notification:
    notification = Notification.objects.filter(kind=kind, **filters).order_by("-pk").first()
    assert notification is not None, f"no {kind} notification with {filters}"
    return notification


def your_turn_by_email(game: Game, which: int = 0) -> tuple[Notification, str, engine.PlacePiece]:
    """Seat 0's placement turn as the email brings it: the "your turn" email, the reply
    address in it, and one legal placement (``which``: its index among them) to answer with."""
    placement_turn_of(game, 0)
    notification = latest(Kind.YOUR_TURN, seat=0)
    address = str(emails.build_message(notification).reply_to[0])
    p = engine.legal_actions(engine.player_view(store.state_of(game), 0)).placements[which]
    return notification, address, engine.PlacePiece(card=p.card, city=p.city, size=p.size, colour=p.colour)

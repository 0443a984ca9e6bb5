"""Watching: the public games, and a game's public view for spectators,
live or replayed move by move (``?at=N``). No sign-in is needed for a public
game; a private one needs a seat or its watch link (``?key=``). Hands never
appear here: every position is ``engine.spectator_view``. A finished game's page
shows the bot's review as the players' page does (a review exists only once the game
is over, when its whole record is public)."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.handlers.asgi import ASGIRequest
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST, require_safe

from accounts.auth_helpers import request_user
from games import engine, store
from games.errors import GameError
from games.models import Game
from games.presentation import board, log, profile_links, table, vocabulary
from games.presentation.review import review_context
from games.services import watching
from games.services.review import review_of

LOG_LINES = 8
LIVE_POLL_SECONDS = 30


def _game(game_id: str) -> Game:
    try:
        return store.get(game_id)
    except GameError as error:
        raise Http404(_("There is no game with this id.")) from error


@require_safe
def watch_list(request: HttpRequest) -> HttpResponse:
    games = list(watching.watchable_games()[:100])
    rows = [
        {
            "game": game,
            "status": vocabulary.STATUS_LABELS.get(game.status, game.status),
            "players": [vocabulary.seat_name(s) for s in game.seats.all()],
            "rounds": vocabulary.rounds_of(game),
        }
        for game in games
    ]
    return render(request, "games/watch_list.html", {"rows": rows})


def _position(raw: str | None, version: int) -> int:
    if raw and raw.isascii() and raw.isdigit() and len(raw) <= 9:
        return min(max(int(raw), 1), version)
    return version


@require_safe
def watch(request: HttpRequest, game_id: str) -> HttpResponse:
    game = _game(game_id)
    key = request.GET.get("key")
    if not watching.may_watch(game, request.user, key):
        raise Http404(_("There is no game with this id."))
    context: dict[str, Any] = {
        "game": game,
        "status_label": vocabulary.STATUS_LABELS.get(game.status, game.status),
        "key": key if key and not game.public else "",
        "rounds": vocabulary.rounds_of(game),
    }
    if game.version < 1:
        return render(request, "games/watch.html", context)
    at = _position(request.GET.get("at"), game.version)
    watch_url = reverse("games:watch", args=[game.public_id]) + (
        f"?{urlencode({'key': context['key']})}" if context["key"] else ""
    )
    state = store.state_of(game, upto=at)
    if state is None:
        raise Http404(_("There is no game with this id."))
    view = engine.spectator_view(state)
    seats = list(game.seats.all())
    names = vocabulary.seat_names(seats)
    recent = store.event_payloads(game, after=max(at - LOG_LINES, 0), upto=at)
    live = at == game.version
    context.update(
        {
            "started": True,
            "view": view,
            "at": at,
            "total": game.version,
            "live": live,
            # Followed through the game's stream like the players' page; where the
            # stream is not open to this spectator, by asking for the page now and then.
            "history": not live,
            "streams_served": isinstance(request, ASGIRequest),
            "game_url": watch_url,
            "stream_key": context["key"],
            "poll_seconds": LIVE_POLL_SECONDS if game.status == Game.Status.ACTIVE else None,
            "prev_at": at - 1 if at > 1 else None,
            "next_at": at + 1 if at < game.version else None,
            "board": board.drawing(view),
            "players": table.player_rows(view, names, profile_links.seat_links(seats, request.user)),
            "phase_label": vocabulary.PHASE_LABELS.get(view.phase, view.phase),
            "winners": [names.get(p, "") for p in view.winners],
            "log": log.log_lines(engine.redact_events(recent, None), at - len(recent) + 1, names, None),
        }
    )
    if live and game.status == Game.Status.FINISHED:
        context.update(review_context(review_of(game), names))
        # The review appears by itself only where the stream is open to this spectator.
        context["review_follows"] = context["streams_served"] and request.user.is_authenticated
    return render(request, "games/watch.html", context)


@login_required
@require_POST
def visibility(request: HttpRequest, game_id: str) -> HttpResponse:
    game = _game(game_id)
    public = request.POST.get("public") == "1"
    try:
        watching.set_public(game=game, user=request_user(request), public=public)
    except GameError:
        messages.error(request, _("You have no seat in this game."))
    else:
        messages.success(
            request,
            _("Anyone can watch this game now.") if public else _("Only the players and their link can watch now."),
        )
    return HttpResponseRedirect(reverse("games:detail", args=[game.public_id]))

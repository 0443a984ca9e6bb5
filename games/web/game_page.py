"""The game's page: its lobby, its play and its history, as one context for
``games/detail.html``, from the game's log and the reader's seat.

Players see their own seat's view; everyone else sees the public (spectator)
view, never a hand. The history slider (``?at=N``) shows the public state
after event N; ``?board=south`` draws the board from the south whatever the
reader's side, and is kept while they step through the history.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from django.core.handlers.asgi import ASGIRequest
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext as _

from accounts.auth_helpers import request_user
from accounts.models import User
from games import engine, store
from games.models import Game, Seat
from games.presentation import board, build, log, profile_links, table, vocabulary
from games.presentation.review import review_context
from games.services.review import review_of

from . import controls
from .forms import MoveForm
from .talk import talk_context

RECENT_EVENTS = 12


@dataclass
class Refusal:
    """Why a move was refused, for the page."""

    message: str
    rule: str = ""
    pointer: str = ""


def detail_url(game: Game) -> str:
    return reverse("games:detail", args=[game.public_id])


def parse_at(raw: str | None, version: int) -> int | None:
    """The history position asked for, clamped to the log; None for "now"."""
    if not raw or not raw.isdigit() or len(raw) > 9 or version < 1:
        return None
    return min(max(int(raw), 1), version)


def _south_view(request: HttpRequest) -> bool:
    """The board is drawn from the player's own side, unless they switched to the south view."""
    return (request.POST.get("board") or request.GET.get("board")) == "south"


def render_game(
    request: HttpRequest,
    game: Game,
    *,
    at: int | None = None,
    move_form: MoveForm | None = None,
    refusal: Refusal | None = None,
    status: int = 200,
) -> HttpResponse:
    user = request_user(request)
    seats = list(game.seats.all())  # loaded with the game (store.get)
    my_seat = next((s for s in seats if s.user_id == user.pk), None)
    names = vocabulary.seat_names(seats, user)
    links = profile_links.seat_links(seats, user)
    context: dict[str, Any] = {
        "absent": my_seat is not None and my_seat.absent_since is not None and game.status == Game.Status.ACTIVE,
        "game": game,
        "game_url": detail_url(game),
        "status_label": vocabulary.STATUS_LABELS.get(game.status, game.status),
        "rounds": vocabulary.rounds_of(game),
        "my_seat": my_seat,
        "refusal": refusal,
        "move_form": move_form,
        "started": False,
        # Streams need the ASGI server; a page served by WSGI is followed by reloading.
        "streams_served": isinstance(request, ASGIRequest),
    }
    if game.status == Game.Status.LOBBY:
        context.update(_lobby_context(game, seats, my_seat, user))
    context.update(talk_context(game, user, my_seat, names))
    state = store.state_of(game, upto=at) if game.version else None
    if state is not None:
        recent = store.event_payloads(game, after=max(state.seq - RECENT_EVENTS, 0), upto=state.seq)
        context.update(
            _play_context(
                game, state, recent, my_seat, names, links, at=at, move_form=move_form, south=_south_view(request)
            )
        )
    if game.status == Game.Status.FINISHED and at is None:
        context.update(review_context(review_of(game), names))
    return render(request, "games/detail.html", context, status=status)


def _lobby_context(game: Game, seats: list[Seat], my_seat: Seat | None, user: User) -> dict[str, Any]:
    is_creator = game.creator_id == user.pk
    email = user.email.lower()
    invited = my_seat is None and any(
        s.user_id is None and not s.bot and s.invited_email.lower() == email for s in seats
    )
    open_seat = any(s.user_id is None and not s.bot and not s.invited_email for s in seats)
    rows = []
    for seat in seats:
        if seat.user is not None:
            state = _("joined")
        elif seat.bot:
            state = _("bot")
        elif seat.invited_email:
            state = _("invited, not answered yet")
        else:
            state = _("open: anyone with the link can join")
        name = vocabulary.seat_name(seat)
        if seat.user is None and not seat.bot and seat.invited_email.lower() == email:
            name = _("You (invited)")
        rows.append(
            {
                "index": seat.index + 1,
                "name": name,
                # Only the creator sees whom they invited.
                "email": seat.invited_email if is_creator and seat.user is None else "",
                "state": state,
                "me": my_seat is not None and seat.pk == my_seat.pk,
            }
        )
    return {
        "lobby_seats": rows,
        "can_join": my_seat is None and (invited or open_seat),
        "can_decline": invited,
        "can_start": is_creator and all(s.is_filled for s in seats),
        "is_creator": is_creator,
    }


def _play_context(
    game: Game,
    state: engine.GameState,
    recent: list[engine.Event],
    my_seat: Seat | None,
    names: dict[int, str],
    links: dict[int, str],
    *,
    at: int | None,
    move_form: MoveForm | None,
    south: bool = False,
) -> dict[str, Any]:
    version = max(game.version, state.seq)
    history = at is not None and at < version
    seat_index = my_seat.index if my_seat is not None and not history else None
    view = engine.player_view(state, seat_index) if seat_index is not None else engine.spectator_view(state)
    legal = engine.legal_actions(view) if seat_index is not None and game.status == Game.Status.ACTIVE else None
    my_turn = legal is not None and legal.my_turn

    legal_cities: dict[int, set[int]] = {}
    highlight: set[tuple[int, int]] = set()
    if legal is not None and my_turn:
        for p in legal.placements:
            highlight.add((p.city, p.lot))
            legal_cities.setdefault(p.card + 1, set()).add(p.city + 1)
    hand = table.hand_cards(view, {card: sorted(cities) for card, cities in legal_cities.items()})
    data = move_form.data if move_form is not None else {}
    my_side = view.sides[my_seat.index] if my_seat is not None else board.SOUTH
    drawn_from = board.SOUTH if south else my_side

    context: dict[str, Any] = {
        "started": True,
        "view": view,
        "version": view.version,
        "history": history,
        "at": at if history else None,
        "slider_value": at if history else version,
        "total_version": version,
        "prev_at": (at if history and at is not None else version) - 1,
        "next_at": (at + 1) if history and at is not None else None,
        "board": board.drawing(view, highlight, side=drawn_from, last=controls.last_placement(recent)),
        "board_switch": "" if my_side == board.SOUTH else ("mine" if south else "south"),
        "south": south,  # kept by the history's links and form
        "highlighted": len(highlight),
        "players": table.player_rows(view, names, links),
        "supplies": table.supply_rows(view, names),
        "round_scores": table.round_score_rows(view),
        "tallest": board.tallest(view),
        "cities": board.city_majorities(view),
        "phase_label": vocabulary.PHASE_LABELS.get(view.phase, view.phase),
        "to_act_name": names.get(view.to_act, "") if view.to_act is not None else "",
        "selecting_colour": vocabulary.colour_label(view.selecting_colour) if view.selecting_colour is not None else "",
        "winners": [names.get(p, "") for p in view.winners],
        "my_turn": my_turn,
        "hand": hand,
        # The card's lot is shown apart only when the board is not drawn from the card holder's side.
        "rotated": seat_index is not None and view.sides[seat_index] != drawn_from,
        "my_side": vocabulary.SIDE_LABELS[engine.SIDE_NAMES[view.sides[seat_index]]] if seat_index is not None else "",
        "can_resign": seat_index is not None
        and game.status == Game.Status.ACTIVE
        and not view.resigned[seat_index]
        and view.phase in (engine.SELECTION, engine.PLACEMENT),
        "notation": data.get("notation", ""),
        "log": log.log_lines(engine.redact_events(recent, seat_index), state.seq - len(recent) + 1, names, seat_index),
    }
    if my_turn:
        context["idempotency_key"] = uuid.uuid4().hex  # this page's move: sent twice, played once
    if legal is not None and legal.selection is not None:
        context["select"] = controls.select_context(legal.selection, data)
    elif legal is not None and legal.placements:
        context["place"] = controls.place_context(view, hand, data)
        two_colours = len(view.colours[view.seat or 0]) > 1
        context["build_options"] = build.build_options(legal.placements, two_colours=two_colours)
    return context

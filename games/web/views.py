"""Play pages: my games, a game's page, and the POST actions behind its buttons.

Everything works without JavaScript: plain forms, POST with CSRF, and a
redirect after every successful POST (Post/Redirect/Get). A refused move is
shown on the page with the form as it was sent. Opening a page (GET) never
changes a game: it only reads the game's log.

Players see their own seat's view; everyone else sees the public (spectator)
view, never a hand. The history slider (``?at=N``) shows the public state
after event N.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.handlers.asgi import ASGIRequest
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils.functional import Promise
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_POST, require_safe

from accounts.auth_helpers import request_user
from accounts.models import User
from games import engine, services, store
from games.api import idempotency
from games.api.problems import status_for
from games.engine import GameOptions, Resign, RuleError
from games.errors import GameError, StaleVersion
from games.models import Game, Seat
from games.presentation import board, build, log, refusals, table, vocabulary
from games.services import open_games, watching

from . import controls, present
from .forms import MoveForm, ResignForm
from .talk import talk_context

RECENT_EVENTS = 12

# Service refusals people meet on these pages, in words that can be translated
# (the services' own messages are English).
_ERROR_TEXTS: dict[str, Promise] = {
    "game_started": gettext_lazy("This game has already started."),
    "already_seated": gettext_lazy("You already have a seat in this game."),
    "no_seat": gettext_lazy("There is no seat for you in this game."),
    "not_creator": gettext_lazy("Only the game's creator can start it."),
    "seats_open": gettext_lazy("Every seat must be taken before the game starts."),
    "not_invited": gettext_lazy("You have no invitation to this game."),
    "not_a_player": gettext_lazy("You have no seat in this game."),
    "game_lobby": gettext_lazy("This game has not started yet."),
    "game_finished": gettext_lazy("This game is over."),
    "game_abandoned": gettext_lazy("This game was abandoned."),
    "player_resigned": gettext_lazy("You have resigned from this game."),
    "undo_forbidden": gettext_lazy("Only an operator can undo a placement."),
}


def _error_text(error: GameError) -> str:
    """The refusal in the reader's language, without its rule (the page shows it as a badge)."""
    if error.extra.get("message_id") in refusals.TEMPLATES:
        return refusals.refusal_text(
            error.message,
            rule=str(error.extra.get("rule") or ""),
            message_id=error.extra["message_id"],
            params=error.extra.get("params"),
        )
    known = _ERROR_TEXTS.get(error.code)
    return str(known) if known is not None else refusals.refusal_text(error.message, rule=error.extra.get("rule") or "")


@dataclass
class Refusal:
    """Why a move was refused, for the page."""

    message: str
    rule: str = ""
    pointer: str = ""


def _game_or_404(game_id: str) -> Game:
    try:
        return store.get(game_id)
    except GameError as error:
        raise Http404(_("There is no game with this id.")) from error


def _detail_url(game: Game) -> str:
    return reverse("games:detail", args=[game.public_id])


def _parse_at(raw: str | None, version: int) -> int | None:
    """The history position asked for, clamped to the log; None for "now"."""
    if not raw or not raw.isdigit() or len(raw) > 9 or version < 1:
        return None
    return min(max(int(raw), 1), version)


def _pieces_per_round(game: Game) -> int | None:
    try:
        return GameOptions.from_json(game.options).pieces_per_round
    except (RuleError, TypeError, ValueError):
        return None


# --- my games ------------------------------------------------------------------------


@login_required
@require_safe
def game_list(request: HttpRequest) -> HttpResponse:
    user = request_user(request)
    games = list(store.games_of(user))
    winners = store.winners_of(games)
    waiting, others = present.sort_rows([present.game_row(game, user, winners.get(game.pk)) for game in games])
    return render(request, "games/list.html", {"waiting": waiting, "others": others})


# --- a game's page ---------------------------------------------------------------------


@login_required
@require_safe
def game_detail(request: HttpRequest, game_id: str) -> HttpResponse:
    game = _game_or_404(game_id)
    if not watching.may_see(game, request_user(request)):
        raise Http404(_("There is no game with this id."))
    return _render_game(request, game, at=_parse_at(request.GET.get("at"), game.version))


def _south_view(request: HttpRequest) -> bool:
    """The board is drawn from the player's own side, unless they switched to the south view."""
    return (request.POST.get("board") or request.GET.get("board")) == "south"


def _render_game(
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
    context: dict[str, Any] = {
        "absent": my_seat is not None and my_seat.absent_since is not None and game.status == Game.Status.ACTIVE,
        "game": game,
        "game_url": _detail_url(game),
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
            _play_context(game, state, recent, my_seat, names, at=at, move_form=move_form, south=_south_view(request))
        )
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
        "highlighted": len(highlight),
        "players": table.player_rows(view, names),
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


# --- actions (POST) ---------------------------------------------------------------------------


def _stale(request: HttpRequest, game: Game) -> HttpResponse:
    messages.warning(request, _("The game moved on; here is the new position."))
    return HttpResponseRedirect(_detail_url(game))


@login_required
@require_POST
def play(request: HttpRequest, game_id: str) -> HttpResponse:
    """Select pieces or place one: from the controls or from notation."""
    game = _game_or_404(game_id)
    user = request_user(request)
    form = MoveForm(request.POST, count=_pieces_per_round(game))
    if not form.is_valid() or form.action is None:
        version = form.cleaned_data.get("version") if hasattr(form, "cleaned_data") else None
        if version is not None and version != game.version:
            return _stale(request, game)
        refusal = Refusal(message=_("Please check the move."), pointer=form.pointer)
        return _render_game(request, game, move_form=form, refusal=refusal, status=400)
    action = form.action
    try:
        _submit_once(request, game, user, form, action)
    except StaleVersion:
        return _stale(request, game)
    except GameError as error:
        game.refresh_from_db()
        rule = str(error.extra.get("rule") or "")
        return _render_game(
            request,
            game,
            move_form=form,
            refusal=Refusal(message=_error_text(error), rule=rule),
            status=status_for(error.code),
        )
    messages.success(request, _("Your move was recorded: %(move)s") % {"move": engine.format_action(action)})
    return HttpResponseRedirect(_detail_url(game))


def _submit_once(request: HttpRequest, game: Game, user: User, form: MoveForm, action: engine.Action) -> None:
    """Play the move; with the page's idempotency key, a second sending of the
    same form (a double click, a resend after a lost answer) plays it only once."""
    version = form.cleaned_data["version"]

    def act() -> tuple[Game, dict[str, Any]]:
        services.submit_action(game_id=game.public_id, user=user, action=action, expected_version=version)
        return game, {"move": engine.format_action(action)}

    key = form.cleaned_data.get("idempotency_key")
    if not key:
        act()
        return
    unsigned = ("csrfmiddlewaretoken", "idempotency_key")
    body = {name: value for name, value in request.POST.items() if name not in unsigned}
    idempotency.once(user=user, game_id=game.public_id, key=key, print_=idempotency.fingerprint(body, version), act=act)


@login_required
@require_POST
def resign(request: HttpRequest, game_id: str) -> HttpResponse:
    game = _game_or_404(game_id)
    form = ResignForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Tick the box to confirm that you want to resign."))
        return HttpResponseRedirect(_detail_url(game))
    try:
        services.submit_action(
            game_id=game.public_id,
            user=request_user(request),
            action=Resign(),
            expected_version=form.cleaned_data["version"],
        )
    except StaleVersion:
        return _stale(request, game)
    except GameError as error:
        messages.error(request, _error_text(error))
        return HttpResponseRedirect(_detail_url(game))
    messages.success(request, _("You resigned from this game."))
    return HttpResponseRedirect(_detail_url(game))


@login_required
@require_POST
def join(request: HttpRequest, game_id: str) -> HttpResponse:
    game = _game_or_404(game_id)
    try:
        seat = open_games.take_seat(game=game, user=request_user(request))
    except GameError as error:
        messages.error(request, _error_text(error))
    else:
        messages.success(request, _("You joined the game in seat %(seat)s.") % {"seat": seat.index + 1})
    return HttpResponseRedirect(_detail_url(game))


@login_required
@require_POST
def decline(request: HttpRequest, game_id: str) -> HttpResponse:
    game = _game_or_404(game_id)
    try:
        services.decline_invitation(game=game, user=request_user(request))
    except GameError as error:
        messages.error(request, _error_text(error))
        return HttpResponseRedirect(_detail_url(game))
    messages.success(request, _("You declined the invitation. The seat is open for someone else."))
    return HttpResponseRedirect(reverse("games:list"))


@login_required
@require_POST
def start(request: HttpRequest, game_id: str) -> HttpResponse:
    game = _game_or_404(game_id)
    try:
        services.start_game(game=game, user=request_user(request))
    except GameError as error:
        messages.error(request, _error_text(error))
    else:
        messages.success(request, _("The game has started. The cards are dealt."))
    return HttpResponseRedirect(_detail_url(game))


@login_required
@require_POST
def come_back(request: HttpRequest, game_id: str) -> HttpResponse:
    """ "I'm back": the timeout bot stops playing for me."""
    game = _game_or_404(game_id)
    try:
        services.come_back(game_id=game.public_id, user=request_user(request))
    except GameError as error:
        messages.error(request, _error_text(error))
    else:
        messages.success(request, _("Welcome back: your turns are yours to play again."))
    return HttpResponseRedirect(_detail_url(game))

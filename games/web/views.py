"""Play pages: my games, a game's page, and the POST actions behind its buttons.

Everything works without JavaScript: plain forms, POST with CSRF, and a
redirect after every successful POST (Post/Redirect/Get). A refused move is
shown on the page with the form as it was sent. Opening a page (GET) never
changes a game: it only reads the game's log.

What the game's page shows is put together in ``game_page``.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST, require_safe

from accounts.auth_helpers import request_user
from accounts.models import User
from games import engine, services, store
from games.engine import GameOptions, Resign, RuleError
from games.errors import GameError, StaleVersion
from games.models import Game
from games.presentation import refusals
from games.services import open_games
from manhattan_site.api.codes import page_text_for, status_for

from . import game_page, present
from .forms import MoveForm, ResignForm


def _error_text(error: GameError) -> str:
    """The refusal in the reader's language, without its rule (the page shows it as a badge):
    the engine's from its message catalogue, any other the way its code's registry entry
    words it for a page (``manhattan_site.api.codes.page_text_for``)."""
    if error.extra.get("message_id") in refusals.TEMPLATES:
        return refusals.refusal_text(
            error.message,
            rule=str(error.extra.get("rule") or ""),
            message_id=error.extra["message_id"],
            params=error.extra.get("params"),
        )
    return page_text_for(error, default=refusals.refusal_text(error.message, rule=str(error.extra.get("rule") or "")))


def _game_or_404(game_id: str) -> Game:
    try:
        return store.get(game_id)
    except GameError as error:
        raise Http404(_("There is no game with this id.")) from error


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
    game = _game_or_404(game_id)  # GameVisibilityMiddleware has let the visitor see it
    return game_page.render_game(request, game, at=game_page.parse_at(request.GET.get("at"), game.version))


# --- actions (POST) ---------------------------------------------------------------------------


def _stale(request: HttpRequest, game: Game) -> HttpResponse:
    messages.warning(request, _("The game moved on; here is the new position."))
    return HttpResponseRedirect(game_page.detail_url(game))


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
        refusal = game_page.Refusal(message=_("Please check the move."), pointer=form.pointer)
        return game_page.render_game(request, game, move_form=form, refusal=refusal, status=400)
    action = form.action
    try:
        _submit_once(request, game, user, form, action)
    except StaleVersion:
        return _stale(request, game)
    except GameError as error:
        game.refresh_from_db()
        rule = str(error.extra.get("rule") or "")
        return game_page.render_game(
            request,
            game,
            move_form=form,
            refusal=game_page.Refusal(message=_error_text(error), rule=rule),
            status=status_for(error.code),
        )
    messages.success(request, _("Your move was recorded: %(move)s") % {"move": engine.format_action(action)})
    return HttpResponseRedirect(game_page.detail_url(game))


def _submit_once(request: HttpRequest, game: Game, user: User, form: MoveForm, action: engine.Action) -> None:
    """Play the move; with the page's idempotency key, a second sending of the
    same form (a double click, a resend after a lost answer) plays it only once."""
    unsigned = ("csrfmiddlewaretoken", "idempotency_key")
    services.submit_action(
        game_id=game.public_id,
        user=user,
        action=action,
        expected_version=form.cleaned_data["version"],
        key=form.cleaned_data.get("idempotency_key") or None,
        asked={name: value for name, value in request.POST.items() if name not in unsigned},
    )


@login_required
@require_POST
def resign(request: HttpRequest, game_id: str) -> HttpResponse:
    game = _game_or_404(game_id)
    form = ResignForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Tick the box to confirm that you want to resign."))
        return HttpResponseRedirect(game_page.detail_url(game))
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
        return HttpResponseRedirect(game_page.detail_url(game))
    messages.success(request, _("You resigned from this game."))
    return HttpResponseRedirect(game_page.detail_url(game))


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
    return HttpResponseRedirect(game_page.detail_url(game))


@login_required
@require_POST
def decline(request: HttpRequest, game_id: str) -> HttpResponse:
    game = _game_or_404(game_id)
    try:
        services.decline_invitation(game=game, user=request_user(request))
    except GameError as error:
        messages.error(request, _error_text(error))
        return HttpResponseRedirect(game_page.detail_url(game))
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
    return HttpResponseRedirect(game_page.detail_url(game))


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
    return HttpResponseRedirect(game_page.detail_url(game))

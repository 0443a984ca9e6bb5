"""The public lobby page: open games anyone may join, "play now", and the
rematch button at the end of a game."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils.functional import Promise
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_POST, require_safe

from accounts.auth_helpers import request_user
from games import store
from games.errors import GameError
from games.models import Game
from games.presentation.vocabulary import seat_name
from games.services import open_games
from manhattan_site.api.codes import page_text_for

PACE_LABELS: dict[str, Promise] = {
    "fast": gettext_lazy("Fast: a reminder after 2 hours, a bot moves after 12 hours"),
    "normal": gettext_lazy("Normal: a reminder after a day, a bot moves after 7 days"),
    "slow": gettext_lazy("Slow: a reminder after 3 days, a bot moves after 14 days"),
    "custom": gettext_lazy("Its own reminders"),
}
PACE_NAMES: dict[str, Promise] = {
    "fast": gettext_lazy("fast"),
    "normal": gettext_lazy("normal"),
    "slow": gettext_lazy("slow"),
    "custom": gettext_lazy("custom"),
}
BOT_HOURS_CHOICES = [
    ("", gettext_lazy("Never: wait for people")),
    ("1", gettext_lazy("after 1 hour")),
    ("6", gettext_lazy("after 6 hours")),
    ("24", gettext_lazy("after 1 day")),
]


class PlayNowForm(forms.Form):
    players = forms.TypedChoiceField(
        label=gettext_lazy("Players"),
        choices=[(2, "2"), (3, "3"), (4, "4")],
        coerce=int,
        initial=4,
        widget=forms.RadioSelect,
    )
    pace = forms.ChoiceField(
        label=gettext_lazy("Pace"),
        choices=[(name, PACE_LABELS[name]) for name in open_games.PACES],
        initial="normal",
        widget=forms.RadioSelect,
    )
    bots_after_hours = forms.TypedChoiceField(
        label=gettext_lazy("If seats are still open, fill them with bots"),
        choices=BOT_HOURS_CHOICES,
        coerce=int,
        empty_value=None,
        required=False,
    )


@dataclass
class LobbyRow:
    game: Game
    creator: str
    players: int
    six_rounds: bool
    pace: str
    seats: list[str]
    open_seats: int
    mine: bool


def _row(game: Game, user: Any) -> LobbyRow:
    seats = list(game.seats.all())
    return LobbyRow(
        game=game,
        creator=game.creator.public_name,
        players=game.players,
        six_rounds=bool(game.options.get("six_rounds")),
        pace=str(PACE_NAMES[open_games.pace_of(game)]),
        seats=[seat_name(s) for s in seats],
        open_seats=sum(1 for s in seats if s.user_id is None and not s.bot and not s.invited_email),
        mine=any(s.user_id == getattr(user, "pk", None) for s in seats),
    )


@require_safe
def lobby(request: HttpRequest) -> HttpResponse:
    players_raw = request.GET.get("players", "")
    pace = request.GET.get("pace", "")
    players = int(players_raw) if players_raw in ("2", "3", "4") else None
    pace_filter = pace if pace in open_games.PACES else None
    games = open_games.open_lobby(players=players, pace=pace_filter)[:200]
    context = {
        "rows": [_row(game, request.user) for game in games],
        "form": PlayNowForm(),
        "filter_players": players,
        "filter_pace": pace_filter or "",
        "paces": [(name, PACE_NAMES[name]) for name in open_games.PACES],
    }
    return render(request, "games/lobby.html", context)


@login_required
@require_POST
def play_now(request: HttpRequest) -> HttpResponse:
    form = PlayNowForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Choose the number of players and a pace."))
        return HttpResponseRedirect(reverse("games:lobby"))
    data = form.cleaned_data
    seated = open_games.play_now(
        user=request_user(request),
        players=data["players"],
        pace=data["pace"],
        bots_after_hours=data["bots_after_hours"],
    )
    if seated.already:
        messages.info(request, _("You are already waiting in this game; it starts when its seats are taken."))
    elif seated.joined:
        messages.success(request, _("You have a seat in a game that was waiting for you."))
    else:
        messages.success(request, _("No game was waiting, so a new one is open in the lobby for others to join."))
    return HttpResponseRedirect(reverse("games:detail", args=[seated.game.public_id]))


@login_required
@require_POST
def rematch(request: HttpRequest, game_id: str) -> HttpResponse:
    try:
        game = store.get(game_id)
    except GameError as error:
        raise Http404(_("There is no game with this id.")) from error
    try:
        seated = open_games.rematch(game=game, user=request_user(request))
    except GameError as error:
        messages.error(request, page_text_for(error))
        return HttpResponseRedirect(reverse("games:detail", args=[game.public_id]))
    if seated.joined:
        messages.success(request, _("You are in the rematch."))
    else:
        messages.success(request, _("The rematch is offered to the same players."))
    return HttpResponseRedirect(reverse("games:detail", args=[seated.game.public_id]))

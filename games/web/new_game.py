"""The "new game" page: choose the players, invite people or add bots, and
set the reminder policy. The creator always plays the first seat."""

from __future__ import annotations

from typing import Any, cast

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods

from accounts.addresses import has_mail_domain
from accounts.auth_helpers import request_user
from accounts.ratelimit import hit
from games import services
from games.errors import GameError
from games.levels import level_choices
from games.models import Game
from games.names import MAX_LENGTH
from manhattan_site.api.codes import page_text_for

SEAT_CHOICES = [
    ("invite", gettext_lazy("Invite by email")),
    ("open", gettext_lazy("Open seat (anyone with the link)")),
    ("strong", gettext_lazy("Strong bot (thinks ahead)")),
    ("greedy", gettext_lazy("Greedy bot")),
    ("random", gettext_lazy("Random bot")),
]


def seat_choices() -> list[tuple[str, Any]]:
    """The seat kinds: a person, then the bot levels with their ratings (so a player can pick
    an opponent near their own), then the bots that existing games name."""
    return [*SEAT_CHOICES[:2], *level_choices(), *SEAT_CHOICES[2:]]


TIMEOUT_CHOICES = [
    ("72", gettext_lazy("3 days")),
    ("168", gettext_lazy("7 days")),
    ("336", gettext_lazy("14 days")),
    ("", gettext_lazy("Never")),
]


class NewGameForm(forms.Form):
    name = forms.CharField(
        label=gettext_lazy("Name of the game"),
        max_length=MAX_LENGTH,
        required=False,
        help_text=gettext_lazy("Leave it empty and the game gets a name such as “Harbour 27”."),
    )
    players = forms.TypedChoiceField(
        label=gettext_lazy("Players"), choices=[(2, "2"), (3, "3"), (4, "4")], coerce=int, initial=4
    )
    six_rounds = forms.BooleanField(label=gettext_lazy("Six rounds of four pieces (4 players)"), required=False)
    timeout = forms.ChoiceField(
        label=gettext_lazy("If a player does not move, a bot moves for them after"),
        choices=TIMEOUT_CHOICES,
        initial="168",
        required=False,
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for seat in (2, 3, 4):
            self.fields[f"seat_{seat}"] = forms.ChoiceField(
                label=_("Seat %(seat)s") % {"seat": seat}, choices=seat_choices(), initial="strong", required=False
            )
            self.fields[f"email_{seat}"] = forms.EmailField(label=gettext_lazy("Email"), required=False)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        for seat in range(2, int(data.get("players") or 4) + 1):
            if data.get(f"seat_{seat}") == "invite" and not data.get(f"email_{seat}"):
                self.add_error(f"email_{seat}", _("Give the email address of the player to invite."))
            elif data.get(f"seat_{seat}") == "invite" and not has_mail_domain(data[f"email_{seat}"]):
                self.add_error(
                    f"email_{seat}", _("Invite a real email address: one with a mail domain, not an IP address.")
                )
        return data

    def seat_specs(self) -> list[services.SeatSpec]:
        data = self.cleaned_data
        specs = [services.SeatSpec("me")]
        for seat in range(2, data["players"] + 1):
            kind = data.get(f"seat_{seat}") or "strong"
            if kind == "invite":
                specs.append(services.SeatSpec("invite", email=data[f"email_{seat}"]))
            elif kind == "open":
                specs.append(services.SeatSpec("open"))
            else:
                specs.append(services.SeatSpec("bot", bot=kind))
        return specs

    def seat_rows(self) -> list[tuple[forms.BoundField, forms.BoundField]]:
        return [(self[f"seat_{seat}"], self[f"email_{seat}"]) for seat in (2, 3, 4)]


def _created_message(game: Game, seats: list[services.SeatSpec]) -> str:
    """What the creator is told: invitations are mentioned only when there are some."""
    if game.status == Game.Status.ACTIVE:
        return _("The game %(name)s is created and has started: every seat is taken.") % {"name": game.title}
    if any(spec.kind == "invite" for spec in seats):
        return _("The game %(name)s is created. Invitations are on their way.") % {"name": game.title}
    return _("The game %(name)s is created. It starts when every seat is taken.") % {"name": game.title}


def game_create_rate() -> str:
    """The API's ``game_create`` throttle rate, shared by this page."""
    rates = cast(dict[str, str], settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"])
    return rates["game_create"]


@login_required
@require_http_methods(["GET", "POST"])
def new_game(request: HttpRequest) -> HttpResponse:
    form = NewGameForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        # Like the API's game_create throttle: creating a game emails its invitees.
        wait = hit(f"game-create:{request_user(request).pk}", game_create_rate())
        if wait is not None:
            form.add_error(None, _("You have created many games lately; try again later."))
            response = render(request, "games/new.html", {"form": form}, status=429)
            response["Retry-After"] = str(wait)
            return response
        timeout = form.cleaned_data.get("timeout")
        policy = services.ReminderPolicy(timeout_hours=int(timeout) if timeout else None)
        options = {"players": form.cleaned_data["players"], "six_rounds": form.cleaned_data["six_rounds"]}
        try:
            game = services.create_game(
                creator=request_user(request),
                options=options,
                seats=form.seat_specs(),
                reminders=policy,
                name=form.cleaned_data.get("name") or "",
            )
        except GameError as error:
            form.add_error(None, page_text_for(error))
        else:
            messages.success(request, _created_message(game, form.seat_specs()))
            return HttpResponseRedirect(reverse("games:detail", args=[game.public_id]))
    return render(request, "games/new.html", {"form": form}, status=400 if form.errors else 200)

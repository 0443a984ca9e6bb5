"""Operators run games from here: see the board and the (redacted) log,
abandon a game, undo the last placement with a reason, replay to any event."""

from __future__ import annotations

import json
from typing import Any, ClassVar

from django import forms
from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.loader import render_to_string
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString

from games import engine, services, store
from games.errors import GameError
from games.presentation.board import drawing
from manhattan_site.admin_confirm import confirmation_page, confirmed

from .models import Game, GameEvent, Seat


def _in_lobby(game: Game | None) -> bool:
    return game is None or game.status == Game.Status.LOBBY


class SeatInline(admin.TabularInline[Seat, Game]):
    model = Seat
    extra = 0
    template = "admin/games/tabular_inline.html"  # no empty table headers
    fields = ("seat_number", "user", "invited_email", "bot", "side", "colours", "joined")
    readonly_fields = ("seat_number", "side", "colours", "joined")
    raw_id_fields = ("user",)  # a drop-down would list every account of the site
    can_delete = False

    # Seats change only before the game starts: afterwards the log says who sits where.
    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return _in_lobby(obj) and super().has_add_permission(request, obj)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return _in_lobby(obj) and super().has_change_permission(request, obj)

    @admin.display(description="seat", ordering="index")
    def seat_number(self, seat: Seat) -> int | str:
        """Seats counted from 1, as the pages and the emails count them."""
        return seat.index + 1 if seat.index is not None else ""


class GameEventInline(admin.TabularInline[GameEvent, Game]):
    template = "admin/games/tabular_inline.html"  # no empty table headers
    """The log, read-only. Payloads are shown as a spectator sees them: the
    deck order is secret from operators too (RULES.md R4)."""

    model = GameEvent
    extra = 0
    fields = ("seq", "type", "seat", "actor", "created", "public_payload")
    readonly_fields = fields
    can_delete = False
    ordering = ("seq",)

    def get_queryset(self, request: HttpRequest) -> QuerySet[GameEvent]:
        return super().get_queryset(request).select_related("actor")  # one query, however long the log

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    @admin.display(description="payload (public)")
    def public_payload(self, event: GameEvent) -> str:
        return json.dumps(engine.redact_event(event.payload, None), separators=(", ", ": "))


class UndoForm(forms.Form):
    reason = forms.CharField(max_length=200, widget=forms.TextInput(attrs={"size": 60}))


@admin.register(Game)
class GameAdmin(admin.ModelAdmin[Game]):
    list_display = ("name_or_id", "status", "players_list", "round", "phase", "seat_to_act", "version", "updated")
    list_filter = ("status",)
    search_fields = ("name", "public_id", "seats__user__email", "seats__invited_email", "creator__email")
    readonly_fields = (
        "public_id",
        "name",
        "status",
        "options",
        "engine_version",
        "version",
        "phase",
        "round",
        "seat_to_act",
        "turn_since",
        "created",
        "started",
        "finished",
        "board",
        "operator_links",
    )
    fields = (*readonly_fields[:-2], "creator", "board", "operator_links")
    raw_id_fields = ("creator",)  # a drop-down would list every account of the site
    inlines: ClassVar[list[Any]] = [SeatInline, GameEventInline]
    actions = ("abandon",)

    def get_queryset(self, request: HttpRequest) -> QuerySet[Game]:
        return super().get_queryset(request).prefetch_related("seats__user")

    @admin.display(description="game", ordering="name")
    def name_or_id(self, game: Game) -> str:
        return f"{game.title} ({game.public_id})"

    @admin.display(description="seat to act", ordering="to_act_seat")
    def seat_to_act(self, game: Game) -> int | None:
        """Counted from 1, as the pages count seats."""
        return game.to_act_seat + 1 if game.to_act_seat is not None else None

    @admin.display(description="players")
    def players_list(self, game: Game) -> str:
        return ", ".join(
            s.user.email if s.user else (f"{s.bot} bot" if s.bot else (s.invited_email or "open"))
            for s in game.seats.all()
        )

    @admin.display(description="board")
    def board(self, game: Game) -> SafeString | str:
        state = store.state_of(game)
        if state is None:
            return "Not dealt yet."
        # At its real size: the admin's read-only cell gives a fluid SVG no width at all.
        return render_to_string(
            "games/_board.svg.html", {"board": drawing(engine.spectator_view(state)), "fixed_size": True}
        )

    @admin.display(description="operator actions")
    def operator_links(self, game: Game) -> SafeString | str:
        if game.pk is None:
            return ""
        return format_html(
            '<a class="button" href="{}">Undo the last placement…</a> <a class="button" href="{}">Replay…</a>',
            reverse("admin:games_game_undo", args=[game.pk]),
            reverse("admin:games_game_replay", args=[game.pk]),
        )

    def get_urls(self) -> list[URLPattern]:
        own = [
            path("<int:pk>/undo/", self.admin_site.admin_view(self.undo_view), name="games_game_undo"),
            path("<int:pk>/replay/", self.admin_site.admin_view(self.replay_view), name="games_game_replay"),
        ]
        return own + super().get_urls()

    @admin.action(description="Abandon the selected games", permissions=["change"])
    def abandon(self, request: HttpRequest, queryset: QuerySet[Game]) -> HttpResponse | None:
        """Asks first (it cannot be taken back), then abandons each game and writes
        who did it in the admin's history."""
        if not confirmed(request):
            return confirmation_page(
                self,
                request,
                title="Abandon these games?",
                template="admin/games/game/abandon.html",
                games=list(queryset),
            )
        done = 0
        for game in queryset:
            try:
                services.abandon_game(game=game, operator=request.user)  # type: ignore[arg-type]
            except GameError as error:
                self.message_user(request, f"{game.public_id}: {error.message}", messages.WARNING)
            else:
                done += 1
                self.log_change(request, game, "Abandoned the game.")
        self.message_user(request, f"Abandoned {done} game(s).")
        return None

    def undo_view(self, request: HttpRequest, pk: int) -> HttpResponse:
        game = get_object_or_404(Game, pk=pk)
        if not self.has_change_permission(request, game):
            return HttpResponse(status=403)
        form = UndoForm(request.POST if request.method == "POST" else None)
        if request.method == "POST" and form.is_valid():
            try:
                services.undo_last_placement(game=game, operator=request.user, reason=form.cleaned_data["reason"])  # type: ignore[arg-type]
            except GameError as error:
                self.message_user(request, error.message, messages.ERROR)
            else:
                self.message_user(request, "The last placement was undone.")
                return HttpResponseRedirect(reverse("admin:games_game_change", args=[game.pk]))
        context = {
            **self.admin_site.each_context(request),
            "game": game,
            "form": form,
            "title": "Undo the last placement",
        }
        return TemplateResponse(request, "admin/games/game/undo.html", context)

    def replay_view(self, request: HttpRequest, pk: int) -> HttpResponse:
        game = get_object_or_404(Game, pk=pk)
        if not self.has_view_permission(request, game):
            return HttpResponse(status=403)
        try:
            n = int(request.GET.get("n", game.version))
        except ValueError:
            n = game.version
        n = max(1, min(n, game.version)) if game.version else 0
        state = store.state_of(game, upto=n) if n else None
        view = engine.spectator_view(state) if state else None
        context = {
            **self.admin_site.each_context(request),
            "game": game,
            "n": n,
            "board": drawing(view) if view else None,
            "fixed_size": True,
            "view": view.to_json() if view else None,
            "steps": range(1, game.version + 1),
            "title": f"Replay of game {game.public_id}",
        }
        return TemplateResponse(request, "admin/games/game/replay.html", context)


from . import admin_lobby, admin_review  # noqa: E402, F401 - register the public lobby's and the reviews' admin

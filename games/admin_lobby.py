"""The public lobby in the operators' admin: open games, and what an operator
may do to one that waits (take it off the lobby, or seat bots and start it)."""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils import timezone

from .errors import GameError
from .models import Game, OpenGame
from .services import open_games


@admin.register(OpenGame)
class OpenGameAdmin(admin.ModelAdmin[OpenGame]):
    list_display = ("public_id", "status", "creator", "size", "pace", "seats_taken", "created", "fill_with_bots_at")
    list_filter = ("status", "public")
    search_fields = ("public_id", "creator__email", "seats__user__email")
    fields = (
        "public_id", "status", "creator", "options", "created", "listed", "public", "fill_with_bots_at", "rematch_of",
    )  # fmt: skip
    readonly_fields = ("public_id", "status", "creator", "options", "created", "rematch_of")
    actions = ("unlist", "fill_with_bots_now")

    def get_queryset(self, request: HttpRequest) -> QuerySet[OpenGame]:
        return super().get_queryset(request).filter(listed=True).prefetch_related("seats").select_related("creator")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    @admin.display(description="players")
    def size(self, game: Game) -> int:
        return game.players

    @admin.display(description="pace")
    def pace(self, game: Game) -> str:
        return open_games.pace_of(game)

    @admin.display(description="seats taken")
    def seats_taken(self, game: Game) -> str:
        seats = list(game.seats.all())
        return f"{sum(1 for s in seats if s.is_filled)} of {len(seats)}"

    @admin.action(description="Take the selected games off the lobby", permissions=["change"])
    def unlist(self, request: HttpRequest, queryset: QuerySet[OpenGame]) -> None:
        count = queryset.update(listed=False, fill_with_bots_at=None, updated=timezone.now())
        self.message_user(request, f"{count} game(s) taken off the lobby.")

    @admin.action(description="Seat bots in the open seats and start", permissions=["change"])
    def fill_with_bots_now(self, request: HttpRequest, queryset: QuerySet[OpenGame]) -> None:
        now = timezone.now()
        started = 0
        for game in queryset.filter(status=Game.Status.LOBBY):
            Game.objects.filter(pk=game.pk).update(fill_with_bots_at=now)
            try:
                started += open_games.fill_with_bots(game_id=game.pk, now=now)
            except GameError as error:
                self.message_user(request, f"{game.public_id}: {error.message}", messages.ERROR)
        self.message_user(request, f"{started} game(s) started with bots.")

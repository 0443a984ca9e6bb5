"""Operators see each game's review and its state; it is made by the task, never edited here."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from .models import GameReview


@admin.register(GameReview)
class GameReviewAdmin(admin.ModelAdmin[GameReview]):
    list_display = ("game", "status", "moves_done", "moves_total", "iterations", "created", "finished")
    list_filter = ("status",)
    search_fields = ("game__public_id", "game__name", "game__seats__user__email")
    fields = ("game", "status", "moves_done", "moves_total", "iterations", "created", "progressed", "finished", "moves")
    readonly_fields = fields
    raw_id_fields = ("game",)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

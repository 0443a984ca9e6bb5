from __future__ import annotations

from django.contrib import admin

from .models import Rating, RatingChange


@admin.register(Rating)
class RatingAdmin(admin.ModelAdmin[Rating]):
    list_display = ("__str__", "user", "bot", "players", "mu", "sigma", "games", "updated")
    list_filter = ("players", "bot")
    search_fields = ("user__email", "user__display_name", "bot")
    readonly_fields = ("user", "bot", "players", "mu", "sigma", "games", "updated")


@admin.register(RatingChange)
class RatingChangeAdmin(admin.ModelAdmin[RatingChange]):
    list_display = ("rating", "game", "rank", "mu_before", "mu_after", "created")
    list_filter = ("rank",)
    readonly_fields = ("rating", "game", "rank", "mu_before", "sigma_before", "mu_after", "sigma_after", "created")

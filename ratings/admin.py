from __future__ import annotations

from django.contrib import admin

from .models import ProfileSetting, Rating, RatingChange, SeatResult


class RatingChangeInline(admin.TabularInline[RatingChange, Rating]):
    model = RatingChange
    extra = 0
    can_delete = False
    fields = ("game", "rank", "mu_before", "sigma_before", "mu_after", "sigma_after", "created")
    readonly_fields = fields
    ordering = ("-created",)

    def has_add_permission(self, request: object, obj: object = None) -> bool:
        return False


@admin.register(Rating)
class RatingAdmin(admin.ModelAdmin[Rating]):
    list_display = ("__str__", "user", "bot", "players", "mu", "sigma", "shown", "games", "provisional", "updated")
    list_filter = ("players", "bot")
    search_fields = ("user__email", "user__display_name", "bot")
    readonly_fields = ("user", "bot", "players", "mu", "sigma", "games", "updated")
    inlines = (RatingChangeInline,)

    @admin.display(description="shown rating (mu - 3 sigma)")
    def shown(self, rating: Rating) -> str:
        return f"{rating.ordinal:.2f}"

    @admin.display(boolean=True)
    def provisional(self, rating: Rating) -> bool:
        return rating.provisional


@admin.register(RatingChange)
class RatingChangeAdmin(admin.ModelAdmin[RatingChange]):
    list_display = ("rating", "game", "rank", "mu_before", "mu_after", "created")
    list_filter = ("rank",)
    readonly_fields = ("rating", "game", "rank", "mu_before", "sigma_before", "mu_after", "sigma_after", "created")


@admin.register(SeatResult)
class SeatResultAdmin(admin.ModelAdmin[SeatResult]):
    list_display = ("game", "seat", "user", "bot", "players", "score", "rank", "won", "resigned", "rated", "finished")
    list_filter = ("players", "won", "rated", "resigned")
    search_fields = ("user__email", "user__display_name", "game__public_id")
    readonly_fields = (
        "game", "seat", "user", "bot", "players", "score", "rank", "won", "resigned", "rated", "finished",
    )  # fmt: skip


@admin.register(ProfileSetting)
class ProfileSettingAdmin(admin.ModelAdmin[ProfileSetting]):
    list_display = ("user", "hidden", "updated")
    list_filter = ("hidden",)
    search_fields = ("user__email", "user__display_name")
    raw_id_fields = ("user",)

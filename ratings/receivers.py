"""Rates a game in the transaction that finishes it (games announces the events)."""

from __future__ import annotations

from typing import Any

from django.dispatch import receiver

from accounts.models import User
from accounts.signals import account_closed
from games.signals import Appended, events_appended

from .models import ProfileSetting
from .results import record_results
from .services import rate_game


@receiver(events_appended, dispatch_uid="ratings.rate_finished_games")
def rate_finished_game(sender: Any, *, appended: Appended, **kwargs: Any) -> None:
    loaded, now = appended.loaded, appended.now
    if loaded.state is not None and any(event["type"] == "game_finished" for event in appended.events):
        changes = rate_game(loaded.game, loaded.seats, loaded.state, now)
        record_results(loaded.game, loaded.seats, loaded.state, now, changes)


@receiver(account_closed, dispatch_uid="ratings.account_closed")
def forget_profile_choices(sender: Any, *, user: User, **kwargs: Any) -> None:
    """Ratings and results stay (others' ratings were computed with them);
    the person's choices about their profile go."""
    ProfileSetting.objects.filter(user=user).delete()

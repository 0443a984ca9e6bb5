"""Recompute every rating from the finished games (after a change of the rating rules)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from ratings.services import recompute


class Command(BaseCommand):
    help = "Recompute every rating from the finished games, in the order they finished."

    def handle(self, *args: Any, **options: Any) -> None:
        self.stdout.write(f"Rated {recompute()} games.")

"""Celery tasks for games: thin wrappers that call services with ids."""

from celery import shared_task

from . import services


@shared_task(ignore_result=True)  # type: ignore[untyped-decorator]
def play_bot_turns(game_id: str) -> int:
    """Play every bot move that is due in the game (until a human's turn)."""
    return services.play_bot_turns(game_id=game_id)

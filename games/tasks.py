"""Celery tasks for games: thin wrappers that call services with ids."""

from celery import shared_task

from . import services


@shared_task(ignore_result=True)  # type: ignore[untyped-decorator]
def play_bot_turns(game_id: str) -> int:
    """Play every bot move that is due in the game (until a human's turn)."""
    return services.play_bot_turns(game_id=game_id)


@shared_task(ignore_result=True)  # type: ignore[untyped-decorator]
def sweep_bot_turns() -> int:
    """Periodic safety net: play bot turns that no task picked up (the broker
    was down when the move that led to them was stored, or a worker died)."""
    moves = 0
    for public_id in services.games_waiting_for_bots().values_list("public_id", flat=True)[:500]:
        moves += services.play_bot_turns(game_id=public_id)
    return moves

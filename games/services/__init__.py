"""The use cases of games, one module per concern: the lobby (create, invite,
join, start), play (actions, bot turns, timeouts) and operators (undo,
abandon). Views, tasks and other apps call these; reads go through
``games.store``."""

from .lobby import ReminderPolicy, SeatSpec, create_game, decline_invitation, join_game, start_game
from .operators import abandon_game, undo_last_placement
from .play import (
    ActionResult,
    BotDecision,
    apply_timeout,
    come_back,
    decide_for_absent_player,
    play_bot_turns,
    play_for_absent_player,
    submit_action,
)

__all__ = [
    "ActionResult",
    "BotDecision",
    "ReminderPolicy",
    "SeatSpec",
    "abandon_game",
    "apply_timeout",
    "come_back",
    "create_game",
    "decide_for_absent_player",
    "decline_invitation",
    "join_game",
    "play_bot_turns",
    "play_for_absent_player",
    "start_game",
    "submit_action",
    "undo_last_placement",
]

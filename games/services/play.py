"""Playing: a player's action, the bots' turns, and a bot moving for an absent player.

Every move is one transaction: ``store.load(lock=True)`` locks the game row
and folds the log, the engine validates the action and decides chance, and
``store.append`` stores the events and announces them. The API, the web page
and an email reply all enter at ``submit_action``; what they answer is theirs.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from django.db import models, transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from accounts.models import User
from games import engine, store
from games.engine import Action, GameState, RuleError, UndoLastPlacement
from games.engine.bots import bot_for
from games.errors import GameError, StaleVersion, from_rule_error
from games.models import Game, Seat
from games.signals import player_returned

MAX_BOT_MOVES_PER_TASK = 500
TIMEOUT_BOT = "greedy"  # who moves for a player whose turn timed out (and then, until they come back)


@dataclass(frozen=True)
class ActionResult:
    """What a move did: the game after it, the acting seat, and its events (unredacted)."""

    loaded: store.LoadedGame
    seat: int
    events: list[engine.Event]

    @property
    def game(self) -> Game:
        return self.loaded.game

    @property
    def state(self) -> GameState:
        assert self.loaded.state is not None
        return self.loaded.state


def chance(seed: str, version: int) -> random.Random:
    """The generator for the command made at ``version``: seeded from the
    game's secret, so the server (and nobody else) could re-derive it."""
    return random.Random(f"{seed}:{version}")


def _active(loaded: store.LoadedGame) -> GameState:
    game = loaded.game
    if game.status != Game.Status.ACTIVE or loaded.state is None:
        raise GameError(f"game_{game.status}", f"This game is {game.get_status_display().lower()}.")
    return loaded.state


def execute_checked(loaded: store.LoadedGame, seat: int | None, action: Action) -> tuple[GameState, list[engine.Event]]:
    """The engine's verdict on ``action`` by ``seat`` (``None``: an operator) in
    an active game loaded with its lock: the new state and the events."""
    state = _active(loaded)
    game = loaded.game
    try:
        return engine.execute(state, seat, action, chance(game.secret.seed, game.version))
    except RuleError as error:
        raise from_rule_error(error) from error


def submit_action(*, game_id: Any, user: User, action: Action, expected_version: int) -> ActionResult:
    """A player's action, validated by the engine and appended to the log."""
    with transaction.atomic():
        loaded = store.load(game_id, lock=True)
        _active(loaded)
        seat = next((seat for seat in loaded.seats if seat.user_id == user.pk), None)
        if seat is None:
            raise GameError("not_a_player", "You have no seat in this game.")
        if isinstance(action, UndoLastPlacement):
            raise GameError("undo_forbidden", "Only an operator can undo a placement.")
        version = loaded.game.version
        if expected_version != version:
            raise StaleVersion(
                f"The game has moved on: your action was made at version {expected_version}, "
                f"the game is at version {version}.",
                current_version=version,
            )
        state, events = execute_checked(loaded, seat.index, action)
        if seat.absent_since is not None:  # a move of their own: the player is back
            seat.absent_since = None
            seat.save(update_fields=["absent_since"])
        store.append(loaded, state, events, seat=seat.index, actor=user, cause="move")
        return ActionResult(loaded=loaded, seat=seat.index, events=events)


def come_back(*, game_id: Any, user: User) -> bool:
    """The player takes their seat back from the timeout bot ("I'm back");
    False if the bot was not playing for them."""
    with transaction.atomic():
        loaded = store.load(game_id, lock=True, fold=False)
        seat = loaded.seat_of(user)
        if seat is None:
            raise GameError("not_a_player", "You have no seat in this game.")
        if seat.absent_since is None:
            return False
        seat.absent_since = None
        seat.save(update_fields=["absent_since"])
        # If it is their turn now, its clock starts again (the listeners set it).
        player_returned.send(sender=Game, loaded=loaded, seat=seat.index, now=timezone.now())
        return True


def _bot_action(loaded: store.LoadedGame, seat: Seat, kind: str, purpose: str) -> Action:
    """What bot ``kind`` plays for ``seat``: it sees only that seat's view."""
    state = _active(loaded)
    game = loaded.game
    view = engine.player_view(state, seat.index)
    return bot_for(kind)(view, random.Random(f"{game.secret.seed}:{purpose}:{game.version}"))


def play_bot_turns(*, game_id: Any, limit: int = MAX_BOT_MOVES_PER_TASK) -> int:
    """Let bots move while it is a bot's turn; one transaction per move, so a
    human's concurrent action is never blocked for a whole bot sequence."""
    moves = 0
    while moves < limit:
        with transaction.atomic():
            try:
                loaded = store.load(game_id, lock=True)
                _active(loaded)
            except GameError:
                return moves
            seat = loaded.seat_at(loaded.game.to_act_seat)
            if seat is None or not (seat.is_bot or seat.absent_since is not None):
                return moves
            # A bot's seat, or a player's whose turn timed out and who has not come back.
            kind, cause = (seat.bot, "bot") if seat.is_bot else (TIMEOUT_BOT, "absent")
            action = _bot_action(loaded, seat, kind, cause)
            state, events = execute_checked(loaded, seat.index, action)
            store.append(loaded, state, events, seat=seat.index, actor=None, cause=cause)
        moves += 1
    return moves


def play_for_absent_player(*, game_id: Any, seat: int, expected_version: int) -> ActionResult:
    """A bot moves for the player at ``seat`` whose turn, begun at
    ``expected_version``, timed out, and goes on moving for them turn after
    turn (``play_bot_turns``) until they come back. Refused (``StaleVersion``) if the game
    has moved on since: the player came back, or another sweep got there first."""
    with transaction.atomic():
        loaded = store.load(game_id, lock=True)
        _active(loaded)
        game = loaded.game
        player = loaded.seat_at(seat)
        if game.version != expected_version or game.to_act_seat != seat or player is None:
            raise StaleVersion("The turn that timed out is over.", current_version=game.version)
        state, events = execute_checked(loaded, seat, _bot_action(loaded, player, TIMEOUT_BOT, "timeout"))
        # From now on the bot plays each of their turns (cause "absent") until they come back.
        player.absent_since = timezone.now()
        player.save(update_fields=["absent_since"])
        store.append(loaded, state, events, seat=seat, actor=None, cause="timeout")
        return ActionResult(loaded=loaded, seat=seat, events=events)


def games_waiting_for_bots() -> QuerySet[Game]:
    """Active games whose turn is a bot's, or an absent player's (for the periodic sweep)."""
    bots = [kind for kind in Seat.Bot.values if kind]
    return Game.objects.filter(
        Q(seats__bot__in=bots) | Q(seats__absent_since__isnull=False),
        status=Game.Status.ACTIVE,
        seats__index=models.F("to_act_seat"),
    ).distinct()

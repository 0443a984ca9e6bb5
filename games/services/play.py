"""Playing: a player's action, the bots' turns, and a bot moving for an absent player.

Every move is one transaction: ``store.load(lock=True)`` locks the game row
and folds the log, the engine validates the action and decides chance, and
``store.append`` stores the events and announces them. The API, the web page
and an email reply all enter at ``submit_action``, which owns the whole move
(idempotency and version included); what they answer is theirs, after the commit.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import models, transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from accounts.models import User
from games import engine, store
from games.engine import Action, GameState, RuleError, UndoLastPlacement
from games.engine.bots import SEARCH_BOTS, bot_for
from games.errors import GameError, StaleVersion, from_rule_error
from games.models import Game, Seat
from games.signals import Cause, player_returned
from games.table import LoadedGame
from manhattan_site.metrics import BOT_THINK

MAX_BOT_MOVES_PER_TASK = 500
TIMEOUT_BOT = "strong"  # who moves for a player whose turn timed out (and then, until they come back)


@dataclass(frozen=True)
class ActionResult:
    """What a move did: the game after it, the acting seat, and its events (unredacted)."""

    loaded: LoadedGame
    seat: int
    events: list[engine.Event]
    created: datetime
    """When the events were stored (their ``created`` in the log)."""
    replayed: bool = False
    """A repeat under the same key: nothing was played now; this is the first move's result."""

    @property
    def game(self) -> Game:
        return self.loaded.game

    @property
    def state(self) -> GameState:
        assert self.loaded.state is not None
        return self.loaded.state


def _active(loaded: LoadedGame) -> GameState:
    game = loaded.game
    if game.status != Game.Status.ACTIVE or loaded.state is None:
        raise GameError(f"game_{game.status}", f"This game is {game.get_status_display().lower()}.")
    return loaded.state


def execute_checked(loaded: LoadedGame, seat: int | None, action: Action) -> tuple[GameState, list[engine.Event]]:
    """The engine's verdict on ``action`` by ``seat`` (``None``: an operator) in
    an active game loaded with its lock: the new state and the events."""
    return _verdict(loaded, _active(loaded), seat, action)


def _verdict(
    loaded: LoadedGame, state: GameState, seat: int | None, action: Action
) -> tuple[GameState, list[engine.Event]]:
    """The engine's verdict on ``action`` in ``state``, ``loaded``'s state already found active."""
    game = loaded.game
    try:
        return engine.execute(state, seat, action, store.chance(game.secret.seed, game.version))
    except RuleError as error:
        raise from_rule_error(error) from error


def submit_action(
    *, game_id: Any, user: User, action: Action, expected_version: int, key: str | None = None, asked: Any = None
) -> ActionResult:
    """A player's action, validated by the engine and appended to the log: the
    one way a player moves (the API, the page, an email reply).

    It owns the whole move, in one transaction: the game row's lock, the
    idempotency check, the version check, the engine's verdict and the append.
    With ``key`` (the API's Idempotency-Key, the page's form key, an email
    reply's Message-ID) and ``asked`` (what the caller was sent, as it came), a
    repeat is played once: it gets the first move's result again
    (``replayed``), even after the game moved on. The check is made under the
    lock, so a repeat racing the request it repeats waits for it, then finds it.
    """
    once = None if key is None else store.Once.of(key, asked, expected_version)
    with transaction.atomic():
        loaded = store.load(game_id, lock=True)
        replay = None if once is None else store.replay(loaded, user, once)
        if replay is not None:
            return ActionResult(replay.loaded, replay.seat, replay.events, replay.created, replayed=True)
        game = loaded.game
        state = _active(loaded)  # checked once, first: a finished game refuses everyone alike
        seat = next((seat for seat in loaded.seats if seat.user_id == user.pk), None)
        if seat is None:
            raise GameError("not_a_player", "You have no seat in this game.")
        if isinstance(action, UndoLastPlacement):
            raise GameError("undo_forbidden", "Only an operator can undo a placement.")
        if expected_version != game.version:
            raise StaleVersion(
                f"The game has moved on: your action was made at version {expected_version}, "
                f"the game is at version {game.version}.",
                current_version=game.version,
            )
        after, events = _verdict(loaded, state, seat.index, action)
        if seat.absent_since is not None:  # a move of their own: the player is back
            seat.absent_since = None
            seat.save(update_fields=["absent_since"])
        created = store.append(loaded, after, events, seat=seat.index, actor=user, cause=Cause.MOVE, once=once)
    return ActionResult(loaded, seat.index, events, created)


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


def _bot_action(loaded: LoadedGame, seat: Seat, kind: str, purpose: str) -> Action:
    """What bot ``kind`` plays for ``seat``: it sees only that seat's view. A
    search bot thinks for the budget the settings give (``BOT_SEARCH_SECONDS``,
    ``BOT_SEARCH_ITERATIONS``)."""
    state = _active(loaded)
    game = loaded.game
    view = engine.player_view(state, seat.index)
    if kind in SEARCH_BOTS:
        bot = bot_for(kind, seconds=settings.BOT_SEARCH_SECONDS, iterations=settings.BOT_SEARCH_ITERATIONS)
    else:
        bot = bot_for(kind)
    return bot(view, random.Random(f"{game.secret.seed}:{purpose}:{game.version}"))


@dataclass(frozen=True)
class BotDecision:
    """What a bot chose to play for ``seat`` in the game as it was at ``version``."""

    game_id: Any
    seat: int
    version: int
    action: Action


def _decide(game_id: Any, seat: int, kind: str, purpose: str) -> BotDecision | None:
    """Bot ``kind`` decides for ``seat`` on the game as it is, outside any
    transaction: a search takes up to a second and must hold no lock
    meanwhile. ``None`` if it is not ``seat``'s turn."""
    loaded = store.load(game_id)
    player = loaded.seat_at(seat)
    if player is None or loaded.game.status != Game.Status.ACTIVE or loaded.game.to_act_seat != seat:
        return None
    started = time.monotonic()
    action = _bot_action(loaded, player, kind, purpose)
    BOT_THINK.labels(kind, purpose).observe(time.monotonic() - started)
    return BotDecision(game_id, seat, loaded.game.version, action)


def _store(decision: BotDecision, cause: Cause, *, mark_absent: bool = False) -> ActionResult | None:
    """Store the bot's move if the game is still where the bot saw it;
    ``None`` if it moved on. With ``mark_absent`` the seat's player is marked
    absent in the same transaction."""
    seat = decision.seat
    with transaction.atomic():
        locked = store.load(decision.game_id, lock=True)
        if locked.game.version != decision.version:
            return None
        state, events = execute_checked(locked, seat, decision.action)
        if mark_absent:
            # From now on the bot plays each of their turns (cause "absent") until they come back.
            absent = locked.seat_at(seat)
            assert absent is not None
            absent.absent_since = timezone.now()
            absent.save(update_fields=["absent_since"])
        created = store.append(locked, state, events, seat=seat, actor=None, cause=cause)
        return ActionResult(loaded=locked, seat=seat, events=events, created=created)


def _decide_then_store(game_id: Any, seat: int, kind: str, cause: Cause) -> ActionResult | None:
    decision = _decide(game_id, seat, kind, cause)
    return None if decision is None else _store(decision, cause)


def bot_to_act(game_id: Any) -> Seat | None:
    """The seat whose turn it is in an active game, if a bot plays it: a bot's
    seat, or that of a player whose turn timed out and who has not come back."""
    try:
        loaded = store.load(game_id, fold=False)
    except GameError:
        return None
    seat = loaded.seat_at(loaded.game.to_act_seat)
    if loaded.game.status != Game.Status.ACTIVE or seat is None:
        return None
    return seat if seat.is_bot or seat.absent_since is not None else None


def play_bot_turns(*, game_id: Any, limit: int = MAX_BOT_MOVES_PER_TASK, seconds: float | None = None) -> int:
    """Let bots move while it is a bot's turn, for at most ``limit`` moves and
    ``seconds``; the number of moves. One transaction per move, so a human's
    concurrent action is never blocked for a whole bot sequence."""
    deadline = None if seconds is None else time.monotonic() + seconds
    moves = 0
    while moves < limit:
        seat = bot_to_act(game_id)
        if seat is None:
            break
        kind, cause = (seat.bot, Cause.BOT) if seat.is_bot else (TIMEOUT_BOT, Cause.ABSENT)
        if _decide_then_store(game_id, seat.index, kind, cause) is not None:
            moves += 1
        if deadline is not None and time.monotonic() >= deadline:
            break
    return moves


def decide_for_absent_player(*, game_id: Any, seat: int, expected_version: int) -> BotDecision | None:
    """What the timeout bot (``TIMEOUT_BOT``) would play for the player at
    ``seat`` whose turn, begun at ``expected_version``, timed out. It thinks
    here, with no transaction and no lock (the strong bot takes about a
    second); ``None`` if the game has moved on or it is not their turn."""
    loaded = store.load(game_id, fold=False)
    if loaded.game.version != expected_version:
        return None
    decision = _decide(game_id, seat, TIMEOUT_BOT, "timeout")
    return decision if decision is not None and decision.version == expected_version else None


def apply_timeout(decision: BotDecision) -> ActionResult | None:
    """Store the timeout bot's move (``decide_for_absent_player``) and mark the
    player absent: the bot goes on moving for them turn after turn
    (``play_bot_turns``) until they come back. ``None``, and nothing stored,
    if the game is no longer at the version the bot thought about."""
    return _store(decision, Cause.TIMEOUT, mark_absent=True)


def play_for_absent_player(*, game_id: Any, seat: int, expected_version: int) -> ActionResult:
    """Decide, then apply, the timeout bot's move in one call. Refused
    (``StaleVersion``) if the game has moved on since: the player came back,
    or another sweep got there first."""
    decision = decide_for_absent_player(game_id=game_id, seat=seat, expected_version=expected_version)
    result = None if decision is None else apply_timeout(decision)
    if result is None:
        current = store.load(game_id, fold=False).game.version
        raise StaleVersion("The turn that timed out is over.", current_version=current)
    return result


def games_waiting_for_bots() -> QuerySet[Game]:
    """Active games whose turn is a bot's, or an absent player's (for the periodic sweep)."""
    bots = [kind for kind in Seat.Bot.values if kind]
    return Game.objects.filter(
        Q(seats__bot__in=bots) | Q(seats__absent_since__isnull=False),
        status=Game.Status.ACTIVE,
        seats__index=models.F("to_act_seat"),
    ).distinct()

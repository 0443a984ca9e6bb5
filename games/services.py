"""Use cases of games: create, invite, join, start, act, bot turns, operator actions.

Every write is one transaction that locks the game row, folds its log,
validates through the engine, appends the new events and updates the
denormalised fields; side effects (bot turns, emails) are scheduled with
``transaction.on_commit`` so they never see, or act on, a rolled-back move.
"""

from __future__ import annotations

import logging
import random
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import IntegrityError, models, transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from accounts.models import User
from games import engine
from games.engine import Action, GameOptions, GameState, RuleError, UndoLastPlacement
from games.engine.bots import bot_for
from games.engine.events import apply_in_place
from manhattan_site import sql
from manhattan_site.sql import attach_prefetched, connection_for_write
from notifications import services as notifications

from . import reads, snapshots
from .errors import Conflict, Forbidden, GameError, NotFound, StaleVersion, Unprocessable, from_rule_error
from .models import Game, GameEvent, GameSecret, IdempotencyKey, Seat

SeatKind = Literal["me", "invite", "open", "bot"]
_T = TypeVar("_T")
MAX_BOT_MOVES_PER_TASK = 500
logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class SeatSpec:
    """One seat of a new game: the creator, an invitee, an open seat or a bot."""

    kind: SeatKind
    email: str = ""
    bot: str = ""


@dataclass(frozen=True)
class ActionResult:
    game: Game
    seat: int | None
    state: GameState
    events: list[engine.Event]


Respond = Callable[[ActionResult], tuple[int, dict[str, Any]]]


# --- reading -------------------------------------------------------------------


def games_of(user: User) -> QuerySet[Game]:
    """The games ``user`` plays in, created, or is invited to."""
    return Game.objects.filter(
        Q(seats__user=user) | Q(creator=user) | Q(seats__invited_email__iexact=user.email)
    ).distinct()


def get_game(public_id: Any, *, seats: bool = True) -> Game:
    """The game with this public id, its seats loaded (see ``with_seats``)
    unless the caller needs none of them (``game_and_seat_index`` reads the
    caller's own with the game)."""
    try:
        game = Game.objects.get(public_id=public_id)
        return with_seats(game) if seats else game
    except (Game.DoesNotExist, ValueError, TypeError, DjangoValidationError) as error:
        raise NotFound("There is no game with this id.", code="game_not_found") from error


def _found(read: Callable[[], _T | None]) -> _T:
    """What ``read`` finds by a game's public id, or a 404: an unknown id and
    one that is not a UUID at all are the same to the caller."""
    try:
        found = read()
    except (ValueError, TypeError, DjangoValidationError) as error:
        raise NotFound("There is no game with this id.", code="game_not_found") from error
    if found is None:
        raise NotFound("There is no game with this id.", code="game_not_found")
    return found


def with_seats(game: Game) -> Game:
    """``game`` with its seats (and their users) loaded in one query, so that
    every later ``game.seats.all()`` of the request (permission checks, the
    response body, reminders, notifications) reads them from memory.

    The seats are read by hand (``reads.seats_with_users``: through the ORM
    this was a move's costliest query) and kept where ``prefetch_related_objects``
    would keep them."""
    attach_prefetched(game, "seats", reads.seats_with_users(game))
    return game


def event_payloads(game: Game, upto: int | None = None, *, after: int = 0) -> list[engine.Event]:
    """The payloads of the game's events ``after`` < seq <= ``upto``, in order."""
    return reads.event_payloads(game.pk, after=after, upto=upto)


def load_state(game: Game, upto: int | None = None) -> GameState | None:
    """The game's state after event ``upto`` (by default after its last one):
    the fold of its log (``None`` before it starts).

    The fold starts from the latest state this process already knows of the
    game (``games.snapshots``) when that is not past ``upto``, so only the
    events since are read and applied — none at all when the caller names the
    version the known state is at.
    """
    known = snapshots.states.latest(game.public_id)
    if known is not None and known.seq == upto:
        return known
    if known is not None and (upto is None or known.seq < upto):
        newer = event_payloads(game, upto, after=known.seq)
        if not newer:
            return known
        state = known.copy()
        for event in newer:
            apply_in_place(state, event)
    else:
        payloads = event_payloads(game, upto)
        if not payloads:
            return None
        state = engine.fold(payloads)
    _remember_on_commit(game, state)
    return state


def _remember_on_commit(game: Game, state: GameState) -> None:
    """Cache ``state`` once what it was folded from is committed: a state of a
    move that is rolled back must never be taken for the game's."""
    public_id = game.public_id
    transaction.on_commit(lambda: snapshots.states.remember(public_id, state))


def seat_of(game: Game, user: Any) -> Seat | None:
    """``user``'s seat in ``game``; reads the seats loaded by ``with_seats``
    when they are (one query otherwise)."""
    if user is None or not getattr(user, "is_authenticated", False):
        return None
    return next((seat for seat in game.seats.all() if seat.user_id == user.pk), None)


def game_and_seat_index(public_id: Any, user: User) -> tuple[Game, int | None]:
    """The game and ``user``'s seat number in it (``None`` if they have
    none), in one query: what the reads of legal actions and events need."""
    return _found(lambda: reads.game_and_seat_index(public_id, user.pk))


# --- the lobby -------------------------------------------------------------------


@dataclass(frozen=True)
class ReminderPolicy:
    """When an absent player is reminded, and when the greedy bot moves for them."""

    first_hours: int = 24
    every_hours: int = 48
    timeout_hours: int | None = 7 * 24

    def check(self) -> None:
        if not 1 <= self.first_hours <= 24 * 30 or not 1 <= self.every_hours <= 24 * 30:
            raise Unprocessable("Reminders come between 1 hour and 30 days apart.", code="bad_reminders")
        if self.timeout_hours is not None and not 1 <= self.timeout_hours <= 24 * 60:
            raise Unprocessable("The timeout is between 1 hour and 60 days, or none.", code="bad_reminders")


def create_game(
    *, creator: User, options: dict[str, Any], seats: Sequence[SeatSpec], reminders: ReminderPolicy | None = None
) -> Game:
    """A new game in the lobby, its seats taken, offered or given to bots."""
    reminders = reminders or ReminderPolicy()
    reminders.check()
    try:
        parsed = GameOptions.from_json(options)
    except RuleError as error:
        raise from_rule_error(error) from error
    except (TypeError, ValueError) as error:
        raise Unprocessable(f"Bad options: {error}", code="bad_option") from error
    if len(seats) != parsed.players:
        raise Unprocessable(
            f"A {parsed.players}-player game needs exactly {parsed.players} seats; {len(seats)} given.",
            code="bad_seats",
        )
    if sum(1 for s in seats if s.kind == "me") > 1:
        raise Unprocessable("The creator can take only one seat.", code="bad_seats")
    emails = [s.email.lower() for s in seats if s.kind == "invite"]
    if len(set(emails)) != len(emails) or creator.email.lower() in emails:
        raise Unprocessable("Each invitee can be invited to one seat only.", code="bad_seats")
    with transaction.atomic():
        game = Game.objects.create(
            options=parsed.to_json(),
            creator=creator,
            reminder_first_hours=reminders.first_hours,
            reminder_every_hours=reminders.every_hours,
            timeout_hours=reminders.timeout_hours,
        )
        for index, spec in enumerate(seats):
            seat = Seat(game=game, index=index)
            if spec.kind == "me":
                seat.user, seat.joined = creator, timezone.now()
            elif spec.kind == "invite":
                seat.invited_email = spec.email.lower()
            elif spec.kind == "bot":
                bot_for(spec.bot)  # raises ValueError for an unknown kind
                seat.bot = spec.bot
            seat.save()
        notifications.record_invitations(game)
    return game


def join_game(*, game: Game, user: User, seat_index: int | None = None) -> Seat:
    """Take the seat ``user`` was invited to, or an open one."""
    with transaction.atomic():
        game = Game.objects.select_for_update().get(pk=game.pk)
        if game.status != Game.Status.LOBBY:
            raise Conflict("This game has already started.", code="game_started")
        if game.seats.filter(user=user).exists():
            raise Conflict("You already have a seat in this game.", code="already_seated")
        free = game.seats.filter(user__isnull=True, bot="")
        invited = free.filter(invited_email__iexact=user.email)
        open_seats = free.filter(invited_email="")
        candidates = invited if invited.exists() else open_seats
        if seat_index is not None:
            candidates = candidates.filter(index=seat_index)
        seat = candidates.order_by("index").first()
        if seat is None:
            raise Forbidden("There is no seat for you in this game.", code="no_seat")
        seat.user, seat.joined = user, timezone.now()
        seat.save(update_fields=["user", "joined"])
        game.save(update_fields=["updated"])  # the lobby's ETag changes with its seats
        return seat


def start_game(*, game: Game, user: User) -> Game:
    """Deal and begin: only the creator, and only when every seat is filled."""
    with transaction.atomic():
        game = with_seats(Game.objects.select_for_update().get(pk=game.pk))
        if game.creator_id != user.pk:
            raise Forbidden("Only the game's creator can start it.", code="not_creator")
        if game.status != Game.Status.LOBBY:
            raise Conflict("This game has already started.", code="game_started")
        seats = list(game.seats.all())
        if not all(s.is_filled for s in seats):
            raise Conflict("Every seat must be taken before the game starts.", code="seats_open")
        seed = secrets.token_hex(16)
        GameSecret.objects.create(game=game, seed=seed)
        created = engine.create_game(GameOptions.from_json(game.options), _chance(seed, 0))
        state = engine.initial_state(created)
        for seat in seats:
            seat.side = engine.SIDE_NAMES[state.sides[seat.index]]
            seat.colours = [engine.COLOUR_NAMES[c] for c in state.colours[seat.index]]
            seat.save(update_fields=["side", "colours"])
        game.status = Game.Status.ACTIVE
        game.started = timezone.now()
        game.engine_version = created["engine"]
        _append(game, state, [created], seat=None, actor=user)
        return game


# --- playing ----------------------------------------------------------------------


def _chance(seed: str, version: int) -> random.Random:
    """The generator for the command made at ``version``: seeded from the
    game's secret, so the server (and nobody else) could re-derive it."""
    return random.Random(f"{seed}:{version}")


def _lock_game(public_id: Any) -> Game:
    """The game row locked until the transaction ends, with its secret and
    its seats loaded: one locking query (``reads.locked_game``) and one for
    the seats."""
    return with_seats(_found(lambda: reads.locked_game(public_id)))


def _locked_active_game(public_id: Any) -> Game:
    game = _lock_game(public_id)
    if game.status != Game.Status.ACTIVE:
        raise Conflict(f"This game is {game.get_status_display().lower()}.", code=f"game_{game.status}")
    return game


def submit_action(
    *,
    game_id: Any,
    user: User,
    action: Action,
    expected_version: int,
    respond: Respond,
    idempotency_key: str | None = None,
    fingerprint: str = "",
) -> tuple[int, dict[str, Any]]:
    """A player's action, validated by the engine and appended to the log.

    ``respond`` renders the result; with an ``idempotency_key`` that rendering
    is stored so that a retry with the same key and body gets it again with
    no new event, and a reuse of the key with another body is refused.
    """
    with transaction.atomic():
        game = _lock_game(game_id)
        if idempotency_key:
            stored = IdempotencyKey.objects.filter(user=user, game=game, key=idempotency_key).first()
            if stored is not None:
                if stored.fingerprint != fingerprint:
                    raise Unprocessable(
                        "This Idempotency-Key was already used with a different request.",
                        code="idempotency_key_reused",
                    )
                return stored.status_code, stored.response
        if game.status != Game.Status.ACTIVE:
            raise Conflict(f"This game is {game.get_status_display().lower()}.", code=f"game_{game.status}")
        seat = seat_of(game, user)
        if seat is None:
            raise Forbidden("You have no seat in this game.", code="not_a_player")
        if isinstance(action, UndoLastPlacement):
            raise Forbidden("Only an operator can undo a placement.", code="undo_forbidden")
        if expected_version != game.version:
            raise StaleVersion(
                f"The game has moved on: your action was made at version {expected_version}, "
                f"the game is at version {game.version}.",
                current_version=game.version,
            )
        state = _fold_locked(game)
        try:
            new_state, events = engine.execute(state, seat.index, action, _chance(game.secret.seed, game.version))
        except RuleError as error:
            raise from_rule_error(error) from error
        _append(game, new_state, events, seat=seat.index, actor=user)
        status, body = respond(ActionResult(game=game, seat=seat.index, state=new_state, events=events))
        if idempotency_key:
            IdempotencyKey.objects.create(
                user=user, game=game, key=idempotency_key, fingerprint=fingerprint, status_code=status, response=body
            )
        return status, body


def play_bot_turns(*, game_id: Any, limit: int = MAX_BOT_MOVES_PER_TASK) -> int:
    """Let bots move while it is a bot's turn; one transaction per move, so a
    human's concurrent action is never blocked for a whole bot sequence."""
    moves = 0
    while moves < limit:
        with transaction.atomic():
            try:
                game = _locked_active_game(game_id)
            except GameError:
                return moves
            seat = _seat_at(game, game.to_act_seat)
            if seat is None or not seat.is_bot:
                return moves
            state = _fold_locked(game)
            seed = game.secret.seed
            view = engine.player_view(state, seat.index)
            action = bot_for(seat.bot)(view, random.Random(f"{seed}:bot:{game.version}"))
            new_state, events = engine.execute(state, seat.index, action, _chance(seed, game.version))
            _append(game, new_state, events, seat=seat.index, actor=None)
        moves += 1
    return moves


def play_timeout_move(*, game_id: Any, due_at: Any) -> bool:
    """The greedy bot moves once for a player whose turn timed out, and the
    player is told. Does nothing if the timeout is no longer due (the player
    moved, or another sweep got there first)."""
    with transaction.atomic():
        try:
            game = _locked_active_game(game_id)
        except GameError:
            return False
        if game.timeout_at is None or game.timeout_at != due_at or game.to_act_seat is None:
            return False
        seat = _seat_at(game, game.to_act_seat)
        assert seat is not None
        state = _fold_locked(game)
        seed = game.secret.seed
        action = bot_for("greedy")(
            engine.player_view(state, seat.index), random.Random(f"{seed}:timeout:{game.version}")
        )
        new_state, events = engine.execute(state, seat.index, action, _chance(seed, game.version))
        _append(game, new_state, events, seat=seat.index, actor=None)
        notifications.record_timeout(game, seat, game.version)
        return True


# --- operators ---------------------------------------------------------------------


def undo_last_placement(*, game: Game, operator: User, reason: str) -> GameState:
    """An operator takes back the last placement: an appended event with a reason."""
    if not reason.strip():
        raise Unprocessable("Say why the placement is undone.", code="reason_required")
    with transaction.atomic():
        game = _locked_active_game(game.public_id)
        state = _fold_locked(game)
        try:
            new_state, events = engine.execute(
                state, None, UndoLastPlacement(reason=reason.strip()), _chance(game.secret.seed, game.version)
            )
        except RuleError as error:
            raise from_rule_error(error) from error
        _append(game, new_state, events, seat=None, actor=operator)
        return new_state


def abandon_game(*, game: Game, operator: User) -> None:
    with transaction.atomic():
        game = Game.objects.select_for_update().get(pk=game.pk)
        if game.status in (Game.Status.FINISHED, Game.Status.ABANDONED):
            raise Conflict(f"This game is already {game.status}.", code=f"game_{game.status}")
        game.status = Game.Status.ABANDONED
        game.to_act_seat = None
        game.turn_since = None
        game.save(update_fields=["status", "to_act_seat", "turn_since", "updated"])


# --- the log ---------------------------------------------------------------------


def _fold_locked(game: Game) -> GameState:
    state = load_state(game, upto=game.version)  # the row is locked: its version is the log's
    if state is None or state.seq != game.version:
        raise Conflict("This game's log is out of step with the game; an operator has been told.", code="corrupt_log")
    return state


# What ``_append`` changes: saving only these keeps a move from rewriting the
# options, the creator and the reminder policy with the values it read.
_APPEND_FIELDS = [
    "version",
    "phase",
    "round",
    "to_act_seat",
    "turn_since",
    "status",
    "finished",
    "started",
    "engine_version",
    "next_reminder_at",
    "timeout_at",
    "reminders_sent",
    "updated",
]


def _append(game: Game, state: GameState, events: list[engine.Event], *, seat: int | None, actor: User | None) -> None:
    """Append ``events`` after the game's last one and bring the game's
    denormalised fields in step. Runs inside the caller's transaction with
    the game row locked; the unique (game, seq) constraint is the last guard
    against a second writer."""
    now = timezone.now()
    first = game.version + 1
    connection = connection_for_write(Game)
    try:
        # Hand-written (manhattan_site.sql): bulk_create would build the same INSERT anew each move.
        sql.insert(
            connection,
            [
                GameEvent(
                    game=game, seq=first + i, type=event["type"], payload=event, seat=seat, actor=actor, created=now
                )
                for i, event in enumerate(events)
            ],
        )
    except IntegrityError as error:
        raise StaleVersion("Another action was stored first; reload and try again.") from error
    game.version = first + len(events) - 1
    game.phase = state.phase
    game.round = state.round
    game.to_act_seat = state.to_act
    game.turn_since = now if state.to_act is not None else None
    if state.is_finished:
        game.status = Game.Status.FINISHED
        game.finished = now
    notifications.schedule_turn(game, now)
    sql.update(connection, game, _APPEND_FIELDS)  # game.save(update_fields=_APPEND_FIELDS)
    notifications.record_game_notifications(game=game, state=state, events=events, first_seq=first, acting_seat=seat)
    _remember_on_commit(game, state)
    _after_commit(game, state)


def _seat_at(game: Game, index: int | None) -> Seat | None:
    return next((seat for seat in game.seats.all() if seat.index == index), None)


def _after_commit(game: Game, state: GameState) -> None:
    seat = _seat_at(game, state.to_act)
    bot_to_act = game.status == Game.Status.ACTIVE and seat is not None and seat.is_bot
    if bot_to_act:
        public_id = str(game.public_id)
        transaction.on_commit(lambda: _enqueue_bot_turns(public_id))


def _enqueue_bot_turns(public_id: str) -> None:
    from .tasks import play_bot_turns as task

    try:
        task.delay(public_id)
    except Exception:  # the broker is down: the move is stored; the bot sweep picks the game up
        logger.warning("could not enqueue bot turns for game %s", public_id, exc_info=True)


def games_waiting_for_bots() -> QuerySet[Game]:
    """Active games whose turn is a bot's (for the periodic sweep)."""
    return Game.objects.filter(
        status=Game.Status.ACTIVE,
        seats__index=models.F("to_act_seat"),
        seats__bot__in=[kind for kind in Seat.Bot.values if kind],
    ).distinct()


def decline_invitation(*, game: Game, user: User) -> Seat:
    """``user`` turns down their invitation to a lobby game: the seat becomes open."""
    with transaction.atomic():
        game = Game.objects.select_for_update().get(pk=game.pk)
        if game.status != Game.Status.LOBBY:
            raise Conflict("This game has already started.", code="game_started")
        seat = game.seats.filter(user__isnull=True, bot="", invited_email__iexact=user.email).order_by("index").first()
        if seat is None:
            raise Forbidden("You have no invitation to this game.", code="not_invited")
        seat.invited_email = ""
        seat.save(update_fields=["invited_email"])
        game.save(update_fields=["updated"])  # the lobby's ETag changes with its seats
        return seat

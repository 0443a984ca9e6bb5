"""What a stream sends: events read from the database after a cursor.

Both feeds read through ``games.api.events.visible_events``, the one path
that redacts a game's events for a caller, so a stream shows exactly what
``GET /api/v1/games/{id}/events`` shows. These functions are synchronous and
run in the streams' thread pool (``streams.threads``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from django.db.models import Q

from accounts.models import User
from games import store
from games.api.events import as_seen_by, visible_events
from games.api.talk import MessageSerializer
from games.engine.events import (
    GAME_CREATED,
    GAME_FINISHED,
    HAND_REDRAWN,
    PIECE_PLACED,
    PIECES_SELECTED,
    PLACEMENT_UNDONE,
    PLAYER_RESIGNED,
)
from games.models import Game, GameReview
from games.table import LoadedGame
from games.talk import services as talk

# Events a game stream reads at once; a longer log is sent in several reads.
PAGE = 200

# Events of the log that a user's stream reports as "move".
MOVES = frozenset({PIECES_SELECTED, PIECE_PLACED, HAND_REDRAWN, PLAYER_RESIGNED, PLACEMENT_UNDONE})

OPEN_STATUSES = (Game.Status.LOBBY, Game.Status.ACTIVE)


@dataclass(frozen=True)
class Frame:
    """One event of a stream: its ``id`` (the cursor after it) and its body."""

    id: str
    body: dict[str, Any]
    event: str | None = None  # the SSE event name; None for the default "message"


@dataclass(frozen=True)
class GameRead:
    """One read of a game's log after a seq, unredacted: shared by the streams of
    that game that stand at the same seq, each redacting its own copy."""

    loaded: LoadedGame
    rows: list[dict[str, Any]]


def read_game(game_id: str, *, after: int) -> GameRead:
    loaded = store.load(game_id, fold=False)
    return GameRead(loaded, store.event_rows(loaded.game, after=after, limit=PAGE))


def game_events(read: GameRead, user: User) -> list[Frame]:
    """The events of ``read`` as ``user`` may see them, each with its seq as id."""
    return [Frame(id=str(event["seq"]), body=event) for event in as_seen_by(read.loaded, user, read.rows)]


def table_talk(game_id: str, user: User, *, after: int) -> tuple[list[dict[str, Any]], int]:
    """What was written at the game's table after message ``after`` that
    ``user``, a player, may read, and the id to read after next time."""
    game = store.get(game_id)
    messages = list(talk.visible_to(game, user, after=after))
    body = MessageSerializer(messages, many=True).data  # type: ignore[arg-type]  # many=True takes a list
    return list(body), (messages[-1].pk if messages else after)


def talk_cursor(game_id: str, user: User) -> int | None:
    """Where ``user``'s stream starts reading the table: after what is there
    now; None if they do not play in the game (the talk is the players' alone)."""
    loaded = store.load(game_id, fold=False)
    return talk.latest_id(loaded.game) if loaded.seat_of(user) is not None else None


# --- a user's stream: events across their games ---------------------------------
#
# Its cursor is where the stream stands in each of the user's open games
# ("<game>:<seq>,…", with the game's row number). One number across all games
# would lose an event: two games' moves commit in any order, so a move with a
# smaller number may become visible after a larger one was sent.

Cursor = dict[int, int]
_CURSOR = re.compile(r"^(?:\d{1,12}:\d{1,12}(?:,\d{1,12}:\d{1,12})*)?$")


def parse_cursor(raw: str) -> Cursor | None:
    """The cursor in ``raw`` (a Last-Event-ID of the user stream), or None if it is not one."""
    raw = raw.strip()
    if len(raw) > 8000 or not _CURSOR.match(raw):
        return None
    return {int(game): int(seq) for game, seq in (part.split(":") for part in raw.split(",") if part)}


def cursor_is_ahead(user: User, cursor: Cursor) -> bool:
    """Whether ``cursor`` names an event beyond the last of one of the user's games
    (which no stream sent). Other games are not looked at: that would tell a
    stranger how far a game is."""
    versions = dict(store.games_of(user).filter(pk__in=list(cursor)).values_list("pk", "version"))
    return any(seq > versions[game] for game, seq in cursor.items() if game in versions)


def format_cursor(cursor: Cursor) -> str:
    return ",".join(f"{game}:{seq}" for game, seq in sorted(cursor.items()))


def _open_games(user: User, cursor: Cursor) -> list[Game]:
    """The user's games in the lobby or in play, and those the cursor still follows."""
    games = store.games_of(user).filter(Q(status__in=OPEN_STATUSES) | Q(pk__in=list(cursor)))
    return sorted(games, key=lambda game: game.pk)


def user_cursor_now(user: User) -> Cursor:
    """Where a new stream of ``user`` starts: at every open game's current version."""
    return {game.pk: game.version for game in _open_games(user, {})}


def _invited(game: Game, user: User) -> bool:
    return any(s.user_id is None and s.invited_email.lower() == user.email.lower() for s in game.seats.all())


def _frame(cursor: Cursor, kind: str, game: Game, seq: int, event: dict[str, Any] | None = None) -> Frame:
    body: dict[str, Any] = {"type": kind, "game": str(game.public_id), "seq": seq, "version": game.version}
    if event is not None:
        body["event"] = event
    return Frame(id=format_cursor(cursor), body=body)


def user_events(user: User, cursor: Cursor) -> tuple[list[Frame], Cursor, set[str]]:
    """What happened in ``user``'s games since ``cursor``: the frames, the cursor
    after them, and the public ids of the games the stream now follows.

    Kinds: ``invitation``, ``game_started``, ``move``, ``your_turn``,
    ``game_over`` and ``review_ready``. Where one event of the log yields two
    kinds, the first carries the cursor before that event, so a client that
    resumes between them is sent both again: an event may come twice, never
    not at all. A finished game stays followed while its review is being made,
    and ``review_ready`` (whose id no longer names the game) ends that.
    """
    cursor = dict(cursor)
    frames: list[Frame] = []
    games = _open_games(user, cursor)
    for game in games:
        known = cursor.get(game.pk)
        if known is None:
            if game.status == Game.Status.LOBBY:
                cursor[game.pk] = game.version
                if _invited(game, user):
                    frames.append(_frame(cursor, "invitation", game, game.version))
                continue
            if game.status != Game.Status.ACTIVE:
                continue
            known = 0  # started while the stream was away
        if game.version > known:
            loaded = LoadedGame(game, list(game.seats.all()), None)
            own = loaded.seat_of(user)
            events = visible_events(loaded, user, after=known, limit=PAGE)
            for event in events:
                kinds = _kinds(event, game, own.index if own else None)
                for i, kind in enumerate(kinds):
                    cursor[game.pk] = event["seq"] if i == len(kinds) - 1 else event["seq"] - 1
                    frames.append(_frame(cursor, kind, game, event["seq"], None if kind == "your_turn" else event))
                cursor[game.pk] = event["seq"]
        if game.status not in OPEN_STATUSES and cursor.get(game.pk) == game.version:
            review = _review_status(game)
            if review in REVIEW_PENDING:
                continue  # over and reported; followed until its review is ready
            cursor.pop(game.pk)  # over and reported: no longer followed
            if review == GameReview.Status.DONE:
                frames.append(_frame(cursor, "review_ready", game, game.version))
    for game_pk in set(cursor) - {game.pk for game in games}:
        cursor.pop(game_pk)  # no longer the user's (or gone)
    following = {str(game.public_id) for game in games if game.pk in cursor}
    return frames, cursor, following


REVIEW_PENDING = (GameReview.Status.QUEUED, GameReview.Status.RUNNING)


def _review_status(game: Game) -> str | None:
    """The finished game's review status (None without one); asked only of finished games."""
    if game.status != Game.Status.FINISHED:
        return None
    status: str | None = GameReview.objects.filter(game=game).values_list("status", flat=True).first()
    return status


def review_frame(read: GameRead) -> Frame | None:
    """``event: review_ready`` on a game's stream once its review is done (None before)."""
    game = read.loaded.game
    if _review_status(game) != GameReview.Status.DONE:
        return None
    body = {
        "type": "review_ready",
        "game": str(game.public_id),
        "version": game.version,
        "review": f"/api/v1/games/{game.public_id}/review",
    }
    return Frame(id=str(game.version), body=body, event="review_ready")


def _kinds(event: dict[str, Any], game: Game, seat: int | None) -> list[str]:
    kinds = []
    if event["type"] == GAME_CREATED:
        kinds.append("game_started")
    elif event["type"] in MOVES:
        kinds.append("move")
    elif event["type"] == GAME_FINISHED:
        kinds.append("game_over")
    last = event["seq"] == game.version
    if last and seat is not None and game.status == Game.Status.ACTIVE and game.to_act_seat == seat:
        kinds.append("your_turn")
    return kinds

"""What a profile shows, read from the results and ratings kept in this app.

A hidden profile exists only for its owner: to anyone else the player is not
there (the same answer as an unknown id), and they leave the leaderboards.
The games a profile names (recent games, the rating history, head-to-heads and
the opponents to choose from) are only those its reader may see
(``games.services.visibility``): a private game stays its players' alone.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db.models import Avg, Count, F, Q, QuerySet

from accounts.models import User
from games.models import Game
from games.services.visibility import visible_games

from .models import PROVISIONAL_GAMES, ProfileSetting, Rating, RatingChange, SeatResult

RECENT_GAMES = 10
HISTORY_POINTS = 200  # the newest rated games a chart and the API show
PLAYER_COUNTS = (2, 3, 4)


class ProfileNotFound(Exception):
    """No such player, or one whose profile is hidden from the viewer."""


@dataclass(frozen=True)
class RatingPoint:
    game: str  # the game's public id
    at: datetime
    rating: float  # the shown rating (mu - 3 sigma) after the game
    rank: int


@dataclass(frozen=True)
class RatingSummary:
    players: int
    rating: float
    mu: float
    sigma: float
    games: int
    provisional: bool
    history: list[RatingPoint]


@dataclass(frozen=True)
class CountRecord:
    players: int
    games: int
    wins: int


@dataclass(frozen=True)
class Opponent:
    player_id: int | None  # None for a bot, or a player whose profile is hidden
    name: str  # empty for a bot (its kind says what it is) or a hidden player
    bot: str


@dataclass(frozen=True)
class RecentGame:
    game: str
    players: int
    finished: datetime
    score: int
    rank: int
    won: bool
    resigned: bool
    rated: bool
    opponents: list[Opponent]
    name: str = ""  # the game's name, as the pages show it


@dataclass(frozen=True)
class HeadToHead:
    opponent_id: int
    opponent: str
    games: int
    ahead: int  # games the player finished above the opponent
    behind: int
    level: int


@dataclass(frozen=True)
class Profile:
    user: User
    hidden: bool
    games: int
    wins: int
    average_score: float | None
    by_players: list[CountRecord]
    ratings: list[RatingSummary]
    recent: list[RecentGame]
    head_to_head: HeadToHead | None = None
    opponents: list[tuple[int, str]] = field(default_factory=list)


def is_hidden(user: User) -> bool:
    setting = getattr(user, "profile_setting", None)
    return bool(setting is not None and setting.hidden)


def visible_player(player_id: object, viewer: object) -> User:
    """The player with this id, if ``viewer`` may see their profile."""
    raw = str(player_id)
    if not (raw.isascii() and raw.isdigit() and len(raw) <= 12):  # larger than any id, and than SQLite's integers
        raise ProfileNotFound
    try:
        # A closed account keeps its profile, as "former player N": its games and ratings stay.
        shown = Q(is_active=True) | Q(closed__isnull=False)
        user = User.objects.select_related("profile_setting").get(shown, pk=int(raw))
    except User.DoesNotExist as error:
        raise ProfileNotFound from error
    if is_hidden(user) and getattr(viewer, "pk", None) != user.pk:
        raise ProfileNotFound
    return user


def shown_rating(mu: float, sigma: float) -> float:
    return round(mu - 3 * sigma, 2)


def _seen_games(reader: Any) -> QuerySet[Game]:
    return visible_games(Game.objects.all(), reader)


def _ratings(user: User, reader: Any) -> list[RatingSummary]:
    summaries = []
    for rating in Rating.objects.filter(user=user, games__gt=0).order_by("players"):
        changes = (
            RatingChange.objects.filter(rating=rating, game__in=_seen_games(reader))
            .select_related("game")
            .order_by("-created", "-pk")
        )
        history = [
            RatingPoint(str(c.game.public_id), c.created, shown_rating(c.mu_after, c.sigma_after), c.rank)
            for c in reversed(changes[:HISTORY_POINTS])
        ]
        summaries.append(
            RatingSummary(
                rating.players,
                shown_rating(rating.mu, rating.sigma),
                round(rating.mu, 3),
                round(rating.sigma, 3),
                rating.games,
                rating.provisional,
                history,
            )
        )
    return summaries


def _recent(results: QuerySet[SeatResult], user: User, reader: Any) -> list[RecentGame]:
    recent = list(results.filter(game__in=_seen_games(reader)).select_related("game")[:RECENT_GAMES])
    others: dict[int, list[Opponent]] = {}
    around = SeatResult.objects.filter(game_id__in=[r.game_id for r in recent]).exclude(user=user)
    for other in around.select_related("user__profile_setting").order_by("seat"):
        others.setdefault(other.game_id, []).append(_opponent(other))
    return [
        RecentGame(
            str(r.game.public_id),
            r.players,
            r.finished,
            r.score,
            r.rank,
            r.won,
            r.resigned,
            r.rated,
            others.get(r.game_id, []),
            r.game.title,
        )
        for r in recent
    ]


def _opponent(result: SeatResult) -> Opponent:
    if result.user is None:
        return Opponent(None, "", result.bot)
    if is_hidden(result.user):
        return Opponent(None, "", "")
    return Opponent(result.user.pk, result.user.public_name, "")


def head_to_head(user: User, opponent: User, reader: Any) -> HeadToHead:
    """How ``user`` placed against ``opponent`` in the finished games they both
    played that ``reader`` may see."""
    seen = SeatResult.objects.filter(user=user, game__in=_seen_games(reader))
    mine = {r.game_id: r.rank for r in seen.only("game_id", "rank")}
    theirs = SeatResult.objects.filter(user=opponent, game_id__in=list(mine)).only("game_id", "rank")
    ahead = behind = level = 0
    for result in theirs:
        if mine[result.game_id] < result.rank:
            ahead += 1
        elif mine[result.game_id] > result.rank:
            behind += 1
        else:
            level += 1
    return HeadToHead(opponent.pk, opponent.public_name, ahead + behind + level, ahead, behind, level)


def _opponents(user: User, reader: Any) -> list[tuple[int, str]]:
    """The people ``user`` has finished games with that ``reader`` may see (for choosing a head-to-head)."""
    games = SeatResult.objects.filter(user=user, game__in=_seen_games(reader)).values("game_id")
    people = (
        User.objects.filter(seat_results__game_id__in=games)
        .exclude(pk=user.pk)
        .exclude(profile_setting__hidden=True)
        .distinct()
        .order_by("display_name", "email")
    )
    return [(person.pk, person.public_name) for person in people[:100]]


def profile_of(user: User, *, reader: Any, opponent: User | None = None) -> Profile:
    """``user``'s profile as ``reader`` (maybe anonymous) may read it. The
    totals and ratings count every game; the games it names are those ``reader`` may see."""
    results = SeatResult.objects.filter(user=user)
    totals = results.aggregate(games=Count("pk"), wins=Count("pk", filter=Q(won=True)), average=Avg("score"))
    per_count = {
        row["players"]: CountRecord(row["players"], row["games"], row["wins"])
        for row in results.values("players").annotate(games=Count("pk"), wins=Count("pk", filter=Q(won=True)))
    }
    average = totals["average"]
    return Profile(
        user=user,
        hidden=is_hidden(user),
        games=totals["games"],
        wins=totals["wins"],
        average_score=round(average, 2) if average is not None else None,
        by_players=[per_count.get(n, CountRecord(n, 0, 0)) for n in PLAYER_COUNTS],
        ratings=_ratings(user, reader),
        recent=_recent(results, user, reader),
        head_to_head=head_to_head(user, opponent, reader) if opponent is not None else None,
        opponents=_opponents(user, reader),
    )


@dataclass(frozen=True)
class LeaderboardEntry:
    position: int
    player_id: int | None
    name: str
    bot: str
    rating: float
    games: int
    provisional: bool


def leaderboard(players: int, *, established_only: bool = False, limit: int = 100) -> list[LeaderboardEntry]:
    """The ratings of ``players``-player games, best first: people whose profile
    is visible, and the bots (so that people see the numbers they aim at)."""
    ratings = (
        Rating.objects.filter(players=players, games__gt=0)
        .exclude(user__profile_setting__hidden=True)
        .exclude(user__is_active=False, user__closed__isnull=True)  # a closed account stays, as "former player N"
        .select_related("user")
        .annotate(shown=F("mu") - 3 * F("sigma"))
        .order_by("-shown", "pk")
    )
    if established_only:
        ratings = ratings.filter(games__gte=PROVISIONAL_GAMES)
    return [
        LeaderboardEntry(
            position,
            rating.user_id,
            rating.user.public_name if rating.user is not None else "",
            rating.bot,
            shown_rating(rating.mu, rating.sigma),
            rating.games,
            rating.provisional,
        )
        for position, rating in enumerate(ratings[:limit], start=1)
    ]


def set_hidden(*, user: User, hidden: bool) -> None:
    ProfileSetting.objects.update_or_create(user=user, defaults={"hidden": hidden})

"""Rating games: OpenSkill's Weng–Lin model with Plackett–Luce ranking.

A game is rated when it finishes with every seat taken (not abandoned), in
the transaction that finishes it. A game of people only moves their ratings.
A game of people and bots moves only the bots' ratings, against the people's
as they stand, so that each kind of bot gets a number on the people's scale
that they can aim at, and nobody's rating depends on whom they let a bot
play. Bot-only games are not rated. Ranks follow the final scores, the
winners (after R19's tie-breaks) first; a player who resigned is last.
``recompute`` replays every finished game in the order they finished and
gives the same numbers as the live updates.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from datetime import datetime

from django.db import transaction
from openskill.models import PlackettLuce

from games import store
from games.engine import GameState
from games.models import Game, Seat

from .models import Rating, RatingChange, SeatResult
from .placing import ranks
from .results import record_results

MODEL = PlackettLuce()

__all__ = ["MODEL", "ranks", "rate_game", "recompute"]


def _rating(seat: Seat, players: int) -> Rating:
    default = MODEL.rating()
    rating, _ = Rating.objects.get_or_create(
        user=seat.user,
        bot=seat.bot if seat.user_id is None else "",
        players=players,
        defaults={"mu": default.mu, "sigma": default.sigma},
    )
    return rating


def rate_game(game: Game, seats: Sequence[Seat], state: GameState, when: datetime) -> list[RatingChange]:
    """Rate ``game``, finished in ``state``, if it is rated; the changes made."""
    if game.status != Game.Status.FINISHED or not state.is_finished or not all(s.is_filled for s in seats):
        return []
    people = [s for s in seats if s.user_id is not None]
    if not people:
        return []
    players = len(seats)
    order = sorted(seats, key=lambda s: (s.user_id or 0, s.bot))  # lock in one order: no deadlock
    by_seat = {s.index: _rating(s, players) for s in order}
    locked = {r.pk: r for r in Rating.objects.select_for_update().filter(pk__in=[r.pk for r in by_seat.values()])}
    seat_ratings = {index: locked[r.pk] for index, r in by_seat.items()}
    indexes = sorted(seat_ratings)
    teams = [[MODEL.create_rating([seat_ratings[i].mu, seat_ratings[i].sigma])] for i in indexes]
    placed = ranks(state)
    new = MODEL.rate(teams, ranks=[placed[i] for i in indexes])
    rated_bots = any(s.bot for s in seats)
    outcomes: dict[int, list[tuple[float, float, int]]] = defaultdict(list)  # rating pk -> (mu, sigma, rank)
    for i, team in zip(indexes, new, strict=True):
        rating = seat_ratings[i]
        if rated_bots and not rating.bot:
            continue  # people's ratings move only in games of people
        outcomes[rating.pk].append((team[0].mu, team[0].sigma, placed[i]))
    changes = []
    for pk, results in outcomes.items():
        rating = locked[pk]
        mu = sum(r[0] for r in results) / len(results)  # a bot in several seats: the mean of its seats
        sigma = sum(r[1] for r in results) / len(results)
        changes.append(
            RatingChange(
                rating=rating,
                game=game,
                rank=min(r[2] for r in results),
                mu_before=rating.mu,
                sigma_before=rating.sigma,
                mu_after=mu,
                sigma_after=sigma,
                created=when,
            )
        )
        rating.mu, rating.sigma, rating.games, rating.updated = mu, sigma, rating.games + 1, when
        rating.save(update_fields=["mu", "sigma", "games", "updated"])
    RatingChange.objects.bulk_create(changes)
    return changes


def recompute() -> int:
    """Every rating again from the finished games, in the order they finished;
    the number of games rated."""
    rated = 0
    with transaction.atomic():
        Rating.objects.all().delete()
        SeatResult.objects.all().delete()
        finished = store.with_seats(Game.objects.filter(status=Game.Status.FINISHED, finished__isnull=False))
        for game in finished.order_by("finished", "pk"):
            state = store.state_of(game)
            assert game.finished is not None
            if state is None:
                continue
            seats = list(game.seats.all())
            changes = rate_game(game, seats, state, game.finished)
            record_results(game, seats, state, game.finished, changes)
            rated += bool(changes)
    return rated

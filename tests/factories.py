"""Builders of the objects the tests play with: games in every stage, played
forward through the services (never by writing rows), so a test starts where a
person would be. Fixtures in tests/conftest.py wrap the common ones."""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from django.utils import timezone

from accounts.models import User
from games import engine, services, store
from games.engine.bots import greedy_bot, random_bot
from games.models import Game, GameReview
from games.services import play
from webhooks.models import Delivery, Endpoint


def two_player_game(
    first: User,
    second: User,
    *,
    start_player: int = 0,
    name: str = "",
    public: bool = False,
    reminders: services.ReminderPolicy | None = None,
) -> Game:
    """``first`` (seat 0) invites ``second`` (seat 1), who joins: the last seat
    taken deals the game. ``start_player`` selects first; ``public`` lets anyone watch."""
    game = services.create_game(
        creator=first,
        options={"players": 2, "start_player": start_player},
        seats=[services.SeatSpec("me"), services.SeatSpec("invite", email=second.email)],
        reminders=reminders,
        name=name,
    )
    services.join_game(game=game, user=second)
    if public:
        Game.objects.filter(pk=game.pk).update(public=True)
    game.refresh_from_db()  # the last seat taken: it started by itself
    return game


def resigned_game(alice: User, bob: User, captured: Any) -> Game:
    """Alice and bob's game, over because bob resigned, with what waited for the commit run
    (``captured``: pytest-django's ``django_capture_on_commit_callbacks``)."""
    game = two_player_game(alice, bob)
    with captured(execute=True):
        resign(game, bob)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    return game


def open_game(creator: User, *, players: int = 2) -> Game:
    """``creator``'s new game in the lobby: her seat and open seats anyone may take."""
    seats = [services.SeatSpec("me")] + [services.SeatSpec("open")] * (players - 1)
    return services.create_game(creator=creator, options={"players": players}, seats=seats)


def invitation(creator: User, invitee: User) -> Game:
    """``creator``'s new two-player game: her seat and one for ``invitee``, who has not joined yet."""
    return services.create_game(
        creator=creator,
        options={"players": 2},
        seats=[services.SeatSpec("me"), services.SeatSpec("invite", email=invitee.email)],
    )


def watched(game: Game) -> Game:
    """``game`` made public: anyone may watch it (a private game is its players' alone)."""
    game.public = True
    game.save(update_fields=["public"])
    return game


def resign(game: Game, user: User) -> None:
    game.refresh_from_db()
    services.submit_action(game_id=game.public_id, user=user, action=engine.Resign(), expected_version=game.version)


def act(game: Game, action: engine.Action | str) -> None:
    """The seat to act plays ``action`` (an action or its notation) through the services."""
    game.refresh_from_db()
    if isinstance(action, str):
        action = engine.parse_action(action)
    assert game.to_act_seat is not None
    seat = game.seats.select_related("user").get(index=game.to_act_seat)
    assert seat.user is not None, "a bot's turn: use services.play_bot_turns"
    services.submit_action(
        game_id=game.public_id,
        user=seat.user,
        action=action,
        expected_version=game.version,
    )
    game.refresh_from_db()


def greedy_move(game: Game) -> engine.Action:
    """The greedy bot's choice for the seat to act (deterministic per version)."""
    game.refresh_from_db()
    state = store.state_of(game)
    assert state is not None
    assert state.to_act is not None
    return greedy_bot(engine.player_view(state, state.to_act), random.Random(game.version))


def play_until(game: Game, done: Callable[[Game], bool], limit: int = 400) -> None:
    """Human seats play greedy moves (bots are run after each) until ``done(game)``."""
    for _ in range(limit):
        game.refresh_from_db()
        if done(game):
            return
        assert game.status == Game.Status.ACTIVE, "the game ended before the condition was met"
        act(game, greedy_move(game))
        services.play_bot_turns(game_id=game.public_id)
    raise AssertionError("the condition was never met")


def placement_turn_of(game: Game, seat: int) -> None:
    """Play on until ``seat`` is to place a piece."""
    play_until(game, lambda g: g.phase == engine.PLACEMENT and g.to_act_seat == seat)


def digest_time(days: int = 0) -> datetime:
    """Late on today's date (UTC), plus ``days``: past every default digest hour (8:00), so a
    digest is due whatever the time a test runs at (a bare now() is before 8:00 at night)."""
    return (timezone.now() + timedelta(days=days)).replace(hour=23, minute=0, second=0, microsecond=0)


def select_all(game: Game) -> engine.GameState:
    """Play every selection of the round (smallest pieces first); returns the state after."""
    while True:
        game.refresh_from_db()
        state = store.state_of(game)
        assert state is not None
        if state.phase != engine.SELECTION:
            return state
        colour = state.selecting_colour
        assert colour is not None
        assert state.to_act is not None
        seat = game.seats.get(index=state.to_act)
        assert seat.user is not None
        reserve = state.reserve[colour]
        pieces = [s for s in (1, 2, 3, 4) for _ in range(reserve[s - 1])][: state.options.pieces_per_round]
        services.submit_action(
            game_id=game.public_id,
            user=seat.user,
            action=engine.SelectPieces(pieces=tuple(pieces)),
            expected_version=game.version,
        )


def play_one(game, user) -> None:
    """``user`` takes a legal action through the service the API calls."""
    loaded = store.load(game.public_id)
    seat = loaded.seat_of(user)
    action = random_bot(engine.player_view(loaded.state, seat.index), random.Random(loaded.game.version))
    play.submit_action(game_id=game.public_id, user=user, action=action, expected_version=loaded.game.version)


def webhook_delivery(endpoint: Endpoint, seq: int = 1) -> Delivery:
    """A queued delivery as a move would write it."""
    return Delivery.objects.create(
        endpoint=endpoint,
        event_id=f"msg_{endpoint.pk}_{seq}",
        event_type="game.move",
        payload={"type": "game.move", "timestamp": "2026-01-01T00:00:00Z", "data": {"seq": seq}},
    )


def two_player_bot_game(alice: User) -> Game:
    game = services.create_game(
        creator=alice,
        options={"players": 2, "start_player": 0},
        seats=[services.SeatSpec("me"), services.SeatSpec("bot", bot="greedy")],
    )
    game.refresh_from_db()
    return game


def two_known_marks(game: Game) -> None:
    """Exactly two marks in the game's stored review, a mistake and a blunder, on seat 0's
    first and last placements: a tiny search budget marks moves by chance, and a test that
    steps through the marked moves needs two certain ones, on boards that differ."""
    review = GameReview.objects.get(game=game)
    moves = [dict(row, mark=None) for row in review.moves]
    placements = [row for row in moves if row["kind"] == "placement" and row["seat"] == 0]
    assert len(placements) >= 4
    placements[0]["mark"], placements[-1]["mark"] = "mistake", "blunder"
    review.moves = moves
    review.save(update_fields=["moves"])


def play_to_end(game: Game, alice: User) -> None:
    """Alice plays her first legal move each turn, the bot its own, to the end."""
    for _ in range(500):
        services.play_bot_turns(game_id=game.public_id)
        game.refresh_from_db()
        if game.status == Game.Status.FINISHED:
            return
        state = store.state_of(game)
        assert state is not None
        action = engine.enumerate_actions(engine.player_view(state, 0))[0]
        services.submit_action(game_id=game.public_id, user=alice, action=action, expected_version=game.version)
    raise AssertionError("the game did not finish")


def legal_moves(game: Game, seat: int) -> list[engine.Action]:
    """The seat's legal actions, resigning aside."""
    game.refresh_from_db()
    state = store.state_of(game)
    assert state is not None
    return [a for a in engine.enumerate_actions(engine.player_view(state, seat)) if not isinstance(a, engine.Resign)]


def a_legal_move(game: Game, seat: int = 0) -> dict[str, Any]:
    """The first of the seat's legal actions (resigning aside), as JSON."""
    moves = legal_moves(game, seat)
    assert moves, f"seat {seat} has nothing to do"
    return engine.action_to_json(moves[0])

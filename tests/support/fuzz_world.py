"""The world the API fuzzer (tests/support/fuzz.py) plays in: the player, the
opponent and the stranger with their tokens, a game of each kind (active; lobby
with an open seat; lobby with every seat taken; finished) kept in its state as
the run goes on, and valid bodies for POST /games."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from accounts.models import User
    from games.models import Game

PLAYER, STRANGER = "player", "stranger"
IDENTITIES = (PLAYER, STRANGER)
GAME_KINDS = ("active", "lobby", "ready", "finished")


@dataclass
class World:
    """Users, tokens and games the cases point at."""

    users: dict[str, User]
    opponent: User
    tokens: dict[str, str]
    """Raw bearer token of each identity."""
    token_pks: dict[str, int]
    spare_tokens: dict[str, int]
    """A second token of each identity, for DELETE /tokens/{token_id}."""
    games: dict[str, Game] = field(default_factory=dict)
    replaced: int = 0
    rng: random.Random = field(default_factory=lambda: random.Random(0))

    def make(self, kind: str) -> Game:
        from games import services
        from games.engine import Resign

        player = self.users[PLAYER]
        if kind == "active":
            return start_two_player_game(player, self.opponent)
        if kind == "finished":
            game = start_two_player_game(player, self.opponent)
            services.submit_action(
                game_id=game.public_id,
                user=self.opponent,
                action=Resign(),
                expected_version=game.version,
            )
            game.refresh_from_db()
            return game
        open_seat = "open" if kind == "lobby" else "invite"
        game = services.create_game(
            creator=player,
            options={"players": 2},
            seats=[services.SeatSpec("me"), services.SeatSpec(open_seat, email=self.opponent.email)],
        )
        if kind == "ready":
            services.join_game(game=game, user=self.opponent)
        return game

    def in_its_state(self, kind: str, game: Game) -> bool:
        from games.models import Game

        if kind in ("active", "finished"):
            return game.status == kind
        if game.status != Game.Status.LOBBY:
            return False
        filled = [seat.is_filled for seat in game.seats.all()]
        return all(filled) if kind == "ready" else not all(filled)

    def refresh(self) -> None:
        """Let the opponent move, and replace any game that left its state (finished, started, joined)."""
        self.let_the_opponent_move()
        for kind in GAME_KINDS:
            game = self.games.get(kind)
            if game is not None:
                game.refresh_from_db()
                if self.in_its_state(kind, game):
                    continue
                self.replaced += 1
            self.games[kind] = self.make(kind)
        self.let_the_opponent_move()

    def let_the_opponent_move(self) -> None:
        """While it is the opponent's turn in the active game, they make a random legal move (never resign)."""
        from games import engine, services, store
        from games.models import Game

        game = self.games.get("active")
        for _ in range(10):
            if game is None:
                return
            game.refresh_from_db()
            if game.status != Game.Status.ACTIVE or game.to_act_seat is None:
                return
            seat = game.seats.get(index=game.to_act_seat)
            if seat.user_id != self.opponent.pk:
                return
            state = store.state_of(game)
            assert state is not None
            choices = engine.enumerate_actions(engine.player_view(state, seat.index))
            moves = [a for a in choices if not isinstance(a, engine.Resign)] or choices
            services.submit_action(
                game_id=game.public_id,
                user=self.opponent,
                action=self.rng.choice(moves),
                expected_version=game.version,
            )


def start_two_player_game(first: User, second: User) -> Game:
    from tests.factories import two_player_game

    # Public, so that a stranger reads its public view.
    return two_player_game(first, second, public=True)


def build_world(prefix: str = "fuzz") -> World:
    """The player, the opponent and the stranger, the identities' tokens, and a game of each kind."""
    from accounts.models import User
    from accounts.services import create_api_token

    users = {
        PLAYER: User.objects.create_user(email=f"{prefix}-player@example.com"),
        STRANGER: User.objects.create_user(email=f"{prefix}-stranger@example.com"),
    }
    opponent = User.objects.create_user(email=f"{prefix}-opponent@example.com")
    tokens, token_pks, spare = {}, {}, {}
    for name, user in users.items():
        new = create_api_token(user=user, name="fuzzing")
        tokens[name], token_pks[name] = new.raw, new.token.pk
        spare[name] = create_api_token(user=user, name="spare").token.pk
    world = World(users=users, opponent=opponent, tokens=tokens, token_pks=token_pks, spare_tokens=spare)
    world.refresh()
    return world


# Valid bodies for POST /games (the fuzzer alone rarely meets the rules across fields).
GAME_BODIES: list[dict[str, Any]] = [
    {"seats": [{"kind": "me"}, {"kind": "open"}]},
    {"options": {"players": 3, "six_rounds": True}, "seats": [{"kind": "me"}, {"kind": "open"}, {"kind": "open"}]},
    {"seats": [{"kind": "open"}, {"kind": "bot", "bot": "greedy"}]},
    {
        "options": {"players": 4, "sides": ["N", "E", "S", "W"], "start_player": 3, "copies_per_position": 2},
        "seats": [
            {"kind": "me"},
            {"kind": "invite", "email": "someone@example.com"},
            {"kind": "bot", "bot": "random"},
            {"kind": "open"},
        ],
    },
]

"""Locust: whole 4-player games over HTTP, for anyone with a bigger machine than ours.

Each simulated user is a table of four players: over the API it creates a game (the
creator invites the other three by email), they join, the creator starts it, and it is
played to its end — for whoever is to act, ``GET …/legal-actions`` and then ``POST
…/actions`` with a random legal action and ``expected_version`` — and then the next one.
No user waits between requests: the load is what the server can take.

The players' API tokens come from a JSON file that the setup command writes, run where the
site's database is reachable with the site's environment (``DATABASE_URL`` …); it creates
the users in that database and a token for each over the API (in process):

    python -m benchmarks.locustfile --players 400 --out players.json
    PLAYERS_FILE=players.json locust -f benchmarks/locustfile.py --host http://127.0.0.1:8000

The server must allow the load: raise ``THROTTLE_USER`` and ``THROTTLE_GAME_CREATE``
(docs/benchmarks.md). ``locust`` is in the ``bench`` extra: ``pip install -e '.[bench]'``.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import random
import sys
from pathlib import Path
from typing import Any

if __name__ != "__main__":  # loaded by locust, which puts only benchmarks/ on the path
    from locust import HttpUser, constant, task  # type: ignore[import-not-found, unused-ignore]

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from benchmarks.harness import choose_action

    _tables: Any = None

    def next_table() -> list[dict[str, str]]:
        """Four players, in turn from the file: users beyond its tables share them (a
        player may sit at several games at once)."""
        global _tables
        if _tables is None:
            players = json.loads(Path(os.environ.get("PLAYERS_FILE", "players.json")).read_text())
            _tables = itertools.cycle([players[i : i + 4] for i in range(0, len(players) - 3, 4)])
        return list(next(_tables))

    class Table(HttpUser):
        wait_time = constant(0)

        def on_start(self) -> None:
            self.players = next_table()
            self.headers = [{"Authorization": f"Bearer {p['token']}"} for p in self.players]
            self.rng = random.Random()

        def post(self, path: str, body: Any, seat: int, name: str) -> Any:
            response = self.client.post(path, json=body, headers=self.headers[seat], name=name)
            return response.json() if response.ok else None  # a failure is already counted by locust

        @task  # type: ignore[untyped-decorator, unused-ignore]
        def play_a_game(self) -> None:
            seats = [{"kind": "me"}] + [{"kind": "invite", "email": p["email"]} for p in self.players[1:]]
            game = self.post("/api/v1/games", {"options": {"players": 4}, "seats": seats}, 0, "/api/v1/games")
            if game is None:
                return
            url = f"/api/v1/games/{game['id']}"
            for seat in (1, 2, 3):
                if self.post(f"{url}/join", {}, seat, "/api/v1/games/[id]/join") is None:
                    return
            # The last join dealt the game: read it as the creator sees it.
            started = self.client.get(url, headers=self.headers[0], name="/api/v1/games/[id]")
            game = started.json() if started.ok else None
            while game is not None and game["status"] == "active":
                seat = game["to_act_seat"]
                response = self.client.get(
                    f"{url}/legal-actions", headers=self.headers[seat], name="/api/v1/games/[id]/legal-actions"
                )
                if not response.ok:
                    return
                legal = response.json()
                body = {"action": choose_action(legal, self.rng), "expected_version": legal["version"]}
                played = self.post(f"{url}/actions", body, seat, "/api/v1/games/[id]/actions")
                game = played["game"] if played is not None else None


def setup(argv: list[str] | None = None) -> None:
    """Create ``--players`` users in the site's database, each with an API token, into ``--out``."""
    parser = argparse.ArgumentParser(description="Create players and their API tokens for the locustfile.")
    parser.add_argument("--players", type=int, default=40, help="a multiple of 4")
    parser.add_argument("--out", default="players.json")
    args = parser.parse_args(argv)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "manhattan_site.settings")
    import django
    from django.conf import settings

    django.setup()
    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "testserver"]  # the test client's host, in this process
    from benchmarks.harness import new_players

    players = [player._asdict() for player in new_players(args.players, prefix="locust")]
    Path(args.out).write_text(json.dumps(players, indent=1))
    print(f"{len(players)} players written to {args.out}")


if __name__ == "__main__":
    setup()

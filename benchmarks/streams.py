"""Live event streams: how many one process holds, their memory, and how fast a move reaches them.

    python -m benchmarks.streams                 # 1,000 open streams, 100 listening, 40 moves
    python -m benchmarks.streams --quick --json  # a smoke run (100 streams, 20 listening, 5 moves)

One ASGI server process (uvicorn, as a gunicorn worker runs it) on a scratch
PostgreSQL database, with Redis pub/sub for the wake-ups (``--redis-url``; an
empty value uses the in-process wake-ups instead). This process makes the
players and the game, opens the streams as raw sockets (a client as thin as
it gets, so the server is what is measured), and plays the moves through
Django in this process — another process than the server's, as a second web
process would — timing each move from its commit (an ``on_commit`` hook) to
its event arriving on each listening stream.

Figures: whether every one of ``--streams`` streams opened and received the
next move (one process holds them); the server's resident memory per open
stream (its RSS with the streams open minus before, divided by their number);
and the median, p99 and maximum time from a committed move to its event over
``--listeners`` streams and ``--moves`` moves.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import socket
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any

from benchmarks import harness

DEFAULT_REDIS = "redis://127.0.0.1:6379/12"


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Streams:
    """Open SSE connections on an event loop in a thread: when each event id arrived."""

    def __init__(self, port: int, path: str, token: str) -> None:
        self.port, self.path, self.token = port, path, token
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.arrivals: dict[int, list[float]] = {}  # event id -> arrival times (perf_counter)
        self.writers: list[asyncio.StreamWriter] = []
        self.refused = 0

    def run(self, coroutine: Any, timeout: float = 300) -> Any:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout)

    async def _open_one(self, after: int) -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", self.port, limit=1 << 20)
        writer.write(
            (
                f"GET {self.path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {self.token}\r\n"
                f"Accept: text/event-stream\r\nLast-Event-ID: {after}\r\n\r\n"
            ).encode()
        )
        status = await reader.readline()
        if b" 200 " not in status:
            self.refused += 1
            writer.close()
            return
        while (await reader.readline()) not in (b"\r\n", b""):
            pass  # the headers
        self.writers.append(writer)
        self.loop.create_task(self._read(reader))

    async def _read(self, reader: asyncio.StreamReader) -> None:
        while line := await reader.readline():
            if line.startswith(b"id: "):
                self.arrivals.setdefault(int(line[4:]), []).append(time.perf_counter())

    async def _open(self, count: int, after: int) -> None:
        for start in range(0, count, 50):  # in batches, as clients arrive
            await asyncio.gather(*(self._open_one(after) for _ in range(min(50, count - start))))

    def open(self, count: int, after: int) -> None:
        self.run(self._open(count, after))

    async def _close(self) -> None:
        for writer in self.writers:
            writer.close()

    def close(self) -> None:
        self.run(self._close())
        self.loop.call_soon_threadsafe(self.loop.stop)


def wait_for(streams: Streams, seq: int, count: int, timeout: float = 30) -> bool:
    deadline = time.monotonic() + timeout
    while len(streams.arrivals.get(seq, [])) < count:
        if time.monotonic() > deadline:
            return False
        time.sleep(0.002)
    return True


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def measure(args: argparse.Namespace) -> dict[str, Any]:
    work = Path(tempfile.mkdtemp(prefix="bench-streams-"))
    channel = f"bench-streams-{uuid.uuid4().hex[:8]}"
    extra = {"STREAMS_PER_USER": "100000", "STREAMS_CHANNEL": channel, "STREAMS_HEARTBEAT_SECONDS": "15"}
    if args.redis_url:
        extra["REDIS_URL"] = args.redis_url
    env = harness.site_env(args.database_url, str(work), **extra)
    harness.recreate_database(args.database_url)
    harness.setup_django(env)

    from django.db import transaction

    from games.models import Game
    from games.signals import Appended, events_appended

    committed: dict[int, float] = {}

    def remember_commit(sender: Any, *, appended: Appended, **kwargs: Any) -> None:
        last = appended.last_seq
        transaction.on_commit(lambda: committed.__setitem__(last, time.perf_counter()))

    events_appended.connect(remember_commit, weak=False)
    api = harness.Api()
    players = harness.new_players(2, prefix="streams")
    game = harness.new_game(api, players)
    rng = random.Random(args.seed)

    def move() -> int:
        nonlocal game
        token = players[game["to_act_seat"]].token
        url = f"/api/v1/games/{game['id']}"
        legal = api.call("GET", f"{url}/legal-actions", token)
        body = {"action": harness.choose_action(legal, rng), "expected_version": legal["version"]}
        game = api.call("POST", f"{url}/actions", token, body)["game"]
        if game["status"] != "active":
            raise RuntimeError("the game ended: fewer moves, please")
        return int(game["version"])

    port = free_port()
    command = [
        sys.executable, "-m", "uvicorn", "manhattan_site.asgi:application",
        "--port", str(port), "--log-level", "warning", "--no-access-log", "--backlog", "4096",
    ]  # fmt: skip
    results: dict[str, Any] = {"streams": args.streams, "listeners": args.listeners, "moves": args.moves}
    results["wake_ups"] = "redis" if args.redis_url else "in-process"
    with harness.subprocess_in_session(command, env, work / "server.log") as server:
        path = f"/api/v1/games/{game['id']}/stream"

        def answers() -> bool:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    return True
            except OSError:
                return False

        harness.wait_until(answers, 30, "the ASGI server")
        version = int(Game.objects.get(public_id=game["id"]).version)
        # Warm up: imports, the thread pool and its connections, the Redis subscription.
        warm = Streams(port, path, players[1].token)
        warm.open(5, version)
        version = move()
        wait_for(warm, version, 5)
        warm.close()
        time.sleep(1)
        before = rss_kib(server.pid)

        # 1. One process holds --streams open streams, and each hears the next move.
        many = Streams(port, path, players[1].token)
        started = time.perf_counter()
        many.open(args.streams, version)
        opened = time.perf_counter() - started
        time.sleep(1)
        held = rss_kib(server.pid)
        version = move()
        everyone = wait_for(many, version, len(many.writers), timeout=60)
        fan_out = [t - committed[version] for t in many.arrivals.get(version, [])]
        results.update(
            opened=len(many.writers),
            refused=many.refused,
            open_seconds=round(opened, 2),
            all_received=everyone,
            fan_out_ms={"p50": round(harness.median(fan_out) * 1000, 1), "max": round(max(fan_out) * 1000, 1)},
            rss_before_mib=round(before / 1024, 1),
            rss_with_streams_mib=round(held / 1024, 1),
            kib_per_stream=round((held - before) / max(1, len(many.writers)), 1),
        )
        many.close()
        time.sleep(2)

        # 2. Move to event on --listeners streams, --moves times.
        listening = Streams(port, path, players[1].token)
        listening.open(args.listeners, version)
        time.sleep(0.5)
        latencies: list[float] = []
        missing = 0
        for _ in range(args.moves):
            version = move()
            if not wait_for(listening, version, len(listening.writers), timeout=10):
                missing += 1
            latencies += [t - committed[version] for t in listening.arrivals.get(version, [])]
            time.sleep(0.05)
        listening.close()
        results.update(
            listening=len(listening.writers),
            events_missing=missing,
            latency_ms={
                "p50": round(harness.median(latencies) * 1000, 1),
                "p99": round(percentile(latencies, 0.99) * 1000, 1),
                "max": round(max(latencies) * 1000, 1),
            },
        )
    harness.drop_database(args.database_url)
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--streams", type=int, help="streams held open at once (1000; 100 with --quick)")
    parser.add_argument("--listeners", type=int, help="streams timed per move (100; 20 with --quick)")
    parser.add_argument("--moves", type=int, help="moves timed (40; 5 with --quick)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--quick", action="store_true", help="a smoke run")
    parser.add_argument("--json", action="store_true", help="the results as JSON on stdout")
    parser.add_argument("--redis-url", default=DEFAULT_REDIS, help="wake-ups through Redis ('' for in-process)")
    parser.add_argument("--database-url", default=harness.DEFAULT_DATABASE + "_streams", help="scratch (dropped)")
    args = parser.parse_args(argv)
    args.streams = args.streams or (100 if args.quick else 1000)
    args.listeners = args.listeners or (20 if args.quick else 100)
    args.moves = args.moves or (5 if args.quick else 40)
    results = measure(args)
    if args.json:
        print(json.dumps(results))
        return 0
    fan_out, latency = results["fan_out_ms"], results["latency_ms"]
    rss = f"{results['rss_before_mib']} / {results['rss_with_streams_mib']} MiB"
    print(
        harness.table(
            ["figure", "value"],
            [
                ["wake-ups", results["wake_ups"]],
                ["streams held open by one process", f"{results['opened']} of {results['streams']}"],
                ["... all received the next move", results["all_received"]],
                ["... time to open them", f"{results['open_seconds']} s"],
                ["... commit to event, median / slowest", f"{fan_out['p50']} / {fan_out['max']} ms"],
                ["server RSS before / with them", rss],
                ["memory per open stream", f"{results['kib_per_stream']} KiB"],
                [f"commit to event on {results['listening']} streams, p50", f"{latency['p50']} ms"],
                ["... p99", f"{latency['p99']} ms"],
                ["... max", f"{latency['max']} ms"],
                ["events missing", results["events_missing"]],
            ],
        )
    )  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

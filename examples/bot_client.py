#!/usr/bin/env python3
"""A bot for Manhattan by mail, on HTTP and Server-Sent Events only (standard library).

    python3 bot_client.py --server https://manhattan.example --client-id ID [--challenge greedy] [--become-bot]

Signs in with the OAuth device grant (RFC 8628: a URL and a code for a person to approve),
listens on GET /api/v1/stream and on "your_turn" (and on each heartbeat, should an event go
astray) plays from GET /api/v1/games/{id}/legal-actions: smallest pieces, first placement.
A dropped stream resumes with Last-Event-ID; without streams it polls.
"""

from __future__ import annotations

import argparse
import http.client
import json
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

SCOPES = "games:read games:play"
DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"


class Api:
    def __init__(self, server: str, token: str = "") -> None:
        self.server, self.token = server.rstrip("/"), token

    def call(self, method: str, path: str, body: Any = None, form: dict[str, str] | None = None) -> tuple[int, Any]:
        headers, data = {"Accept": "application/json"}, None
        if form is not None:
            data, headers["Content-Type"] = urllib.parse.urlencode(form).encode(), "application/x-www-form-urlencoded"
        elif body is not None:
            data, headers["Content-Type"] = json.dumps(body).encode(), "application/json"
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        request = urllib.request.Request(self.server + path, data=data, headers=headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                raw = response.read()
                return response.status, json.loads(raw) if raw else None
        except urllib.error.HTTPError as error:  # a problem body (or OAuth's error body)
            return error.code, json.loads(error.read() or b"null")


def device_login(api: Api, client_id: str) -> str:
    """The device grant: show the code, wait for a person to approve it."""
    status, codes = api.call("POST", "/oauth/device-authorization/", form={"client_id": client_id, "scope": SCOPES})
    if status != 200:
        sys.exit(f"device authorization refused: {codes}")
    print(f"To connect this bot, open {codes['verification_uri']} and enter the code {codes['user_code']}", flush=True)
    print(f"(or open {codes.get('verification_uri_complete', codes['verification_uri'])})", flush=True)
    interval = int(codes.get("interval", 5))
    deadline = time.monotonic() + int(codes.get("expires_in", 600))
    form = {"grant_type": DEVICE_GRANT, "device_code": codes["device_code"], "client_id": client_id}
    while time.monotonic() < deadline:
        time.sleep(interval)
        status, answer = api.call("POST", "/oauth/token/", form=form)
        if status == 200:
            print("Connected.", flush=True)
            return str(answer["access_token"])
        error = answer.get("error") if isinstance(answer, dict) else None
        if error == "slow_down":
            interval += 5
        elif error != "authorization_pending":
            sys.exit(f"the device was not connected: {answer}")
    sys.exit("the code expired before anyone approved it")


def choose(legal: dict[str, Any]) -> dict[str, Any]:
    """The simple policy: the smallest pieces, or the first legal placement."""
    selection = legal.get("selection")
    if selection:
        sizes = [int(size) for size, n in sorted(selection["reserve"].items()) for _ in range(n)]
        return {"type": "select", "pieces": sizes[: selection["count"]], "colour": selection["colour"]}
    card = legal["placements"][0]
    option = card["options"][0]
    return {"type": "place", "card": card["card"], "city": option["city"], "size": option["size"],
            "colour": option["colour"]}  # fmt: skip


def play_turns(api: Api, game_id: str) -> None:
    """Move while it is my turn (a stale version just means: look again)."""
    while True:
        status, legal = api.call("GET", f"/api/v1/games/{game_id}/legal-actions")
        if status != 200 or not legal["my_turn"]:
            return
        action = choose(legal)
        status, answer = api.call(
            "POST", f"/api/v1/games/{game_id}/actions", {"action": action, "expected_version": legal["version"]}
        )
        print(f"{game_id[:8]} v{legal['version']}: {json.dumps(action)} -> {status}", flush=True)
        if status not in (200, 409):
            print(f"refused: {answer}", file=sys.stderr, flush=True)
            return


def play_waiting_games(api: Api) -> None:
    status, games = api.call("GET", "/api/v1/games?my_turn=true")
    for game in games if status == 200 else []:
        play_turns(api, game["id"])


def finished(api: Api, game_id: str) -> bool:
    return api.call("GET", f"/api/v1/games/{game_id}")[1].get("status") in ("finished", "abandoned")


def open_stream(api: Api, last_id: str | None) -> Any:
    """GET /api/v1/stream, its answer open for reading; None where streams are not served."""
    url = urllib.parse.urlsplit(api.server)
    kind = http.client.HTTPSConnection if url.scheme == "https" else http.client.HTTPConnection
    connection = kind(url.netloc, timeout=60)  # a heartbeat comes every 15 s
    headers = {"Accept": "text/event-stream", "Authorization": f"Bearer {api.token}"}
    if last_id:
        headers["Last-Event-ID"] = last_id  # resume: nothing is lost between two connections
    connection.request("GET", url.path + "/api/v1/stream", headers=headers)
    response = connection.getresponse()
    return response if response.status == 200 else None


def read_events(response: Any) -> Any:
    """Yield (id, data) for each event of an open stream; a heartbeat comment as a "heartbeat" event."""
    event_id, data = None, []
    for raw in response:
        line = raw.decode().rstrip("\r\n")
        if line.startswith(":"):
            yield event_id, {"type": "heartbeat"}
        elif line.startswith("id:"):
            event_id = line[3:].strip()
        elif line.startswith("data:"):
            data.append(line[5:].strip())
        elif not line and data:
            yield event_id, json.loads("\n".join(data))
            data = []


def run(api: Api, stop_after: str | None) -> None:
    """Play on each "your_turn" of the stream; stop once ``stop_after`` is over."""
    last_id = None
    while True:
        try:
            stream = open_stream(api, last_id)  # listening first, so no turn falls between catching up and here
            if stream is None:
                print("No event stream here: polling every 2 s instead.", flush=True)
                return poll(api, stop_after)
            play_waiting_games(api)  # turns that came before the stream opened (or while it was away)
            if stop_after and finished(api, stop_after):
                break
            for last_id, event in read_events(stream):  # noqa: B007 (kept to resume from)
                if event["type"] == "heartbeat":
                    play_waiting_games(api)  # a turn whose event went astray is played all the same
                elif event["type"] in ("your_turn", "game_started"):
                    print(f"stream: {event['type']} in {event['game'][:8]}", flush=True)
                    play_turns(api, event["game"])
                elif event["type"] == "game_over" and event["game"] == stop_after:
                    break
            else:
                continue  # the server ended the stream (idle): resume
            break
        except (OSError, http.client.HTTPException) as error:
            print(f"stream dropped ({error}); resuming", flush=True)
            time.sleep(1)
    print(f"Game {stop_after} is over.", flush=True)


def poll(api: Api, stop_after: str | None) -> None:
    while not (stop_after and finished(api, stop_after)):
        play_waiting_games(api)
        time.sleep(2)
    print(f"Game {stop_after} is over.", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--server", required=True, help="the site, e.g. https://manhattan.example")
    parser.add_argument("--client-id", help="the OAuth app's client id (a public app with the device grant)")
    parser.add_argument("--token", help="skip the device grant: an access token or personal API token")
    parser.add_argument("--challenge", metavar="BOT", help="start a game against this server bot, e.g. greedy")
    parser.add_argument("--become-bot", action="store_true", help="flag the account as a bot account first")
    args = parser.parse_args()
    api = Api(args.server)
    api.token = args.token or device_login(api, args.client_id or parser.error("--client-id or --token"))
    if args.become_bot:
        print("Bot account:", api.call("POST", "/api/v1/me/bot")[1].get("is_bot"), flush=True)
    stop_after = None
    if args.challenge:
        seats = [{"kind": "me"}, {"kind": "bot", "bot": args.challenge}]
        status, game = api.call("POST", "/api/v1/games", {"seats": seats, "options": {"players": 2}})
        if status != 201:
            sys.exit(f"could not create the game: {game}")
        stop_after = game["id"]  # every seat is taken: the game is dealt as it is created
        print(f"Playing game {stop_after} against the {args.challenge} bot.", flush=True)
    run(api, stop_after)


if __name__ == "__main__":
    main()

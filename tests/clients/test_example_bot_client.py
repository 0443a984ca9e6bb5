"""examples/bot_client.py, run as a program would be: it connects with the
device grant (the test approves it as a person would, through the pages),
makes itself a bot account, challenges the server's greedy bot and plays on
the event stream until the game is over; under WSGI, where there are no
streams, it polls instead."""

from __future__ import annotations

import os
import queue
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.test import Client
from oauth2_provider.models import get_application_model

from accounts.models import User
from games.models import Game
from tests.support.bot_turns import bots_move_soon
from tests.support.live_server import end_other_sessions

pytestmark = pytest.mark.slow
SCRIPT = Path(settings.BASE_DIR) / "examples" / "bot_client.py"
CODE = re.compile(r"enter the code (?P<code>[0-9A-Z]+)")


class Program:
    """The example client in a process of its own, its output read line by line."""

    def __init__(self, *args: str) -> None:
        self.process = subprocess.Popen(
            [sys.executable, str(SCRIPT), *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )
        self.lines: queue.Queue[str] = queue.Queue()
        self.output: list[str] = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line)

    def wait_for(self, pattern: re.Pattern[str], timeout: float = 30) -> re.Match[str]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                break
            self.output.append(line)
            if match := pattern.search(line):
                return match
        raise AssertionError("".join(self.output) or "no output")

    def finish(self, timeout: float) -> str:
        """The whole output, once the program has ended (killed after ``timeout``)."""
        try:
            self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            self.output.append(f"\n[killed after {timeout} s]")
        self.reader.join(timeout=10)  # the reader thread takes the last lines: it ends with the output
        while not self.lines.empty():
            self.output.insert(-1 if self.process.returncode < 0 else len(self.output), self.lines.get())
        return "".join(self.output)


@pytest.fixture
def wsgi_server(live_server: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    from games import tasks

    monkeypatch.setattr(tasks.play_bot_turns, "delay", bots_move_soon)
    yield live_server
    end_other_sessions()


def approve(code: str, person: User) -> None:
    """A person enters the code and allows the app, through the pages."""
    browser = Client()
    browser.force_login(person)
    entered = browser.post("/oauth/device/", {"user_code": code})
    assert entered.status_code == 302, entered.content.decode()[:500]
    assert browser.post(entered["Location"], {"action": "accept"}).status_code == 302


def play_through(url: str, *extra: str) -> tuple[str, User]:
    app = get_application_model().objects.create(
        name="Example bot",
        client_type="public",
        authorization_grant_type="urn:ietf:params:oauth:grant-type:device_code",
    )
    person = User.objects.create_user("bot-owner@example.com")
    program = Program("--server", url, "--client-id", app.client_id, "--challenge", "greedy", *extra)
    approve(program.wait_for(CODE)["code"], person)
    output = program.finish(timeout=float(os.environ.get("BOT_CLIENT_TIMEOUT", 300)))
    assert program.process.returncode == 0, output
    assert "is over" in output, output
    game = Game.objects.get(creator=person)
    assert game.status == Game.Status.FINISHED
    assert game.seats.get(index=0).user == person
    person.refresh_from_db()
    return output, person


def test_the_example_bot_plays_a_whole_game_on_the_event_stream(game_server):
    output, person = play_through(game_server.url, "--become-bot")
    assert "polling" not in output
    assert "stream: your_turn" in output  # its turns came by the stream
    assert "Bot account: True" in output
    assert person.is_bot


def test_the_example_bot_polls_where_there_is_no_stream(wsgi_server):
    output, person = play_through(wsgi_server.url)
    assert "polling every 2 s instead" in output
    assert not person.is_bot

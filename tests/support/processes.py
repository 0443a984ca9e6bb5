"""Other processes the tests start: free ports, the test database's URL for
them, ``manage.py`` under the production settings, and the engine's command line."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

from django.db import connection

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def database_url_of_the_tests() -> str:
    """The URL of the test database, for a server process of its own."""
    settings = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{settings['NAME']}"
    return f"postgres://{settings['USER']}@{settings['HOST']}:{settings['PORT']}/{settings['NAME']}"


def manage(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """``manage.py`` as deployed: the production settings, with ``env`` on top."""
    clean = {k: v for k, v in os.environ.items() if k not in ("DJANGO_SETTINGS_MODULE", "DJANGO_ENV", "SECRET_KEY")}
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env={**clean, "DJANGO_SETTINGS_MODULE": "manhattan_site.settings", **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def engine_cli(*args: str) -> subprocess.CompletedProcess[str]:
    """``python -m games.engine``: the simulator and the records' checker."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run(
        [sys.executable, "-m", "games.engine", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )

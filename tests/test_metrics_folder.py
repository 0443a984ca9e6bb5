"""The shared metrics folder: a process's files carry its host name and pid, and a web
worker that ended stops counting its open streams while its counters stay."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.multiprocess import MultiProcessCollector

from manhattan_site.metrics import forget_process, process_name
from tests.support.metrics import value

ROOT = Path(__file__).resolve().parent.parent
COUNT = """
import os
from manhattan_site.metrics import EMAILS, OPEN_STREAMS
EMAILS.labels("sent").inc()
OPEN_STREAMS.inc()
print(os.getpid())
"""


def read(folder: Path) -> str:
    registry = CollectorRegistry()
    MultiProcessCollector(registry, path=str(folder))
    return generate_latest(registry).decode()


def test_a_dead_process_keeps_its_counts_but_not_its_open_streams(tmp_path: Path):
    env = {**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(tmp_path), "DJANGO_SETTINGS_MODULE": ""}
    pid = int(subprocess.run([sys.executable, "-c", COUNT], env=env, cwd=ROOT, capture_output=True, check=True).stdout)
    assert {path.name for path in tmp_path.iterdir()} == {
        f"counter_{process_name(pid)}.db",
        f"gauge_livesum_{process_name(pid)}.db",
    }
    before = read(tmp_path)
    assert value(before, "manhattan_open_streams ") == 1
    forget_process(pid, str(tmp_path))
    after = read(tmp_path)
    assert value(after, "manhattan_open_streams ") == 0
    assert value(after, 'manhattan_emails_total{outcome="sent"}') == 1

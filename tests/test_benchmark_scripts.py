"""Smoke test: the benchmark scripts run and report their figures.

Only that they run and produce positive numbers; how fast the engine is
(the targets) is for the benchmarks themselves, never a unit test.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_engine_benchmark_quick_json() -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "engine.py"), "--quick", "--json"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    results = json.loads(done.stdout)
    figures = results["figures"]
    assert set(figures) == {"games_per_s_4p", "fold_json_ms", "legal_actions_us"}
    for name, fig in figures.items():
        assert isinstance(fig["value"], float), name
        assert fig["value"] > 0, name

#!/usr/bin/env python3
"""The project's two commands, on a fresh machine with nothing but Python 3.11+.

    python3 dev.py serve     set up, migrate, seed a demo, and run the site
    python3 dev.py test      set up and run the checks and the whole test suite
    python3 dev.py test --fast   the same without the tests marked slow (a few minutes)

Both create ``.venv`` and install the project into it the first time (and
again whenever pyproject.toml changes), so there is nothing to do beforehand.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PYTHON = BIN / "python"
# Every dependency, dev tools included, at the versions the tests passed with (docs/operations.md
# says how to update it: uv pip compile pyproject.toml --extra dev --generate-hashes).
LOCK = ROOT / "requirements-dev.lock"
POSTGRES_TEST_URL = "postgres://postgres@127.0.0.1:5432/test"
# One test process per core (pytest-xdist), each with its own test database; a
# file's tests stay in one process, so what a module sets up is set up once.
PARALLEL = ("--numprocesses=auto", "--dist=loadfile")
FAST = ("-m", "not slow")
PG_PASS_SKIPS = (
    "engine",
    "browser",
    "clients",
    "i18n",
    "reliability/test_secret_crawler.py",
    "reliability/test_secret_crawler_self_check.py",
    "test_benchmark_scripts.py",
    "test_dev_commands.py",
    "test_deploy.py",
)


def run(*cmd: str | Path, env: dict[str, str] | None = None) -> None:
    print("+", " ".join(str(c) for c in cmd), flush=True)
    subprocess.run([str(c) for c in cmd], check=True, cwd=ROOT, env=env)


def ensure_venv() -> None:
    """Create the virtual environment and (re)install when pyproject.toml changed."""
    if not PYTHON.exists():
        venv.EnvBuilder(with_pip=True).create(VENV)
    stamp = VENV / ".installed"
    wanted = hashlib.sha256((ROOT / "pyproject.toml").read_bytes() + LOCK.read_bytes()).hexdigest()
    if stamp.exists() and stamp.read_text() == wanted:
        return
    run(PYTHON, "-m", "pip", "install", "--quiet", "--upgrade", "pip")
    # The locked versions, each checked against its hash; then the project without resolving again.
    run(PYTHON, "-m", "pip", "install", "--quiet", "--require-hashes", "-r", LOCK)
    run(PYTHON, "-m", "pip", "install", "--quiet", "--no-deps", "-e", ".")
    stamp.write_text(wanted)


def ensure_node_packages() -> None:
    """The browser tests inject axe-core (an npm package, package.json) into
    pages. Installed when npm is there; without it the accessibility test
    says how to get it (and fails under CI)."""
    if (ROOT / "node_modules" / "axe-core" / "axe.min.js").exists():
        return
    npm = shutil.which("npm")
    if npm is None:
        print("! npm is missing: the accessibility test needs it (apt-get install npm)", flush=True)
        return
    run(npm, "install", "--no-audit", "--no-fund")


def test(args: argparse.Namespace, extra: list[str]) -> None:
    ensure_venv()
    ensure_node_packages()
    if not args.no_lint:
        run(BIN / "ruff", "check", ".")
        run(BIN / "ruff", "format", "--check", ".")
        run(BIN / "mypy", ".")
    base_env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL",)}
    # --fast: everything but the tests marked slow (whole games in a browser, worker and
    # server processes, the benchmark scripts, the longest crawls); every area keeps its quick tests.
    extra = [*FAST, *extra] if args.fast else extra
    # The whole suite on SQLite, the embedded default ...
    run(PYTHON, "-m", "pytest", *PARALLEL, *extra, env=base_env)
    if args.postgres:
        # ... and everything whose outcome can depend on the database again on
        # PostgreSQL (row locks, constraints, JSON, time zones). Left out: the
        # engine (no database), and what only reads rendered pages, catalogues
        # or commands (the same on either database, and slow: browsers, the
        # secret crawler, the benchmark scripts, which use PostgreSQL anyway).
        pg_env = dict(base_env, DATABASE_URL=os.environ.get("TEST_DATABASE_URL", POSTGRES_TEST_URL))
        skip = [f"--ignore=tests/{path}" for path in PG_PASS_SKIPS]
        run(PYTHON, "-m", "pytest", *PARALLEL, *skip, *extra, env=pg_env)


def serve(args: argparse.Namespace) -> None:
    """Migrate, seed the demo, then run a Celery worker (with the beat
    scheduler) beside the ASGI server (uvicorn, reloading on changes), on embedded defaults."""
    ensure_venv()
    env = dict(os.environ)
    # The links in the emails point at the address the site is served on (unless SITE_URL says otherwise).
    env.setdefault("SITE_URL", f"http://{args.addr}")
    run(PYTHON, "manage.py", "migrate", "--noinput", env=env)
    run(PYTHON, "manage.py", "seed_demo", env=env)
    worker_cmd = [
        str(BIN / "celery"), "-A", "manhattan_site", "worker", "--beat", "--loglevel", "INFO",
        "--concurrency", "1", "--queues", "celery,bots", "--schedule", str(ROOT / "var" / "celerybeat-schedule"),
    ]  # fmt: skip
    print("+", " ".join(worker_cmd), flush=True)
    worker = subprocess.Popen(worker_cmd, cwd=ROOT, env=env)
    try:
        print(f"\nThe site: http://{args.addr}/  (admin: http://{args.addr}/admin/, API docs: /api/v1/docs/)\n")
        # ASGI, as in production: the live event streams need it (see manhattan_site/asgi.py).
        host, _, port = args.addr.rpartition(":")
        run(PYTHON, "manage.py", "check", env=env)
        run(PYTHON, "-m", "uvicorn", "manhattan_site.asgi:application", "--host", host or "127.0.0.1",
            "--port", port, "--reload", env=env)  # fmt: skip
    except KeyboardInterrupt:
        pass
    finally:
        worker.terminate()
        worker.wait(timeout=20)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    t = commands.add_parser("test", help="lint, type-check and run the test suite")
    t.add_argument("--postgres", action="store_true", help="also run the database tests on PostgreSQL")
    t.add_argument("--no-lint", action="store_true", help="skip ruff and mypy")
    t.add_argument("--fast", action="store_true", help='leave out the tests marked slow (pytest -m "not slow")')
    s = commands.add_parser("serve", help="set up and run the site, a worker and the scheduler")
    s.add_argument("--addr", default="127.0.0.1:8000", help="address:port for the web server")
    args, extra = parser.parse_known_args()
    try:
        if args.command == "test":
            test(args, extra)
        elif args.command == "serve":
            serve(args)
    except subprocess.CalledProcessError as error:
        sys.exit(error.returncode)


if __name__ == "__main__":
    main()

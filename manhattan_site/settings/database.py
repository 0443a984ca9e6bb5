"""The database: SQLite under var/ by default, PostgreSQL through DATABASE_URL with a
connection pool per process."""

from __future__ import annotations

import dj_database_url

from .core import VAR_DIR
from .environment import env, env_float, env_int

DATABASES = {
    "default": dj_database_url.parse(
        env("DATABASE_URL", f"sqlite:///{VAR_DIR / 'db.sqlite3'}"),
        # Not kept between requests: under ASGI every request may run on a thread of its
        # own, and a connection kept per thread is a connection per thread (the pool below
        # bounds them instead).
        conn_max_age=env_int("DB_CONN_MAX_AGE", 0),
        conn_health_checks=True,
    )
}
# PostgreSQL connections come from a pool per process (psycopg_pool through Django's
# "pool" option): a process never holds more than DB_POOL_MAX_SIZE, opens them as it
# needs them, and closes those idle for DB_POOL_MAX_IDLE seconds. Sizing against the
# server's max_connections: docs/operations.md. DB_POOL_MAX_SIZE=0 turns the pool off.
DB_POOL_MAX_SIZE = env_int("DB_POOL_MAX_SIZE", 8)
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql" and DB_POOL_MAX_SIZE > 0:
    DATABASES["default"]["CONN_MAX_AGE"] = 0  # the pool keeps them; Django must not as well
    DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
        "min_size": env_int("DB_POOL_MIN_SIZE", 0),
        "max_size": DB_POOL_MAX_SIZE,
        "max_idle": env_float("DB_POOL_MAX_IDLE", 60),
        # A request waits this long for a free connection, then fails (503, not a hang).
        "timeout": env_float("DB_POOL_TIMEOUT", 10),
    }
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # IMMEDIATE transactions take SQLite's write lock up front, so two requests
    # racing for one game queue up instead of failing with "database is locked".
    DATABASES["default"]["OPTIONS"] = {"timeout": 20, "transaction_mode": "IMMEDIATE"}
    DATABASES["default"]["CONN_MAX_AGE"] = 0

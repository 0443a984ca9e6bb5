"""Settings for the test suite: the normal settings in test mode.

The database still comes from DATABASE_URL (SQLite by default), so the same
suite runs on PostgreSQL when that is set.
"""

import os

os.environ.setdefault("DJANGO_ENV", "test")

from .settings import *  # noqa: F403

# Tests never wait for a broker: bot turns and emails are scheduled with
# on_commit and asserted or run explicitly (see tests/conftest.py).
CELERY_BROKER_URL = "memory://"
# Search bots think for a fixed number of iterations: fast and the same every run.
BOT_SEARCH_SECONDS = None
BOT_SEARCH_ITERATIONS = 24
REST_FRAMEWORK["DEFAULT_RENDERER_CLASSES"] = ["rest_framework.renderers.JSONRenderer"]  # noqa: F405

# No pool inside the test process: tests race threads that each hold a connection on
# purpose (tests/support/concurrency.py), more than a pool would hand out. Servers started by
# tests run the real settings, pool included (tests/test_database_connections.py).
DATABASES["default"].get("OPTIONS", {}).pop("pool", None)  # noqa: F405

# One test database per process, so that two test runs on one machine never meet.
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":  # noqa: F405
    # A file rather than SQLite's shared in-memory database, so that tests with
    # real threads get real, separately locked connections (see
    # tests/games/test_concurrency.py), as they do on PostgreSQL.
    DATABASES["default"]["TEST"] = {"NAME": str(VAR_DIR / f"test-db-{os.getpid()}.sqlite3")}  # noqa: F405
else:
    DATABASES["default"]["TEST"] = {"NAME": f"test_manhattan_{os.getpid()}"}  # noqa: F405

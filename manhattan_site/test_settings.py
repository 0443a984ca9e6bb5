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
REST_FRAMEWORK["DEFAULT_RENDERER_CLASSES"] = ["rest_framework.renderers.JSONRenderer"]  # noqa: F405

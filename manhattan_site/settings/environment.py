"""The one way the settings read the environment: every part of ``manhattan_site.settings``
reads its variables through these helpers, each with the project's embedded default.

An unset or empty variable means the default, for every type.
"""

from __future__ import annotations

import os
from pathlib import Path


def env(name: str, default: str = "") -> str:
    return os.environ.get(name, default)


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: str) -> list[str]:
    """A comma-separated list; blank items are dropped."""
    return [item.strip() for item in env(name, default).split(",") if item.strip()]


def env_int(name: str, default: int) -> int:
    value = os.environ.get(name)
    return int(value) if value else default


def env_float(name: str, default: float) -> float:
    value = os.environ.get(name)
    return float(value if value else default)


DEVELOPMENT_KEY = "django-insecure-development-only-set-SECRET_KEY-in-production"


def dev_secret_key(var_dir: Path) -> str:
    """The development key: the one ``prepare_local_folders`` wrote into
    ``var/`` (so that sessions and links survive restarts), or a fixed,
    clearly insecure one before that. Production refuses to start without
    ``SECRET_KEY``."""
    path = var_dir / "secret_key"
    return path.read_text().strip() if path.is_file() else DEVELOPMENT_KEY

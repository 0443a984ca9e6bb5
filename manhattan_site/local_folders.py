"""The folders the embedded defaults need on this machine, made by the
commands (``manage.py``, ``dev.py``) rather than when settings are imported."""

from __future__ import annotations

import secrets
from pathlib import Path

from django.conf import settings


def prepare_local_folders() -> None:
    """``var/`` with the SQLite database's folder, the filesystem broker's
    folders and the development outbox, and the development secret key, as
    far as the settings in use need them."""
    var_dir = Path(settings.VAR_DIR)
    folders = [var_dir]
    database = settings.DATABASES["default"]
    if database["ENGINE"] == "django.db.backends.sqlite3":
        folders.append(Path(str(database["NAME"])).parent)
    for key in ("data_folder_in", "data_folder_out", "processed_folder", "control_folder"):
        path = getattr(settings, "CELERY_BROKER_TRANSPORT_OPTIONS", {}).get(key)
        if path:
            folders.append(Path(path))
    if getattr(settings, "EMAIL_FILE_PATH", None):
        folders.append(Path(settings.EMAIL_FILE_PATH))
    for folder in folders:
        folder.mkdir(parents=True, exist_ok=True)
    key_file = var_dir / "secret_key"
    if not settings.PRODUCTION and not key_file.exists():
        key_file.write_text(secrets.token_urlsafe(50))
        key_file.chmod(0o600)

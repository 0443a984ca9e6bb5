"""The deployment files and production settings, checked without a Docker engine."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent


def test_compose_file_parses_and_names_every_service():
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    services = compose["services"]
    assert {"web", "worker", "beat", "postgres", "redis", "mailpit"} <= set(services)
    assert "gunicorn" in services["web"]["command"]
    assert "worker" in services["worker"]["command"]
    # Bot turns have a worker of their own, on their own queue, so a search never delays an email.
    assert "--queues bots" in services["bots"]["command"]
    assert "--queues celery" in services["worker"]["command"]
    assert "beat" in services["beat"]["command"]
    for name in ("web", "worker", "postgres", "redis", "mailpit"):
        assert "healthcheck" in services[name], name
    assert services["web"]["environment"]["DATABASE_URL"].startswith("postgres://")
    assert services["web"]["environment"]["REDIS_URL"].startswith("redis://")


def _manage(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if k not in ("DJANGO_SETTINGS_MODULE", "DJANGO_ENV", "SECRET_KEY")}
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env={**clean, "DJANGO_SETTINGS_MODULE": "manhattan_site.settings", **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_production_settings_pass_check_deploy_with_no_warnings():
    result = _manage(
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        DJANGO_ENV="production",
        SECRET_KEY="x" * 20 + "a-long-random-production-key-for-the-check-1234567890",
        ALLOWED_HOSTS="manhattan.example.com",
        INBOUND_WEBHOOK_SECRET="sendgrid:a-long-random-webhook-password",
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_production_refuses_to_start_without_the_inbound_webhook_secret():
    result = _manage(
        "check",
        "--deploy",
        DJANGO_ENV="production",
        SECRET_KEY="x" * 20 + "a-long-random-production-key-for-the-check-1234567890",
        ALLOWED_HOSTS="manhattan.example.com",
        INBOUND_WEBHOOK_SECRET="",
    )
    assert result.returncode != 0
    assert "notifications.E001" in result.stderr + result.stdout
    assert "INBOUND_WEBHOOK_SECRET" in result.stderr + result.stdout


def test_production_refuses_to_start_without_a_secret_key():
    result = _manage("check", DJANGO_ENV="production", ALLOWED_HOSTS="manhattan.example.com")
    assert result.returncode != 0
    assert "SECRET_KEY must be set" in result.stderr


def test_openapi_schema_validates_without_warnings():
    result = _manage("spectacular", "--validate", "--fail-on-warn", "--file", os.devnull)
    assert result.returncode == 0, result.stdout + result.stderr


def test_importing_the_settings_creates_nothing_on_disk(tmp_path):
    """The folders and the development key are made by the commands, not on import."""
    var = tmp_path / "var"
    code = "import django; django.setup(); from django.conf import settings; print(settings.SECRET_KEY[:15])"
    env = {**os.environ, "VAR_DIR": str(var), "DJANGO_SETTINGS_MODULE": "manhattan_site.settings", "DJANGO_ENV": ""}
    env.pop("SECRET_KEY", None)
    env.pop("DATABASE_URL", None)
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    assert not var.exists()
    assert done.stdout.strip() == "django-insecure"
    subprocess.run([sys.executable, "manage.py", "check"], cwd=ROOT, env=env, capture_output=True, check=True)
    assert (var / "secret_key").is_file()
    assert (var / "celery-queue").is_dir()
    assert (var / "outbox").is_dir()

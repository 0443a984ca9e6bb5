"""The deployment files and production settings, checked without a Docker engine."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import yaml

from tests.support.processes import manage

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


def test_production_settings_pass_check_deploy_with_no_warnings():
    result = manage(
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
    result = manage(
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
    result = manage("check", DJANGO_ENV="production", ALLOWED_HOSTS="manhattan.example.com")
    assert result.returncode != 0
    assert "SECRET_KEY must be set" in result.stderr


def test_openapi_schema_validates_without_warnings():
    result = manage("spectacular", "--validate", "--fail-on-warn", "--file", os.devnull)
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


# --- One list of the project's apps (settings.PROJECT_APPS) and what must follow it ---------


def _apps_on_disk() -> set[str]:
    """Every Django app of the project: each folder with an apps.py, as a dotted module."""
    found = set()
    for apps_py in ROOT.rglob("apps.py"):
        relative = apps_py.parent.relative_to(ROOT)
        if relative.parts[0] in {".venv", "node_modules", "var", "tests"} or relative.parts[0] == "manhattan_site":
            continue
        found.add(".".join(relative.parts))
    return found


def test_project_apps_name_every_app_on_disk_and_all_are_installed():
    from django.conf import settings

    assert set(settings.PROJECT_APPS) == _apps_on_disk()
    assert set(settings.PROJECT_APPS) <= set(settings.INSTALLED_APPS)


def test_pyproject_packages_are_the_project_apps():
    import tomllib

    from django.conf import settings

    include = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]["find"]["include"]
    expected = {app.split(".")[0] for app in settings.PROJECT_APPS} | {"manhattan_site"}
    assert {pattern.removesuffix("*") for pattern in include} == expected


def test_the_image_copies_the_whole_project_and_leaves_out_no_app():
    import fnmatch

    from django.conf import settings

    lines = [line.split() for line in (ROOT / "Dockerfile").read_text().splitlines() if line.strip()]
    copies = [line[1:] for line in lines if line[0].upper() == "COPY"]
    # Copying folder by folder is how apps were left out of the image: one COPY of everything.
    assert [".", "."] in copies, copies
    # Other COPY lines only bring single files ahead (for the layer cache), never a folder.
    assert all((ROOT / source).is_file() for c in copies if c != [".", "."] for source in c[:-1]), copies
    ignored = [p.strip() for p in (ROOT / ".dockerignore").read_text().splitlines() if p.strip() and p[0] != "#"]
    needed = [app.replace(".", "/") for app in settings.PROJECT_APPS]
    needed += ["manhattan_site", "templates", "locale", "manage.py", "pyproject.toml", "README.md"]
    for path in needed:
        for pattern in ignored:
            assert not fnmatch.fnmatch(path, pattern), (path, pattern)
            assert not path.startswith(pattern.rstrip("/") + "/"), (path, pattern)


def test_readme_layout_names_every_app():
    import re

    from django.conf import settings

    readme = (ROOT / "README.md").read_text()
    rows = set(re.findall(r"^\| `([\w/]+)/`", readme, flags=re.MULTILINE))
    for app in settings.PROJECT_APPS:
        assert app.replace(".", "/") in rows, app
    # And no row names an app that is gone.
    for row in rows:
        if (ROOT / row / "apps.py").exists() or not (ROOT / row).exists():
            assert row.replace("/", ".") in settings.PROJECT_APPS or row == "manhattan_site", row

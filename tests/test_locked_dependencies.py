"""The lock files hold every dependency pyproject.toml names, at a version it allows,
each with its hashes; the image and dev.py install from them."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def locked(name: str) -> dict[str, str]:
    """{package: version} of a lock file, each checked to carry a hash."""
    text = (ROOT / name).read_text()
    pins: dict[str, str] = {}
    for block in re.split(r"\n(?=\S)", text):
        match = re.match(r"([A-Za-z0-9_.\-\[\],]+)==(\S+)", block)
        if match:
            assert "--hash=sha256:" in block, f"{match.group(1)} has no hash in {name}"
            pins[canonicalize_name(match.group(1).split("[")[0])] = match.group(2)
    return pins


@pytest.mark.parametrize(("lock", "groups"), [("requirements.lock", ()), ("requirements-dev.lock", ("dev",))])
def test_the_lock_holds_every_dependency_at_an_allowed_version(lock, groups):
    pins = locked(lock)
    wanted = list(PYPROJECT["dependencies"])
    for group in groups:
        wanted += PYPROJECT["optional-dependencies"][group]
    for line in wanted:
        requirement = Requirement(line)
        name = canonicalize_name(requirement.name)
        assert name in pins, f"{requirement.name} is not in {lock}: regenerate it (docs/operations.md)"
        assert requirement.specifier.contains(pins[name], prereleases=True), (line, pins[name])
    # What extras bring in: the PostgreSQL pool of the settings, Redis for Celery.
    assert {"psycopg-pool", "psycopg-binary", "redis"} <= set(pins)


def test_the_default_inbound_provider_is_supported_by_the_locked_anymail():
    """django-anymail 13 dropped SendGrid, the default INBOUND_PROVIDER."""
    from django.conf import settings

    version = tuple(int(part) for part in locked("requirements.lock")["django-anymail"].split("."))
    if settings.INBOUND_PROVIDER == "sendgrid":
        assert version < (13,), version


def test_the_image_and_dev_py_install_from_the_locks():
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert "--require-hashes -r requirements.lock" in dockerfile
    assert "--no-deps ." in dockerfile
    dev = (ROOT / "dev.py").read_text()
    assert '"requirements-dev.lock"' in dev
    assert '"--require-hashes", "-r", LOCK' in dev

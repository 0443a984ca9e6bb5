"""The settings, split by concern, are still every setting they were: same names, same
defaults, same environment variables (issue 24).

Each settings module is imported in a subprocess with a chosen environment
(tests/support/settings_snapshot.py) and compared with what the single settings.py of commit
a53c5f1 produced with the same environment (before_a53c5f1.json, generated from that
commit with ``python tests/settings/test_settings_split.py --write`` and reviewed). When a
setting changes on purpose, regenerate the file the same way and review its diff.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
SNAPSHOT = HERE.parent / "support" / "settings_snapshot.py"
EXPECTED = HERE / "before_a53c5f1.json"

# A value for every variable the settings read, none of them the default, and production
# mode, so that every branch that reads a variable reads it.
EVERY_VARIABLE = {
    "ACCESS_LOG_LEVEL": "WARNING",
    "ALLOWED_HOSTS": "manhattan.example.com, www.manhattan.example.com",
    "BOT_FILL_SWEEP_SECONDS": "301",
    "BOT_SEARCH_ITERATIONS": "77",
    "BOT_SEARCH_SECONDS": "2.5",
    "BOT_SWEEP_SECONDS": "61",
    "BOT_TASK_SECONDS": "21",
    "CSRF_TRUSTED_ORIGINS": "https://manhattan.example.com,https://www.manhattan.example.com",
    "DATABASE_URL": "postgres://user:pw@db.example.com:5433/manhattan",
    "DATA_EXPORT_SWEEP_SECONDS": "3601",
    "DATA_UPLOAD_MAX_MEMORY_SIZE": "65537",
    "DB_CONN_MAX_AGE": "30",
    "DB_POOL_MAX_IDLE": "61.5",
    "DB_POOL_MAX_SIZE": "9",
    "DB_POOL_MIN_SIZE": "2",
    "DB_POOL_TIMEOUT": "11.5",
    "DEBUG": "true",
    "DEFAULT_FROM_EMAIL": "Manhattan <play@manhattan.example.com>",
    "DIGEST_SWEEP_SECONDS": "3599",
    "DJANGO_ENV": "production",
    "DKIM_DOMAIN": "manhattan.example.com",
    "DKIM_PRIVATE_KEY": "-----BEGIN PRIVATE KEY-----x",
    "DKIM_PRIVATE_KEY_FILE": "/etc/dkim.pem",
    "DKIM_SELECTOR": "mail2026",
    "EMAIL_HOST": "smtp.example.com",
    "EMAIL_HOST_PASSWORD": "smtp-password",
    "EMAIL_HOST_USER": "smtp-user",
    "EMAIL_PORT": "587",
    "EMAIL_TIMEOUT": "12",
    "EMAIL_USE_TLS": "yes",
    "GAME_REVIEW": "rated",
    "GAME_REVIEW_EMAIL_WAIT_SECONDS": "601",
    "GAME_REVIEW_ITERATIONS": "201",
    "GAME_REVIEW_LOST_SECONDS": "3601",
    "HEARTBEAT_SECONDS": "21.5",
    "HEARTBEAT_STALE_SECONDS": "61",
    "INBOUND_AUTHSERV_ID": "mx.example.com",
    "INBOUND_EMAIL_ADDRESS": "reply@manhattan.example.com",
    "INBOUND_MAX_BYTES": "1000001",
    "INBOUND_PROVIDER": " Mailgun ",
    "INBOUND_WEBHOOK_SECRET": "mailgun:password",
    "LOG_FORMAT": "text",
    "LOG_LEVEL": "DEBUG",
    "MAIL_DOMAIN": "mail.manhattan.example.com",
    "MAIL_INSTALLATION_ID": "staging-1",
    "METRICS_ALLOWED_NETWORKS": "10.0.0.0/8,192.168.0.0/16",
    "METRICS_TOKEN": "metrics-token",
    "NUM_PROXIES": "2",
    "OAUTH_ACCESS_TOKEN_SECONDS": "3600",
    "OAUTH_DEVICE_INTERVAL": "7",
    "OAUTH_REFRESH_TOKEN_SECONDS": "7200",
    "OUTBOX_LEASE_SECONDS": "91",
    "OUTBOX_STALE_SECONDS": "601",
    "OUTBOX_SWEEP_SECONDS": "59",
    "PRESENCE_SECONDS": "121",
    "REDIS_URL": "redis://redis.example.com:6379/3",
    "REMINDER_SWEEP_SECONDS": "299",
    "REVIEW_SWEEP_SECONDS": "901",
    "SECRET_KEY": "a-production-secret-key-that-is-long-enough-0123456789",
    "SECURE_HSTS_SECONDS": "600",
    "SECURE_SSL_REDIRECT": "false",
    "SENTRY_DSN": "https://key@sentry.example.com/1",
    "SENTRY_TRACES_SAMPLE_RATE": "0.25",
    "SITE_URL": "https://manhattan.example.com/",
    "STATIC_ROOT": "/srv/static",
    "STREAMS_CHANNEL": "manhattan:streams:2",
    "STREAMS_HEARTBEAT_SECONDS": "16",
    "STREAMS_IDLE_SECONDS": "3599",
    "STREAMS_PER_USER": "11",
    "STREAMS_POLL_SECONDS": "0.5",
    "STREAMS_REDIS_MAX_CONNECTIONS": "21",
    "STREAMS_REDIS_URL": "redis://streams.example.com:6379/4",
    "STREAMS_RETRY_MS": "2001",
    "STREAMS_SEND_TIMEOUT_SECONDS": "31",
    "TALK_MESSAGES_PER_DAY": "201",
    "TALK_MESSAGES_PER_MINUTE": "6",
    "THROTTLE_ANON": "121/minute",
    "THROTTLE_EMAIL_SEND": "31/hour",
    "THROTTLE_GAME_CREATE": "61/hour",
    "THROTTLE_TOKEN_CREATE": "32/hour",
    "THROTTLE_USER": "1201/minute",
    "THROTTLE_WEBHOOK_TEST": "62/hour",
    "VAR_DIR": "/srv/manhattan-var",
    "WEBHOOK_ALLOWED_HOSTS": "hooks.internal",
    "WEBHOOK_ALLOWED_NETWORKS": "10.1.0.0/16",
    "WEBHOOK_ALLOW_HTTP": "on",
    "WEBHOOK_CA_FILE": "/etc/ca.pem",
    "WEBHOOK_CONNECT_TIMEOUT": "3.5",
    "WEBHOOK_DISABLE_AFTER_FAILURES": "16",
    "WEBHOOK_LEASE_SECONDS": "92",
    "WEBHOOK_LOG_DAYS": "31",
    "WEBHOOK_MAX_ATTEMPTS": "9",
    "WEBHOOK_MAX_ENDPOINTS_PER_USER": "12",
    "WEBHOOK_MAX_RESPONSE_BYTES": "65535",
    "WEBHOOK_RETRY_BASE_SECONDS": "33",
    "WEBHOOK_RETRY_MAX_SECONDS": "7200",
    "WEBHOOK_SECRET_OVERLAP_HOURS": "25",
    "WEBHOOK_SWEEP_SECONDS": "29",
    "WEBHOOK_TIMEOUT": "10.5",
}

# (case name, settings module, environment)
CASES: list[tuple[str, str, dict[str, str]]] = [
    ("default", "manhattan_site.settings", {}),
    ("test settings", "manhattan_site.test_settings", {}),
    ("every variable set", "manhattan_site.settings", EVERY_VARIABLE),
]


def snapshot(module: str, variables: dict[str, str]) -> dict[str, Any]:
    # Nothing of the calling environment leaks in: only what the case sets.
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), **variables}
    result = subprocess.run(
        [sys.executable, str(SNAPSHOT), module],
        cwd="/",
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    snap: dict[str, Any] = json.loads(result.stdout)
    return snap


@pytest.mark.parametrize(("case", "module", "variables"), CASES, ids=[case[0] for case in CASES])
def test_every_setting_keeps_its_name_default_and_variable(case: str, module: str, variables: dict[str, str]):
    expected = json.loads(EXPECTED.read_text())[case]
    actual = snapshot(module, variables)
    assert sorted(actual["settings"]) == sorted(expected["settings"])
    for name, value in expected["settings"].items():
        assert actual["settings"][name] == value, name
    assert actual["env_read"] == expected["env_read"]
    assert actual["sentry"] == expected["sentry"]


def test_the_every_variable_case_sets_every_variable_read():
    # A variable added to the settings but not here would go untested with a value.
    read = set(json.loads(EXPECTED.read_text())["every variable set"]["env_read"])
    assert read == set(EVERY_VARIABLE)


if __name__ == "__main__" and sys.argv[1:] == ["--write"]:
    snapshots = {case: snapshot(module, variables) for case, module, variables in CASES}
    EXPECTED.write_text(json.dumps(snapshots, sort_keys=True, indent=1, ensure_ascii=False) + "\n")

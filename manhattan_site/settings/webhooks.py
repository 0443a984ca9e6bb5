"""Outgoing webhooks (webhooks/): who may be called, how often it is retried, how long it is kept."""

from __future__ import annotations

from .environment import env, env_bool, env_float, env_int, env_list

# Plain http endpoints are refused unless this is set (development and tests only).
WEBHOOK_ALLOW_HTTP = env_bool("WEBHOOK_ALLOW_HTTP", default=False)
# Exceptions to the SSRF guard (webhooks/ssrf.py), for a receiver on a private network:
# host names whose addresses are not checked, and networks (CIDR) whose addresses pass.
WEBHOOK_ALLOWED_HOSTS = env_list("WEBHOOK_ALLOWED_HOSTS", "")
WEBHOOK_ALLOWED_NETWORKS = env_list("WEBHOOK_ALLOWED_NETWORKS", "")
WEBHOOK_MAX_ENDPOINTS_PER_USER = env_int("WEBHOOK_MAX_ENDPOINTS_PER_USER", 10)
# Attempts of one delivery before it fails for good, and the first wait between them (doubling).
WEBHOOK_MAX_ATTEMPTS = env_int("WEBHOOK_MAX_ATTEMPTS", 8)
WEBHOOK_RETRY_BASE_SECONDS = env_int("WEBHOOK_RETRY_BASE_SECONDS", 30)
WEBHOOK_RETRY_MAX_SECONDS = env_int("WEBHOOK_RETRY_MAX_SECONDS", 6 * 3600)
# Failed attempts in a row (across deliveries) after which an endpoint is switched off.
WEBHOOK_DISABLE_AFTER_FAILURES = env_int("WEBHOOK_DISABLE_AFTER_FAILURES", 15)
WEBHOOK_CONNECT_TIMEOUT = env_float("WEBHOOK_CONNECT_TIMEOUT", 3.0)
WEBHOOK_TIMEOUT = env_float("WEBHOOK_TIMEOUT", 10.0)  # the whole exchange, connect to last byte
WEBHOOK_MAX_RESPONSE_BYTES = env_int("WEBHOOK_MAX_RESPONSE_BYTES", 64 * 1024)
# Certificate authorities that receivers' certificates are checked against (empty: the system's).
WEBHOOK_CA_FILE = env("WEBHOOK_CA_FILE")
# How long a worker holds a delivery it is sending: longer than the task's hard time limit.
WEBHOOK_LEASE_SECONDS = env_int("WEBHOOK_LEASE_SECONDS", 90)
# After a secret is rotated, the old one still signs (a second signature) this long.
WEBHOOK_SECRET_OVERLAP_HOURS = env_int("WEBHOOK_SECRET_OVERLAP_HOURS", 24)
# Finished deliveries are kept this long in the log, then deleted by the sweep.
WEBHOOK_LOG_DAYS = env_int("WEBHOOK_LOG_DAYS", 30)

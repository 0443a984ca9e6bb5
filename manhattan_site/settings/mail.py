"""Email: how it is sent (SMTP when EMAIL_HOST is set, else files under var/outbox), how it
is signed and identified, and how replies come back in (inbound)."""

from __future__ import annotations

from .core import PRODUCTION, SECRET_KEY, VAR_DIR
from .environment import env, env_bool, env_int

DEFAULT_FROM_EMAIL = env("DEFAULT_FROM_EMAIL", "Manhattan by mail <play@localhost>")
EMAIL_HOST = env("EMAIL_HOST")
if EMAIL_HOST:
    EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    EMAIL_PORT = env_int("EMAIL_PORT", 25)
    EMAIL_HOST_USER = env("EMAIL_HOST_USER")
    EMAIL_HOST_PASSWORD = env("EMAIL_HOST_PASSWORD")
    EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", default=False)
    EMAIL_TIMEOUT = env_int("EMAIL_TIMEOUT", 10)
else:
    EMAIL_BACKEND = "django.core.mail.backends.filebased.EmailBackend"
    EMAIL_FILE_PATH = VAR_DIR / "outbox"

# How long a worker holds an email it is sending (notifications/outbox.py):
# more than the hard time limit of a task, so a claim never expires while a send runs.
OUTBOX_LEASE_SECONDS = env_int("OUTBOX_LEASE_SECONDS", 90)

# Replies to game emails come back to this address (plus a signed token) and
# arrive through the inbound webhook (django-anymail) or `manage.py receive_email`.
INBOUND_EMAIL_ADDRESS = env("INBOUND_EMAIL_ADDRESS", "play@localhost")
# The domain of the Message-IDs of the emails sent (default: the host of SITE_URL), and what
# makes them unique to this installation (default: derived from SECRET_KEY; set one for a
# staging copy that shares the production secret).
MAIL_DOMAIN = env("MAIL_DOMAIN")
MAIL_INSTALLATION_ID = env("MAIL_INSTALLATION_ID")
# DKIM signing of the mail sent through EMAIL_HOST (notifications.dkim_signing): the signing
# domain, the selector, and the private key as PEM (or a file holding it). Unset: unsigned.
DKIM_DOMAIN = env("DKIM_DOMAIN")
DKIM_SELECTOR = env("DKIM_SELECTOR")
DKIM_PRIVATE_KEY = env("DKIM_PRIVATE_KEY")
DKIM_PRIVATE_KEY_FILE = env("DKIM_PRIVATE_KEY_FILE")
ANYMAIL = {
    # HTTP basic auth ("user:password") that the mail provider's inbound webhook must send.
    # Production refuses to start without it (notifications/checks.py).
    "WEBHOOK_SECRET": env("INBOUND_WEBHOOK_SECRET") or ("" if PRODUCTION else "inbound:" + SECRET_KEY[:24]),
}
# The one django-anymail provider whose inbound route is mounted at
# /inbound/<provider>/inbound/ ("" mounts none: replies by `manage.py receive_email` only).
INBOUND_PROVIDER = env("INBOUND_PROVIDER", "sendgrid").strip().lower()
# The largest inbound webhook body read (a 10 MB reply, attachments included, and the form around it).
INBOUND_MAX_BYTES = env_int("INBOUND_MAX_BYTES", 12 * 1024 * 1024)
# The authserv-id of our receiving mail server: only its Authentication-Results
# headers are believed (empty: the topmost header, which the last server added).
INBOUND_AUTHSERV_ID = env("INBOUND_AUTHSERV_ID")

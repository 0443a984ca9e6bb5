"""Settings, all from the environment with safe embedded defaults.

With nothing set the site runs on SQLite under ``var/``, tasks go through
kombu's filesystem transport, and emails land in a local outbox. Set
``DATABASE_URL`` and ``REDIS_URL`` for PostgreSQL and Redis, and
``DJANGO_ENV=production`` for the hardened production mode (which refuses to
start without ``SECRET_KEY``). See ``.env.example``.
"""

from __future__ import annotations

from pathlib import Path

import dj_database_url
import django_stubs_ext
from django.core.exceptions import ImproperlyConfigured

from .env import dev_secret_key, env, env_bool, env_int, env_list

# Lets classes such as ModelAdmin be subscripted for type hints at run time.
django_stubs_ext.monkeypatch()

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(env("VAR_DIR", str(BASE_DIR / "var")))

DJANGO_ENV = env("DJANGO_ENV", "development")
PRODUCTION = DJANGO_ENV == "production"

SECRET_KEY = env("SECRET_KEY")
if not SECRET_KEY:
    if PRODUCTION:
        raise ImproperlyConfigured("SECRET_KEY must be set in production (DJANGO_ENV=production).")
    SECRET_KEY = dev_secret_key(VAR_DIR)

DEBUG = env_bool("DEBUG", default=not PRODUCTION)
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "" if PRODUCTION else "localhost,127.0.0.1,[::1],testserver")
SITE_URL = env("SITE_URL", "http://127.0.0.1:8000").rstrip("/")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", SITE_URL)

# The project's own apps: the one list that pyproject.toml's packages, the Dockerfile's
# context (.dockerignore) and the README's layout are held to (tests/test_deploy.py).
PROJECT_APPS = [
    "accounts",
    "games",
    "games.talk",
    "notifications",
    "ratings",
    "webhooks",
    "streams",
]

INSTALLED_APPS = [
    "manhattan_site.apps.ManhattanAdminConfig",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "oauth2_provider",
    *PROJECT_APPS,
    "anymail",
]

MIDDLEWARE = [
    # First: the request id, the access log and the metrics see every answer, redirects included.
    "manhattan_site.observability.RequestContextMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "manhattan_site.security.ContentSecurityPolicyMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "accounts.middleware.UserLanguageMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "accounts.middleware.BotAccountsUseTheApiMiddleware",
    "accounts.throttles.RateLimitHeadersMiddleware",
    "games.web.middleware.GameVisibilityMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "manhattan_site.urls"
WSGI_APPLICATION = "manhattan_site.wsgi.application"
ASGI_APPLICATION = "manhattan_site.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "notifications.context_processors.dev_outbox",
            ],
        },
    },
]

DATABASES = {
    "default": dj_database_url.parse(
        env("DATABASE_URL", f"sqlite:///{VAR_DIR / 'db.sqlite3'}"),
        # Not kept between requests: under ASGI every request may run on a thread of its
        # own, and a connection kept per thread is a connection per thread (the pool below
        # bounds them instead).
        conn_max_age=env_int("DB_CONN_MAX_AGE", 0),
        conn_health_checks=True,
    )
}
# PostgreSQL connections come from a pool per process (psycopg_pool through Django's
# "pool" option): a process never holds more than DB_POOL_MAX_SIZE, opens them as it
# needs them, and closes those idle for DB_POOL_MAX_IDLE seconds. Sizing against the
# server's max_connections: docs/operations.md. DB_POOL_MAX_SIZE=0 turns the pool off.
DB_POOL_MAX_SIZE = env_int("DB_POOL_MAX_SIZE", 8)
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql" and DB_POOL_MAX_SIZE > 0:
    DATABASES["default"]["CONN_MAX_AGE"] = 0  # the pool keeps them; Django must not as well
    DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
        "min_size": env_int("DB_POOL_MIN_SIZE", 0),
        "max_size": DB_POOL_MAX_SIZE,
        "max_idle": float(env("DB_POOL_MAX_IDLE", "60")),
        # A request waits this long for a free connection, then fails (503, not a hang).
        "timeout": float(env("DB_POOL_TIMEOUT", "10")),
    }
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # IMMEDIATE transactions take SQLite's write lock up front, so two requests
    # racing for one game queue up instead of failing with "database is locked".
    DATABASES["default"]["OPTIONS"] = {"timeout": 20, "transaction_mode": "IMMEDIATE"}
    DATABASES["default"]["CONN_MAX_AGE"] = 0

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
AUTH_USER_MODEL = "accounts.User"
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
if DJANGO_ENV == "test":
    PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("de", "Deutsch"), ("nl", "Nederlands"), ("fr", "Français"), ("ko", "한국어")]
LOCALE_PATHS = [BASE_DIR / "locale"]
LOGIN_URL = "accounts:login"
LOGIN_REDIRECT_URL = "games:list"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = Path(env("STATIC_ROOT", str(VAR_DIR / "static")))

REDIS_URL = env("REDIS_URL")
if REDIS_URL:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": REDIS_URL}}
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

# --- Celery (see manhattan_site/celery.py) -----------------------------------
CELERY_BROKER_URL = REDIS_URL or "filesystem://"
if not REDIS_URL:
    _queue = VAR_DIR / "celery-queue"  # made by the commands (manhattan_site/local_folders.py)
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(_queue),
        "data_folder_out": str(_queue),
        "processed_folder": str(VAR_DIR / "celery-processed"),
        "control_folder": str(VAR_DIR / "celery-control"),
        "store_processed": False,
    }
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_RESULT_SERIALIZER = "json"
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_TIME_LIMIT = 60
CELERY_TASK_SOFT_TIME_LIMIT = 45
# How long a worker holds an email it is sending (notifications/outbox.py):
# more than the hard time limit, so a claim never expires while a send runs.
OUTBOX_LEASE_SECONDS = env_int("OUTBOX_LEASE_SECONDS", 90)
CELERY_TASK_ACKS_LATE = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Celery's Django fix-up closes the database connection around every task
# unless this is set; connections are recycled like a request's instead, by
# CONN_MAX_AGE and health checks (see manhattan_site/celery.py).
CELERY_DB_REUSE_MAX = 2**31
CELERY_TIMEZONE = TIME_ZONE
# Workers log through LOGGING below (JSON lines in production, with the request id of the
# request that queued the task) instead of Celery's own format.
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
# Bot turns have a queue of their own: a search bot thinks for up to
# BOT_SEARCH_SECONDS a move, and that must never hold up the emails.
CELERY_TASK_ROUTES = {
    "games.tasks.play_bot_turns": {"queue": "bots"},
    "games.tasks.sweep_bot_turns": {"queue": "bots"},
    "games.tasks.review_finished_game": {"queue": "bots"},
    "games.tasks.sweep_reviews": {"queue": "bots"},
}
BOT_SEARCH_SECONDS: float | None = float(env("BOT_SEARCH_SECONDS", "1.0"))
BOT_SEARCH_ITERATIONS: int | None = env_int("BOT_SEARCH_ITERATIONS", 0) or None
BOT_TASK_SECONDS = env_int("BOT_TASK_SECONDS", 20)  # then the task queues itself again
# Post-game review (games/services/review.py, docs/bots.md): "all" finished games,
# only "rated" ones (all seats filled, a person among them) or "off"; the search
# iterations of each of its two searches a move (the cost grows with it).
GAME_REVIEW = env("GAME_REVIEW", "all")
if GAME_REVIEW not in ("all", "rated", "off"):
    raise ImproperlyConfigured("GAME_REVIEW must be all, rated or off.")
GAME_REVIEW_ITERATIONS = env_int("GAME_REVIEW_ITERATIONS", 200)
GAME_REVIEW_LOST_SECONDS = env_int("GAME_REVIEW_LOST_SECONDS", 3600)  # queued this long: its task was lost
# Table talk: how many messages one player may write in one game.
TALK_MESSAGES_PER_MINUTE = env_int("TALK_MESSAGES_PER_MINUTE", 5)
TALK_MESSAGES_PER_DAY = env_int("TALK_MESSAGES_PER_DAY", 200)
# One beat runs these; each is a sweep over due rows, never a long ETA task.
CELERY_BEAT_SCHEDULE = {
    "sweep-bot-turns": {"task": "games.tasks.sweep_bot_turns", "schedule": env_int("BOT_SWEEP_SECONDS", 60)},
    "sweep-outbox": {"task": "notifications.tasks.sweep_outbox", "schedule": env_int("OUTBOX_SWEEP_SECONDS", 60)},
    "sweep-reminders": {
        "task": "notifications.tasks.sweep_reminders",
        "schedule": env_int("REMINDER_SWEEP_SECONDS", 300),
    },
    "sweep-reviews": {"task": "games.tasks.sweep_reviews", "schedule": env_int("REVIEW_SWEEP_SECONDS", 900)},
    "fill-open-games-with-bots": {
        "task": "games.tasks.fill_open_games_with_bots",
        "schedule": env_int("BOT_FILL_SWEEP_SECONDS", 300),
    },
    "send-digests": {"task": "notifications.tasks.send_digests", "schedule": env_int("DIGEST_SWEEP_SECONDS", 3600)},
    "sweep-webhooks": {"task": "webhooks.tasks.sweep_webhooks", "schedule": env_int("WEBHOOK_SWEEP_SECONDS", 30)},
    "sweep-data-exports": {
        "task": "notifications.tasks.sweep_data_exports",
        "schedule": env_int("DATA_EXPORT_SWEEP_SECONDS", 3600),
    },
}

# --- Operations (manhattan_site/health.py, heartbeats.py, docs/operations.md) ---------
HEARTBEAT_SECONDS = float(env("HEARTBEAT_SECONDS", "20"))  # how often workers and beat say they are alive
HEARTBEAT_STALE_SECONDS = env_int("HEARTBEAT_STALE_SECONDS", 60)  # then /readyz reports them missing
OUTBOX_STALE_SECONDS = env_int("OUTBOX_STALE_SECONDS", 600)  # a pending email or webhook older than this is late
# /metrics answers only with "Authorization: Bearer <METRICS_TOKEN>" or from these networks (CIDR).
METRICS_TOKEN = env("METRICS_TOKEN")
METRICS_ALLOWED_NETWORKS = env_list("METRICS_ALLOWED_NETWORKS", "")
# Errors to Sentry when set (needs the sentry-sdk package, not installed by default).
SENTRY_DSN = env("SENTRY_DSN")
if SENTRY_DSN:
    import sentry_sdk
    from sentry_sdk.integrations.celery import CeleryIntegration
    from sentry_sdk.integrations.django import DjangoIntegration

    sentry_sdk.init(
        dsn=SENTRY_DSN,
        environment=DJANGO_ENV,
        integrations=[DjangoIntegration(), CeleryIntegration()],
        traces_sample_rate=float(env("SENTRY_TRACES_SAMPLE_RATE", "0")),
        send_default_pii=False,
    )

# --- Webhooks (webhooks/) ------------------------------------------------------
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
WEBHOOK_CONNECT_TIMEOUT = float(env("WEBHOOK_CONNECT_TIMEOUT", "3"))
WEBHOOK_TIMEOUT = float(env("WEBHOOK_TIMEOUT", "10"))  # the whole exchange, connect to last byte
WEBHOOK_MAX_RESPONSE_BYTES = env_int("WEBHOOK_MAX_RESPONSE_BYTES", 64 * 1024)
# Certificate authorities that receivers' certificates are checked against (empty: the system's).
WEBHOOK_CA_FILE = env("WEBHOOK_CA_FILE")
# How long a worker holds a delivery it is sending: longer than the task's hard time limit.
WEBHOOK_LEASE_SECONDS = env_int("WEBHOOK_LEASE_SECONDS", 90)
# After a secret is rotated, the old one still signs (a second signature) this long.
WEBHOOK_SECRET_OVERLAP_HOURS = env_int("WEBHOOK_SECRET_OVERLAP_HOURS", 24)
# Finished deliveries are kept this long in the log, then deleted by the sweep.
WEBHOOK_LOG_DAYS = env_int("WEBHOOK_LOG_DAYS", 30)
# --- Live event streams (streams/) ------------------------------------------------
# Wake-ups go through Redis pub/sub on this channel when REDIS_URL is set (every
# process's streams hear every move); without it, streams are woken in-process and
# a watcher looks for changes by other processes (the worker) every POLL seconds.
STREAMS_REDIS_URL = env("STREAMS_REDIS_URL", REDIS_URL)
STREAMS_CHANNEL = env("STREAMS_CHANNEL", "manhattan:streams")
STREAMS_POLL_SECONDS = float(env("STREAMS_POLL_SECONDS", "0" if STREAMS_REDIS_URL else "1"))
STREAMS_HEARTBEAT_SECONDS = float(env("STREAMS_HEARTBEAT_SECONDS", "15"))
STREAMS_PER_USER = env_int("STREAMS_PER_USER", 10)
# Redis connections a process uses for the streams' slots at most (a burst waits for one).
STREAMS_REDIS_MAX_CONNECTIONS = env_int("STREAMS_REDIS_MAX_CONNECTIONS", 20)
STREAMS_IDLE_SECONDS = float(env("STREAMS_IDLE_SECONDS", "3600"))  # without an event: then the client reconnects
STREAMS_SEND_TIMEOUT_SECONDS = float(env("STREAMS_SEND_TIMEOUT_SECONDS", "30"))  # a reader this slow is dropped
STREAMS_RETRY_MS = env_int("STREAMS_RETRY_MS", 2000)  # how soon EventSource reconnects

# A player whose game page sent a heartbeat this recently is at the table: no turn
# email or reminder for that game (the page beats every minute while visible).
PRESENCE_SECONDS = env_int("PRESENCE_SECONDS", 120)

# --- Email ----------------------------------------------------------------------
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

# Trusted reverse proxies in front of the site (the TLS proxy in production):
# client addresses for rate limits are read from what they append to
# X-Forwarded-For. 0 trusts no header and uses the connection's address.
NUM_PROXIES = env_int("NUM_PROXIES", 1 if PRODUCTION else 0)

# --- REST framework -------------------------------------------------------------
_RENDERERS = ["rest_framework.renderers.JSONRenderer"]
if DEBUG:
    _RENDERERS.append("rest_framework.renderers.BrowsableAPIRenderer")

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "accounts.authentication.ApiTokenAuthentication",
        "accounts.authentication.OAuthAppAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": [
        "rest_framework.permissions.IsAuthenticated",
        "accounts.scopes.ScopeRequired",
        "games.api.permissions.SeesTheGame",
    ],
    "DEFAULT_RENDERER_CLASSES": _RENDERERS,
    "DEFAULT_PARSER_CLASSES": ["manhattan_site.strict_input.StrictJSONParser"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "games.api.problems.problem_exception_handler",
    # Every API request counts against its user (token or session) or address;
    # creating games (which emails invitees) and tokens have tighter limits.
    "DEFAULT_THROTTLE_CLASSES": [
        "accounts.throttles.UserRateThrottle",
        "accounts.throttles.AnonRateThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": {
        "user": env("THROTTLE_USER", "1200/minute"),
        "anon": env("THROTTLE_ANON", "120/minute"),
        "game_create": env("THROTTLE_GAME_CREATE", "60/hour"),
        "email_send": env("THROTTLE_EMAIL_SEND", "30/hour"),
        "token_create": env("THROTTLE_TOKEN_CREATE", "30/hour"),
        # Test events make the server send requests on demand: fewer than the user limit.
        "webhook_test": env("THROTTLE_WEBHOOK_TEST", "60/hour"),
    },
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
    "NUM_PROXIES": NUM_PROXIES,
}

# --- OAuth 2.0 for third-party apps (django-oauth-toolkit; see accounts/oauth.py) ----
# Web apps use the authorization code grant with PKCE (required); command-line
# clients and bots the device authorization grant (RFC 8628). The scopes are
# the same as those of personal API tokens (accounts/scopes.py).
OAUTH2_PROVIDER = {
    "SCOPES_BACKEND_CLASS": "accounts.scopes.ScopesBackend",
    "PKCE_REQUIRED": True,
    "ACCESS_TOKEN_EXPIRE_SECONDS": env_int("OAUTH_ACCESS_TOKEN_SECONDS", 30 * 24 * 3600),
    "REFRESH_TOKEN_EXPIRE_SECONDS": env_int("OAUTH_REFRESH_TOKEN_SECONDS", 365 * 24 * 3600),
    "AUTHORIZATION_CODE_EXPIRE_SECONDS": 120,
    "OAUTH_DEVICE_VERIFICATION_URI": f"{SITE_URL}/oauth/device/",
    "OAUTH_DEVICE_VERIFICATION_URI_COMPLETE": f"{SITE_URL}/oauth/device/?user_code={{user_code}}",
    "DEVICE_FLOW_INTERVAL": env_int("OAUTH_DEVICE_INTERVAL", 5),
    "ALLOWED_REDIRECT_URI_SCHEMES": ["https"] if PRODUCTION else ["http", "https"],
    # RFC 9700 (OAuth 2.0 Security Best Current Practice), ahead of the toolkit's 4.0 defaults:
    # tokens stored as hashes (as personal tokens are), S256 PKCE only, no implicit or
    # password grant, tokens only in the Authorization header, `iss` in authorization
    # answers, a replayed refresh token revokes its whole family; and `check --deploy`
    # fails on a configuration that falls short of it.
    "REFRESH_TOKEN_REUSE_PROTECTION": True,
    **{
        f"COMPLIANT_BCP_RFC9700_{gate}": True
        for gate in (
            "IMPLICIT_GRANT",
            "PASSWORD_GRANT",
            "PKCE_METHOD",
            "ACCESS_TOKEN_TRANSPORT",
            "AUTHZ_RESPONSE_ISS",
            "TOKEN_STORAGE",
            "REFRESH_TOKEN",
            "REDIRECT_URI_SCHEME",
            "REDIRECT_URI_MATCHING",
            "PKCE_REQUIRED",
        )
    },
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Manhattan by mail API",
    "DESCRIPTION": "Play the board game Manhattan asynchronously. Errors are RFC 9457 problem+json.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    # One name for each set of values the engine's shapes share.
    "ENUM_NAME_OVERRIDES": {
        "ColourEnum": "games.api.bodies.COLOURS",
        "SideEnum": "games.api.bodies.SIDES",
        "StatusEnum": "games.models.Game.Status",  # the game's; a delivery has a status too
        "DeliveryStatusEnum": "webhooks.models.Delivery.Status",
    },
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "games.api.schema.document_problems",
        "games.api.schema.document_empty_lots",
        "games.api.schema.document_rate_limits",
        "streams.schema.document_streams",  # after the rate limits: streams send no RateLimit headers
    ],
}

# Bodies larger than this are refused with 413 before they are parsed.
DATA_UPLOAD_MAX_MEMORY_SIZE = env_int("DATA_UPLOAD_MAX_MEMORY_SIZE", 64 * 1024)

# --- Security -------------------------------------------------------------------
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"
SECURE_REFERRER_POLICY = "same-origin"
SESSION_COOKIE_HTTPONLY = True
if PRODUCTION:
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", default=True)
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 31536000)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    CSRF_COOKIE_HTTPONLY = True

# JSON lines in production (one object per line: time, level, logger, message, request id,
# user and game where known); readable lines in development. LOG_FORMAT overrides.
LOG_FORMAT = env("LOG_FORMAT", "json" if PRODUCTION else "text")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"request": {"()": "manhattan_site.observability.RequestContextFilter"}},
    "formatters": {
        "json": {"()": "manhattan_site.observability.JsonFormatter"},
        "text": {"format": "%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s"},
    },
    "handlers": {
        "console": {"class": "logging.StreamHandler", "formatter": LOG_FORMAT, "filters": ["request"]},
    },
    "root": {"handlers": ["console"], "level": env("LOG_LEVEL", "INFO")},
    "loggers": {
        "django.db.backends": {"level": "WARNING"},
        # One access line per request from the middleware: Django's own 4xx/5xx lines repeat it.
        "django.request": {"level": "ERROR"},
        "manhattan.access": {"level": env("ACCESS_LOG_LEVEL", "INFO")},
    },
}

# --- Post-game review: what waits for it (docs/bots.md) ----------------------------------
# The game-over email of a reviewed game waits this long for the review, to say it is ready
# and link to it; past that (or at once if the review fails) it goes without the link.
GAME_REVIEW_EMAIL_WAIT_SECONDS = env_int("GAME_REVIEW_EMAIL_WAIT_SECONDS", 600)
# The bodies webhooks POST, as components of the API's schema.
SPECTACULAR_SETTINGS["POSTPROCESSING_HOOKS"].append("webhooks.schema.document_webhook_events")  # type: ignore[attr-defined]

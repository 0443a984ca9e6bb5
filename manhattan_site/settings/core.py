"""Core settings: the mode, the secret key, who may reach the site, the apps and what
runs around every request (middleware, templates, languages, caches, security headers)."""

from __future__ import annotations

from pathlib import Path

import django_stubs_ext
from django.core.exceptions import ImproperlyConfigured

from .environment import dev_secret_key, env, env_bool, env_int, env_list

# Lets classes such as ModelAdmin be subscripted for type hints at run time.
django_stubs_ext.monkeypatch()

BASE_DIR = Path(__file__).resolve().parent.parent.parent
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
                "ratings.context_processors.my_ratings",
            ],
        },
    },
]

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
# "default" holds what one process may keep to itself (rate-limit and throttle counts in
# development); "shared" what every process must see alike (the workers' heartbeats).
# With Redis both are Redis.
_LOCAL_MEMORY = {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
if REDIS_URL:
    _REDIS = {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": REDIS_URL}
    CACHES = {"default": _REDIS, "shared": _REDIS}
elif DJANGO_ENV == "test":
    # Each test process its own: parallel test runs never share counts or heartbeats.
    CACHES = {"default": _LOCAL_MEMORY, "shared": {**_LOCAL_MEMORY, "LOCATION": "shared"}}
else:
    # Development without Redis: the site and its worker (`dev.py serve`) are two processes,
    # and the site must see the worker's heartbeats (the game-over email waits for the
    # review only while a bots worker is alive; /readyz and the operations page name the
    # workers). Files under var/ are shared between them, with no server to run.
    CACHES = {
        "default": _LOCAL_MEMORY,
        "shared": {
            "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
            "LOCATION": str(VAR_DIR / "cache"),
        },
    }

# Trusted reverse proxies in front of the site (the TLS proxy in production):
# client addresses for rate limits are read from what they append to
# X-Forwarded-For. 0 trusts no header and uses the connection's address.
NUM_PROXIES = env_int("NUM_PROXIES", 1 if PRODUCTION else 0)

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

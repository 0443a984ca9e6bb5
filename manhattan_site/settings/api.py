"""The API: REST framework (authentication, permissions, throttles, problem+json errors),
OAuth 2.0 for third-party apps, and the OpenAPI schema."""

from __future__ import annotations

from .core import DEBUG, NUM_PROXIES, PRODUCTION, SITE_URL
from .environment import env, env_int

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
    "EXCEPTION_HANDLER": "manhattan_site.api.problems.problem_exception_handler",
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
        "webhooks.schema.document_webhook_events",  # the bodies webhooks POST, as components
    ],
}

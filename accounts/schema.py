"""Describes token authentication in the OpenAPI schema."""

from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension

from .scopes import SCOPES


class ApiTokenScheme(OpenApiAuthenticationExtension):  # type: ignore[no-untyped-call]
    target_class = "accounts.authentication.ApiTokenAuthentication"
    name = "apiToken"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {
            "type": "http",
            "scheme": "bearer",
            "description": "A personal API token: `Authorization: Bearer mbm_…` (create one at /api/v1/tokens).",
        }


class OAuthAppScheme(OpenApiAuthenticationExtension):  # type: ignore[no-untyped-call]
    """OAuth apps: the authorization code grant with PKCE (the device grant,
    RFC 8628, is not an OpenAPI flow; docs/api.md describes it). Each operation
    lists the scope it needs (``required_scopes`` of its view)."""

    target_class = "accounts.authentication.OAuthAppAuthentication"
    name = "oauthApp"

    def get_security_definition(self, auto_schema: Any) -> dict[str, Any]:
        return {
            "type": "oauth2",
            "description": "An OAuth app's access token: `Authorization: Bearer <access token>`. "
            "Command-line clients and bots use the device grant at /oauth/device-authorization/.",
            "flows": {
                "authorizationCode": {
                    "authorizationUrl": "/oauth/authorize/",
                    "tokenUrl": "/oauth/token/",
                    "refreshUrl": "/oauth/token/",
                    "scopes": {name: str(description) for name, description in SCOPES.items()},
                }
            },
        }

    def get_security_requirement(self, auto_schema: Any) -> dict[str, list[str]]:
        wanted: dict[str, str] = getattr(auto_schema.view, "required_scopes", {})
        needed = wanted.get(auto_schema.method, wanted.get("*"))
        return {self.name: [needed] if needed in SCOPES else []}

"""The API's front door: ``/api/v1/`` lists where things are, and each problem
``type`` URL (``/api/v1/problems/<code>``) describes its code from the registry
— as a page for a browser, as JSON for a client, in the reader's language."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import permissions, serializers
from rest_framework.renderers import JSONRenderer, TemplateHTMLRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.reverse import reverse
from rest_framework.views import APIView

from .codes import ErrorCode, all_codes
from .problems import problem_response

# The layer's own entry points; each app adds its own (``index_links`` in its ``api_urls``).
LAYER_LINKS = {"problems": "api-problems", "schema": "api-schema", "docs": "api-docs"}


class IndexSerializer(serializers.Serializer[Any]):
    version = serializers.CharField()
    links = serializers.DictField(child=serializers.URLField(), help_text="Name -> absolute URL.")


class ApiIndexView(APIView):
    permission_classes = [permissions.AllowAny]
    links: dict[str, str] = LAYER_LINKS  # set by the router: every app's, then the layer's

    @extend_schema(operation_id="api_index", summary="Where everything is", responses={200: IndexSerializer})
    def get(self, request: Request) -> Response:
        links = {name: reverse(url_name, request=request) for name, url_name in self.links.items()}
        return Response({"version": "v1", "links": links})


def described(kind: ErrorCode) -> dict[str, Any]:
    """A code as its problem page shows it (the description in the active language)."""
    return {
        "code": kind.code,
        "status": kind.status,
        "description": str(kind.description),
        "rules": kind.rules,
        "examples": kind.examples,
    }


class ProblemListView(APIView):
    permission_classes = [permissions.AllowAny]
    renderer_classes = [JSONRenderer, TemplateHTMLRenderer]
    template_name = "api/problems.html"

    @extend_schema(exclude=True)  # documentation, not an API resource
    def get(self, request: Request) -> Response:
        return Response({"problems": [described(kind) for kind in all_codes().values()]})


class ProblemView(APIView):
    permission_classes = [permissions.AllowAny]
    renderer_classes = [JSONRenderer, TemplateHTMLRenderer]
    template_name = "api/problem.html"

    @extend_schema(exclude=True)
    def get(self, request: Request, code: str) -> Response:
        kind = all_codes().get(code)
        if kind is None:
            if request.accepted_renderer.format == "html":
                return Response({"missing": code}, status=404)
            return problem_response(404, "not_found", "The API answers with no such problem code.")
        return Response(described(kind))

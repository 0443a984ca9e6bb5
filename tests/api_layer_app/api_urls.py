from typing import Any

from django.urls import path
from rest_framework import permissions
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from manhattan_site.api.codes import ProblemError


class TeapotView(APIView):
    permission_classes = [permissions.AllowAny]

    def get(self, request: Request) -> Response:
        return Response({"tea": "ready"})

    def post(self, request: Request) -> Any:
        raise ProblemError("teapot_refused", "No coffee here.", brew="tea")


index_links = {"teapot": "api-teapot"}
urlpatterns = [path("teapot", TeapotView.as_view(), name="api-teapot")]

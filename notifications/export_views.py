"""Download my data: the API request (``GET /api/v1/me/export``), the button
on the preferences page, and the emailed link's download."""

from __future__ import annotations

import json

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.auth_helpers import request_user
from accounts.scopes import ACCOUNT_HOLDER

from . import exports


class ExportAcceptedSerializer(serializers.Serializer[None]):
    id = serializers.IntegerField(help_text="The export's number.")
    status = serializers.ChoiceField(choices=["building"], help_text="Being built: a link is emailed when ready.")


class DataExportView(APIView):
    """Ask for my data: a worker gathers it, then emails a download link."""

    required_scopes = {"*": ACCOUNT_HOLDER}

    @extend_schema(
        operation_id="me_export",
        summary="Download my data (a link is emailed when it is ready)",
        description=(
            "Queues the building of a JSON document with the account, its preferences, every game's record"
            f" and the person's own table messages; its link, emailed when ready, works for {exports.EXPORT_DAYS}"
            " days. Asking again while one is being built queues nothing more. See docs/people.md."
        ),
        responses={
            202: ExportAcceptedSerializer,
            403: OpenApiResponse(description="An RFC 9457 problem (application/problem+json)."),
        },
    )
    def get(self, request: Request) -> Response:
        export = exports.request_export(user=request_user(request))
        return Response({"id": export.pk, "status": "building"}, status=status.HTTP_202_ACCEPTED)


@login_required
@require_POST
def request_export_view(request: HttpRequest) -> HttpResponse:
    """The preferences page's button."""
    exports.request_export(user=request_user(request))
    messages.success(request, _("We are gathering your data; we will email you a link to it when it is ready."))
    return redirect("notifications:preferences")


@never_cache
@require_GET
def download_view(request: HttpRequest, token: str) -> HttpResponse:
    """The emailed link: the JSON document, while the link has not expired."""
    export = exports.read_link(token)
    if export is None:
        response = render(request, "notifications/export_expired.html", status=404)
    else:
        body = json.dumps(export.document, ensure_ascii=False, indent=2)
        response = HttpResponse(body, content_type="application/json; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="manhattan-data-{export.created:%Y-%m-%d}.json"'
    response["Referrer-Policy"] = "no-referrer"
    return response

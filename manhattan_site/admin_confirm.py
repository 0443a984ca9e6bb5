"""An admin action that cannot be taken back asks first: the page that lists what it would
act on and posts the same selection back with ``confirmed=yes``.

In the project package because every app's admin uses it (accounts cannot import games).
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.http import HttpRequest
from django.template.response import TemplateResponse


def confirmed(request: HttpRequest) -> bool:
    """Whether the operator has answered the confirmation page."""
    return request.POST.get("confirmed") == "yes"


def confirmation_page(
    model_admin: admin.ModelAdmin[Any], request: HttpRequest, *, title: str, template: str, **objects: Any
) -> TemplateResponse:
    """The page asking to confirm ``model_admin``'s action on ``objects`` (named for ``template``),
    carrying the selection so that its button runs the same action again, confirmed."""
    context = {
        **model_admin.admin_site.each_context(request),
        "title": title,
        **objects,
        "selected": request.POST.getlist(ACTION_CHECKBOX_NAME),
        "select_across": request.POST.get("select_across", "0"),
        "opts": model_admin.model._meta,
    }
    return TemplateResponse(request, template, context)

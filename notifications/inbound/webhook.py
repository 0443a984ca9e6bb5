"""The inbound-mail webhook: only the configured provider's route, shut
without its secret, and able to take a reply of 10 MB.

``INBOUND_PROVIDER`` names the one django-anymail provider whose inbound
route is mounted (``inbound/<provider>/inbound/``); the others are not, so
nothing answers for providers nobody configured. The route is authenticated
with HTTP basic auth (``INBOUND_WEBHOOK_SECRET``): a request without it or
with a wrong one gets 401 and a challenge; without a secret configured it
refuses every request (and production does not start: ``notifications.checks``).

SendGrid ("Send Raw": the whole message in the ``email`` field) is read here
from the request's stream rather than through ``request.POST``, because the
site's ``DATA_UPLOAD_MAX_MEMORY_SIZE`` (64 KB, for the API) would refuse a
reply with an attachment or a long quote. The body may be up to
``INBOUND_MAX_BYTES``; the provider's ``SPF`` and ``dkim`` verdicts go along
with the message. A payload it cannot read is refused with 400 (a 500 would
make the provider retry forever).
"""

from __future__ import annotations

import json
import logging
from email.message import Message
from email.parser import HeaderParser
from email.policy import default as default_policy
from typing import Any

from anymail.exceptions import AnymailWebhookValidationFailure
from anymail.signals import AnymailInboundEvent, EventType
from anymail.utils import get_request_basic_auth
from anymail.webhooks.sendgrid import SendGridInboundWebhookView
from django.conf import settings
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.urls import URLPattern, URLResolver, path
from django.utils.crypto import constant_time_compare
from django.utils.decorators import method_decorator
from django.views.decorators.csrf import csrf_exempt

from . import mime

SENDGRID = "sendgrid"
logger = logging.getLogger(__name__)


class ShutWithoutSecretMixin:
    """Refuse every request when no webhook secret is configured (anymail
    would only warn and let anyone post), and answer a request without the
    secret, or with a wrong one, with 401 and a ``WWW-Authenticate`` challenge
    (anymail's own check answers 400, which says nothing about credentials)."""

    # Overriding dispatch drops anymail's csrf_exempt from the view: said again,
    # or every real provider's POST (which has no CSRF token) would be a 403.
    @method_decorator(csrf_exempt)
    def dispatch(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        secret = settings.ANYMAIL.get("WEBHOOK_SECRET")
        if not secret:
            raise PermissionDenied("the inbound webhook has no secret configured")
        allowed = [secret] if isinstance(secret, str) else list(secret)
        sent = get_request_basic_auth(request) or ""
        if not any(constant_time_compare(sent, one) for one in allowed):
            return _unauthorized()
        try:
            return super().dispatch(request, *args, **kwargs)  # type: ignore[misc,no-any-return]
        except RecursionError:
            # A message nested too deep for the parser (another provider's route, which
            # parses before we can bound it): dropped with a 200, or it is retried for days.
            logger.warning("inbound message nested too deeply to parse: dropped")
            return HttpResponse(status=200)


def _unauthorized() -> HttpResponse:
    body = {
        "type": "/api/v1/problems/not_authenticated",
        "title": "Not authenticated",
        "status": 401,
        "code": "not_authenticated",
        "detail": "The inbound webhook takes the credentials configured with the mail provider (HTTP basic auth).",
    }
    response = JsonResponse(body, status=401, content_type="application/problem+json")
    response["WWW-Authenticate"] = 'Basic realm="inbound mail", charset="UTF-8"'
    return response


def _form_fields(request: HttpRequest) -> dict[str, Any]:
    """The fields of a multipart/form-data body, read from the stream (up to
    ``INBOUND_MAX_BYTES``) and split at its boundary (a few passes in C: a 10 MB
    form is split in milliseconds, where parsing it line by line took seconds)."""
    limit = settings.INBOUND_MAX_BYTES
    body = request.read(limit + 1)
    if len(body) > limit:
        raise AnymailWebhookValidationFailure(f"inbound payload larger than {limit} bytes")
    content_type = request.META.get("CONTENT_TYPE", "")
    if not content_type.startswith("multipart/form-data"):
        raise AnymailWebhookValidationFailure("inbound payload is not multipart/form-data")
    boundary = HeaderParser(policy=default_policy).parsestr(f"Content-Type: {content_type}\r\n\r\n")
    delimiter = boundary.get_param("boundary")
    if not isinstance(delimiter, str) or not delimiter:
        raise AnymailWebhookValidationFailure("inbound payload has no multipart boundary")
    fields: dict[str, Any] = {}
    for chunk in body.split(b"--" + delimiter.encode("latin-1"))[1:]:
        if chunk.startswith(b"--"):
            break  # the closing delimiter
        head, separator, payload = chunk.partition(b"\r\n\r\n")
        if not separator:
            continue
        headers = HeaderParser(policy=default_policy).parsestr(head.decode("latin-1").strip() + "\r\n\r\n")
        name = headers.get_param("name", header="content-disposition")
        if isinstance(name, str):
            fields[name] = payload.removesuffix(b"\r\n")
    return fields


class StrictSendGridInboundWebhookView(ShutWithoutSecretMixin, SendGridInboundWebhookView):  # type: ignore[misc]
    def parse_events(self, request: Any) -> Any:
        try:
            fields = _form_fields(request)
            raw = fields["email"]
            message: Message = mime.parse(raw)
            texts = {name: value.decode("utf-8", "replace") for name, value in fields.items() if name != "email"}
            if "envelope" in texts:
                envelope = json.loads(texts["envelope"])
                message.envelope_sender = envelope["from"]  # type: ignore[attr-defined]
                message.envelope_recipient = envelope["to"][0]  # type: ignore[attr-defined]
        except (KeyError, TypeError, IndexError, AttributeError, LookupError, ValueError) as error:
            raise AnymailWebhookValidationFailure(f"unreadable inbound payload: {type(error).__name__}") from error
        # The form fields (SPF, dkim, envelope, …) are the event's provider data.
        return [
            AnymailInboundEvent(
                event_type=EventType.INBOUND, timestamp=None, event_id=None, esp_event=texts, message=message
            )
        ]


def urlpatterns() -> list[URLPattern | URLResolver]:
    """The route of ``INBOUND_PROVIDER`` only (none when it is empty)."""
    provider = settings.INBOUND_PROVIDER
    if not provider:
        return []
    if provider == SENDGRID:
        view = StrictSendGridInboundWebhookView.as_view()
        return [path("sendgrid/inbound/", view, name="sendgrid_inbound_webhook")]
    from anymail import urls as anymail_urls

    name = f"{provider}_inbound_webhook"
    found = [p for p in anymail_urls.urlpatterns if isinstance(p, URLPattern) and p.name == name]
    if not found:
        raise ValueError(f"django-anymail has no inbound webhook for {provider!r}")
    route = found[0]
    view_class = route.callback.view_class  # type: ignore[attr-defined]
    shut: Any = type(f"Shut{view_class.__name__}", (ShutWithoutSecretMixin, view_class), {})
    return [URLPattern(route.pattern, shut.as_view(), name=name)]

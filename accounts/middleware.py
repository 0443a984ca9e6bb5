"""The signed-in user's language, from their email preferences.

Sits right after ``LocaleMiddleware`` (which picks a language from the
browser) and overrides it with the user's own choice, so that the site
speaks the language the user's emails are written in. The user is known only
once ``AuthenticationMiddleware`` has run, so the work is done in
``process_view``, which runs after every middleware's request phase;
``LocaleMiddleware`` then sends the activated language as ``Content-Language``.

Reading never writes: a user without a preference row keeps the browser's
language (``preference_for`` would create the row, with English as default).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils import translation

from notifications.models import Preference

DEV_OUTBOX_BACKEND = "django.core.mail.backends.filebased.EmailBackend"


class UserLanguageMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        # Lets the page header link to the development outbox (whose view 404s otherwise).
        request.show_dev_outbox = settings.DEBUG and settings.EMAIL_BACKEND == DEV_OUTBOX_BACKEND  # type: ignore[attr-defined]
        return self.get_response(request)

    def process_view(
        self,
        request: HttpRequest,
        view_func: Callable[..., Any],
        view_args: tuple[Any, ...],
        view_kwargs: dict[str, Any],
    ) -> None:
        user = getattr(request, "user", None)
        if user is None or not user.is_authenticated:
            return
        language = Preference.objects.filter(user_id=user.pk).values_list("language", flat=True).first()
        if language and language in dict(settings.LANGUAGES):
            translation.activate(language)
            request.LANGUAGE_CODE = language

"""The signed-in user's language.

Sits right after ``LocaleMiddleware`` (which picks a language from the
browser) and overrides it with the user's own choice, so that the site
speaks the language the user's emails are written in. The user is known only
once ``AuthenticationMiddleware`` has run, so the work is done in
``process_view``, which runs after every middleware's request phase;
``LocaleMiddleware`` then sends the activated language as ``Content-Language``.
A user who has not chosen keeps the browser's language.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import translation


def speak_language_of(request: HttpRequest, user: Any) -> None:
    """Answer ``request`` in ``user``'s chosen language, if they chose one (else the
    browser's stays). Also for a page an emailed link opens before anyone signs in:
    the link names its player, whose emails are in that language."""
    language = getattr(user, "language", "") if user is not None else ""
    if language:
        translation.activate(language)
        request.LANGUAGE_CODE = language


class UserLanguageMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_view(
        self,
        request: HttpRequest,
        view_func: Callable[..., Any],
        view_args: tuple[Any, ...],
        view_kwargs: dict[str, Any],
    ) -> None:
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated:
            speak_language_of(request, user)


class BotAccountsUseTheApiMiddleware:
    """A bot account plays through the API only: every page of the site
    answers it with a polite refusal (and a way to sign out) instead."""

    OPEN_PREFIXES = ("/api/", "/accounts/logout/", "/oauth/token/", "/oauth/revoke_token/")

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        user = getattr(request, "user", None)
        is_bot = user is not None and user.is_authenticated and getattr(user, "is_bot", False)
        if is_bot and not request.path.startswith(self.OPEN_PREFIXES):
            return render(request, "accounts/bot_refused.html", status=403)
        return self.get_response(request)

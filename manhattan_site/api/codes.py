"""The registry of problem codes: what each ``code`` of a problem+json body
means (its HTTP status, its title, and a description a translator can reach),
and the base error type the apps raise.

Each app declares its own codes in its ``problem_codes`` module, as a list
``CODES`` of :class:`ErrorCode` next to the app's raise sites; the registry
reads that module from every installed app (as the admin finds ``admin``
modules), so a new code touches only its app. A code answered without being
registered is a refusal of what the request asked: 422.

This module is the bottom of the API layer: it imports no app, and an app's
codes module imports only this.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from importlib import import_module
from typing import Any

from django.apps import apps
from django.core.exceptions import ImproperlyConfigured
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.utils.functional import Promise
from django.utils.module_loading import module_has_submodule

UNREGISTERED_STATUS = 422
# The module of each app that declares its codes (as ``CODES``).
CODES_MODULE = "problem_codes"
# The layer's own codes (DRF's, the strict input's, the database's).
LAYER_CODES_MODULE = "manhattan_site.api.shared_codes"


@dataclass(frozen=True)
class ErrorCode:
    """One problem code. ``description`` is marked for translation (``gettext_lazy``);
    ``rules`` and ``examples`` list the rules and messages an engine refusal
    covers (shown on the code's problem page); ``title`` is the problem body's
    title when the code in words will not do. ``page_text`` is what a person
    reads when a web page meets the code: the description speaks to a client's
    programmer ("see 'current_version'"), a page to a player ("This game is
    over."), so a code a page can show declares both, here, where it is declared.
    It may name the error's ``extra`` as ``%(name)s``."""

    code: str
    status: int
    description: str | Promise
    title: str = ""
    rules: tuple[str, ...] = ()
    examples: tuple[str, ...] = ()
    page_text: str | Promise = ""

    @property
    def heading(self) -> str:
        return self.title or title_of(self.code)


class ProblemError(Exception):
    """The base of the apps' refusals: a registered ``code``, a human message in
    English and machine-readable details in ``extra`` (``retry_after`` becomes
    a Retry-After header). The problem handler answers it with its code's status."""

    def __init__(self, code: str, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.extra = extra

    @property
    def status(self) -> int:
        return status_for(self.code)


def title_of(code: str) -> str:
    return code.replace("_", " ").capitalize()


def _declared(module_name: str) -> Iterable[ErrorCode]:
    codes: Iterable[ErrorCode] = import_module(module_name).CODES
    return codes


def declaring_modules() -> list[str]:
    """The layer's codes module, then every installed app's, in INSTALLED_APPS order."""
    found = [LAYER_CODES_MODULE]
    for config in apps.get_app_configs():
        if module_has_submodule(config.module, CODES_MODULE):
            found.append(f"{config.name}.{CODES_MODULE}")
    return found


@cache
def all_codes() -> dict[str, ErrorCode]:
    """Every registered code, by name, sorted. Two modules declaring one code
    differently is a configuration error, found at the first request rather
    than by a client."""
    registry: dict[str, tuple[ErrorCode, str]] = {}
    for module_name in declaring_modules():
        for entry in _declared(module_name):
            known = registry.get(entry.code)
            if known is not None and known[0] != entry:
                raise ImproperlyConfigured(f"Problem code {entry.code!r}: {known[1]} and {module_name} disagree.")
            registry[entry.code] = (entry, module_name)
    return {code: entry for code, (entry, _module) in sorted(registry.items())}


@receiver(setting_changed)
def _forget(*, setting: str, **kwargs: Any) -> None:
    if setting == "INSTALLED_APPS":  # tests that install an app
        all_codes.cache_clear()


def lookup(name: str) -> ErrorCode | None:
    return all_codes().get(name)


def status_for(name: str) -> int:
    entry = lookup(name)
    return entry.status if entry is not None else UNREGISTERED_STATUS


def title_for(name: str) -> str:
    entry = lookup(name)
    return entry.heading if entry is not None else title_of(name)


def page_text_for(error: ProblemError, default: str | None = None) -> str:
    """What a web page tells a person about ``error``, in the active language:
    its code's ``page_text`` (filled from the error's ``extra``), else
    ``default``, else the error's own English message."""
    fallback = error.message if default is None else default
    entry = lookup(error.code)
    if entry is None or not entry.page_text:
        return fallback
    text = str(entry.page_text)
    try:
        return text % error.extra if "%(" in text else text
    except (KeyError, TypeError, ValueError):  # a translation that lost a placeholder: the English is right
        return fallback

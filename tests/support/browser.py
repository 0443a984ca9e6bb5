"""The browser: Debian's Chromium driven by Playwright, a player signed in by
their session cookie, axe-core injected into a page, and the step of a game's review
a page shows. Its fixture
``browser`` (the module's one Chromium, the test's contexts closed after it) is
taken in by tests/browser/conftest.py."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.db import connection
from django.test import Client
from playwright.sync_api import Browser, BrowserContext, Page, sync_playwright

from accounts.models import User
from tests.support.live_server import AsgiServer

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ROOT = Path(__file__).resolve().parents[2]
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]


def _missing(what: str) -> None:
    """Skip with a line saying how to get ``what``; under CI, fail: there it must run."""
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"{what} (under CI the browser tests must run)")
    pytest.skip(what)


def require_chromium() -> None:
    if not shutil.which(CHROMIUM) and not os.path.exists(CHROMIUM):
        _missing("Chromium is missing: install Debian's (apt-get install chromium) to run the browser tests")


@contextmanager
def launched() -> Iterator[Browser]:
    """Debian's Chromium under Playwright, for as long as the block lasts."""
    require_chromium()
    # Playwright's sync API keeps an event loop on this thread, which makes
    # Django refuse ORM calls here; the test's own ORM calls are plain sync code.
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            try:
                yield browser
            finally:
                # The test's ORM calls made under Playwright's loop have a connection of
                # their own; closed here, or a fixture ending the live server's sessions
                # would end it under the next test.
                connection.close()
                browser.close()


@pytest.fixture(scope="module")
def module_chromium() -> Iterator[Browser]:
    """One browser for a whole test module: a start-up of Chromium costs about a
    second of a busy machine's CPU, and the language journeys are many."""
    with launched() as browser:
        yield browser


@pytest.fixture
def browser(module_chromium: Browser) -> Iterator[Browser]:
    """The module's browser, with what the test opened in it (its contexts: its
    cookies and pages) closed after it, so the next test starts clean."""
    before = set(module_chromium.contexts)
    yield module_chromium
    for context in module_chromium.contexts:
        if context not in before:
            context.close()
    # The ORM calls made under Playwright's loop have a connection of their own,
    # which the next test's may use again: closed here, not ended from outside.
    connection.close()


def signed_in(
    browser: Browser,
    site: str | AsgiServer,
    user: User,
    viewport: dict[str, int] = DESKTOP,
    *,
    bypass_csp: bool = False,
) -> BrowserContext:
    """A browser context with ``user``'s session on ``site`` (its address, or the
    live server), as if they had followed a sign-in link.
    ``bypass_csp`` lets a test inject its own script (axe-core); the pages' own
    scripts are tested under the site's Content-Security-Policy."""
    client = Client()
    client.force_login(user)
    context = browser.new_context(
        viewport={"width": viewport["width"], "height": viewport["height"]}, bypass_csp=bypass_csp
    )
    cookie = client.cookies[settings.SESSION_COOKIE_NAME].value
    base_url = site if isinstance(site, str) else site.url
    context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "value": cookie, "url": base_url}])
    return context


def axe_violations(page: Any, impacts: tuple[str, ...] = ("serious", "critical")) -> list[dict[str, Any]]:
    """axe-core's violations of ``impacts`` on the page as it stands."""
    if not AXE.exists():
        _missing(
            "axe-core is missing: run `npm install` at the repository root "
            "(npm itself: apt-get install npm); `python3 dev.py test` does it when npm is there"
        )
    page.add_script_tag(path=str(AXE))
    result: dict[str, Any] = page.evaluate("async () => await axe.run(document, {resultTypes: ['violations']})")
    return [v for v in result["violations"] if v.get("impact") in impacts]


def describe(violations: list[dict[str, Any]]) -> str:
    return "\n".join(
        f"{v['id']} ({v['impact']}): {v['help']} — " + "; ".join(n["target"][0] for n in v["nodes"][:5])
        for v in violations
    )


def step_shown(page: Page) -> tuple[str, str]:
    """The review step on the page: its number among the marked moves, and its board."""
    step = page.get_by_test_id("review-step")
    return step.get_attribute("data-number") or "", step.locator("svg.board").inner_html()


def at_step(page: Page, number: int) -> tuple[str, str]:
    """Wait until the page shows the review's marked move ``number``; what it shows then."""
    page.locator(f"[data-testid=review-step][data-number='{number}']").wait_for()
    return step_shown(page)

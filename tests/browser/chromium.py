"""Moved to tests/support/browser.py; kept so that browser tests written
against the old place still import. New tests import tests.support.browser."""

from tests.support.browser import (  # noqa: F401
    AXE,
    CHROMIUM,
    DESKTOP,
    PHONE,
    ROOT,
    axe_violations,
    chromium,
    describe,
    require_chromium,
    screenshot_path,
    signed_in,
)

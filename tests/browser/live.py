"""Moved to tests/support/pages.py (and signed_in to tests/support/browser.py);
kept so that browser tests written against the old place still import. New
tests import tests.support.pages."""

from tests.support.browser import signed_in  # noqa: F401
from tests.support.pages import (  # noqa: F401
    click_to_build_is_ready,
    deliver_pending,
    move_by_api,
    open_game,
    sent_turn_emails,
    to_act,
    wait_for_version,
    wait_until_present,
)

"""In Chromium: from the preferences page, a player asks for their data, then
closes their account; they are signed out, and their address signs up again as
someone new."""

from __future__ import annotations

from typing import Any

import pytest

from accounts.models import User
from notifications.models import DataExport
from tests.support.browser import signed_in

pytestmark = pytest.mark.django_db(transaction=True)


def test_download_then_close_from_the_preferences_page(
    live_server_connections_closed: Any, live_server: Any, browser: Any
) -> None:
    alice = User.objects.create_user("alice@example.com", display_name="Alice")
    page = signed_in(browser, live_server.url, alice).new_page()
    page.goto(f"{live_server.url}/mail/preferences/")
    page.get_by_test_id("download-my-data").click()
    page.wait_for_load_state()
    assert DataExport.objects.filter(user=alice).count() == 1

    page.get_by_test_id("close-account-link").click()
    page.wait_for_load_state()
    page.get_by_test_id("close-account-button").click()  # not ticked: the browser asks to confirm first
    alice.refresh_from_db()
    assert alice.closed is None
    page.get_by_test_id("confirm-close").check()
    page.get_by_test_id("close-account-button").click()
    page.wait_for_load_state()
    assert page.get_by_test_id("account-closed").count() == 1
    alice.refresh_from_db()
    assert alice.closed is not None
    assert alice.public_name == f"former player {alice.pk}"

    page.goto(f"{live_server.url}/mail/preferences/")
    assert "/accounts/login/" in page.url  # signed out
    page.get_by_label("Your email address").fill("alice@example.com")
    page.get_by_role("button").last.click()
    page.wait_for_load_state()
    again = User.objects.get(email="alice@example.com")
    assert again.pk != alice.pk
    assert again.display_name == ""

"""Unsubscribing, email preferences and the development outbox."""

from __future__ import annotations

import re
from datetime import timedelta
from urllib.parse import urlsplit

import pytest
from django.core.mail import EmailMultiAlternatives
from django.core.mail.backends.filebased import EmailBackend as FileBackend
from django.test import Client
from django.utils import timezone

from accounts import links
from notifications.models import Preference

pytestmark = pytest.mark.django_db


def unsubscribe_path(user, kind="your_turn") -> str:
    return urlsplit(links.unsubscribe_url(user, kind)).path


# --- unsubscribing ---------------------------------------------------------------------------------


def test_opening_the_unsubscribe_link_only_asks(alice):
    response = Client().get(unsubscribe_path(alice))
    assert response.status_code == 200
    html = response.content.decode()
    assert "Stop sending me “Your turn” emails?" in html
    assert 'data-testid="unsubscribe-button"' in html
    assert 'method="post"' in html
    assert response["Referrer-Policy"] == "no-referrer"
    assert all(not kinds for kinds in Preference.objects.filter(user=alice).values_list("unsubscribed", flat=True))


def test_the_confirm_button_unsubscribes(alice):
    client = Client()
    page = client.get(unsubscribe_path(alice)).content.decode()
    token = page.split('name="csrfmiddlewaretoken" value="', 1)[1].split('"', 1)[0]
    response = client.post(unsubscribe_path(alice), {"csrfmiddlewaretoken": token})
    assert response.status_code == 200
    assert 'data-testid="unsubscribed"' in response.content.decode()
    assert Preference.objects.get(user=alice).unsubscribed == ["your_turn"]


def test_one_click_unsubscribe_needs_no_csrf_token(alice):
    """RFC 8058: the mail client POSTs "List-Unsubscribe=One-Click" without a session."""
    client = Client(enforce_csrf_checks=True)
    response = client.post(unsubscribe_path(alice, "reminder"), {"List-Unsubscribe": "One-Click"})
    assert response.status_code == 200
    assert Preference.objects.get(user=alice).unsubscribed == ["reminder"]


def test_a_bad_unsubscribe_link_is_400(alice):
    response = Client().get("/mail/unsubscribe/not-a-token/")
    assert response.status_code == 400
    assert 'data-testid="bad-link"' in response.content.decode()


# --- preferences -------------------------------------------------------------------------------------


def test_preferences_need_sign_in():
    response = Client().get("/mail/preferences/")
    assert response.status_code == 302
    assert "/accounts/login/" in response["Location"]


def test_preferences_page_shows_the_form(alice, browser):
    html = browser(alice).get("/mail/preferences/").content.decode()
    for name in ("frequency", "language", "vacation_days"):
        assert f'name="{name}"' in html
    assert 'data-testid="save-preferences"' in html


def test_saving_frequency_language_and_vacation(alice, browser):
    response = browser(alice).post(
        "/mail/preferences/", {"frequency": "daily_digest", "language": "nl", "vacation_days": "10"}
    )
    assert response.status_code == 302
    assert response["Location"] == "/mail/preferences/"
    preference = Preference.objects.get(user=alice)
    assert preference.frequency == "daily_digest"
    alice.refresh_from_db()
    assert alice.language == "nl"
    expected = timezone.now() + timedelta(days=10)
    assert abs((preference.vacation_until - expected).total_seconds()) < 60


def test_a_vacation_longer_than_30_days_is_refused(alice, browser):
    response = browser(alice).post(
        "/mail/preferences/", {"frequency": "every_turn", "language": "en", "vacation_days": "31"}
    )
    assert response.status_code == 200
    assert 'class="errorlist"' in response.content.decode()
    assert not Preference.objects.filter(user=alice, vacation_until__isnull=False).exists()


def test_vacation_zero_ends_it(alice, browser):
    client = browser(alice)
    client.post("/mail/preferences/", {"frequency": "every_turn", "language": "en", "vacation_days": "5"})
    assert Preference.objects.get(user=alice).vacation_until is not None
    assert 'data-testid="vacation-until"' in client.get("/mail/preferences/").content.decode()
    client.post("/mail/preferences/", {"frequency": "every_turn", "language": "en", "vacation_days": "0"})
    assert Preference.objects.get(user=alice).vacation_until is None


def test_resubscribing(alice, browser):
    Preference.objects.create(user=alice, unsubscribed=["your_turn", "reminder"])
    client = browser(alice)
    html = client.get("/mail/preferences/").content.decode()
    assert 'name="resubscribe" value="your_turn"' in html
    assert 'name="resubscribe" value="reminder"' in html
    client.post(
        "/mail/preferences/",
        {"frequency": "every_turn", "language": "en", "vacation_days": "", "resubscribe": ["reminder"]},
    )
    assert Preference.objects.get(user=alice).unsubscribed == ["your_turn"]


# --- the development outbox -------------------------------------------------------------------------------


RAW_EMAIL = """Content-Type: text/plain; charset="utf-8"
MIME-Version: 1.0
Content-Transfer-Encoding: 7bit
Subject: Your turn in game 1234abcd
From: play@localhost
To: alice@example.com
Date: Mon, 01 Jan 2024 10:00:00 -0000

It is your turn. Open the game: http://127.0.0.1:8000/accounts/link/game/abc/
<script>alert(1)</script>
"""


@pytest.fixture
def outbox_dir(settings, tmp_path):
    settings.DEBUG = True
    settings.EMAIL_BACKEND = "django.core.mail.backends.filebased.EmailBackend"
    settings.EMAIL_FILE_PATH = tmp_path
    (tmp_path / "one.log").write_text(RAW_EMAIL + "\n" + "-" * 79 + "\n")
    return tmp_path


def test_outbox_lists_emails_with_clickable_links(outbox_dir, alice, browser):
    response = browser(alice).get("/mail/outbox/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "Your turn in game 1234abcd" in html
    assert "alice@example.com" in html
    assert '<a href="http://127.0.0.1:8000/accounts/link/game/abc/"' in html
    assert "<script>alert(1)</script>" not in html  # the body is escaped
    assert 'data-testid="messages"' not in html  # the emails are not shown as flash messages
    assert 'data-testid="nav-outbox"' in html


def test_outbox_decodes_mime_and_shows_the_html_part_sandboxed(outbox_dir, alice, browser):
    """A real email as the site writes it: a non-ASCII subject (RFC 2047), both
    parts encoded, the HTML shown in a sandboxed frame, never run in the page."""
    message = EmailMultiAlternatives(
        subject="Manhattan 카드: 당신의 차례 — Größe 2",
        body="Ihr Zug: Karte 5 Stadt 3 Größe 2. 당신의 차례입니다.",
        from_email="play@localhost",
        to=["alice@example.com"],
    )
    message.attach_alternative("<p>Spiel <strong>weiter</strong> — 차례</p><script>alert(2)</script>", "text/html")
    FileBackend(file_path=str(outbox_dir)).send_messages([message])
    html = browser(alice).get("/mail/outbox/").content.decode()
    assert "Manhattan 카드: 당신의 차례 — Größe 2" in html
    assert "Ihr Zug: Karte 5 Stadt 3 Größe 2. 당신의 차례입니다." in html
    frame = re.search(r'<iframe sandbox="" srcdoc="([^"]*)"', html)
    assert frame is not None, "the HTML part is in a frame with no allowances"
    assert "&lt;strong&gt;weiter&lt;/strong&gt;" in frame.group(1)
    assert "<script>alert(2)</script>" not in html


def test_outbox_link_only_in_debug(alice, browser):
    assert 'data-testid="nav-outbox"' not in browser(alice).get("/games/").content.decode()


def test_outbox_is_404_without_debug(alice, browser):
    assert browser(alice).get("/mail/outbox/").status_code == 404


def test_fifty_emails_come_ten_to_a_page_newest_first(outbox_dir, alice, browser):
    """Decoding MIME is the slow part: a page decodes only the emails it shows."""
    for n in range(49):
        message = RAW_EMAIL.replace("Subject: Your turn in game 1234abcd", f"Subject: Email number {n}")
        (outbox_dir / f"m{n:02}.log").write_text(message + "\n" + "-" * 79 + "\n")
    client = browser(alice)
    first = client.get("/mail/outbox/").content.decode()
    assert first.count('data-testid="outbox-message"') == 10
    assert 'href="?page=2"' in first
    assert 'data-testid="outbox-newer"' not in first
    last = client.get("/mail/outbox/?page=5").content.decode()
    assert last.count('data-testid="outbox-message"') == 10
    assert 'data-testid="outbox-older"' not in last
    assert 'href="?page=4"' in last
    assert client.get("/mail/outbox/?page=x").status_code == 200

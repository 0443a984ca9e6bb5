"""An operator sends a failed email again from the admin (*Notifications*): it is
pending and due at once, handed to the workers, gets one more try, and the
admin's history says who asked."""

from __future__ import annotations

import html
import smtplib
from datetime import timedelta
from typing import Any

import pytest
from celery import current_app
from django.contrib.admin.models import LogEntry
from django.utils import timezone

from notifications import exports, outbox
from notifications.models import Kind, Notification

pytestmark = pytest.mark.django_db


def given_up(user: Any, monkeypatch: pytest.MonkeyPatch, key: str) -> Notification:
    """An email the mail server kept refusing until it was three days old."""
    notification = outbox.enqueue(kind=Kind.YOUR_TURN, key=key, email=user.email, user=user)
    assert notification is not None
    Notification.objects.filter(pk=notification.pk).update(created=timezone.now() - timedelta(days=3, minutes=1))

    def down(message: Any) -> None:
        raise smtplib.SMTPServerDisconnected("down")

    with monkeypatch.context() as patched:
        patched.setattr(outbox, "send", down)
        assert outbox.deliver(notification.pk) is False
    notification.refresh_from_db()
    assert notification.status == Notification.Status.FAILED
    return notification


def test_an_operator_sends_a_failed_email_again(
    admin, operator, alice, monkeypatch, mailoutbox, django_capture_on_commit_callbacks
):
    failed = given_up(alice, monkeypatch, "failed")
    sent = outbox.enqueue(kind=Kind.YOUR_TURN, key="sent", email=alice.email, user=alice)
    assert sent is not None
    assert outbox.deliver(sent.pk) is True
    mailoutbox.clear()
    published: list[list[int]] = []
    monkeypatch.setattr(current_app, "send_task", lambda name, args: published.append(args[0]))

    listing = admin.get("/admin/notifications/notification/?status__exact=failed").content.decode()
    assert 'value="send_again"' in listing
    with django_capture_on_commit_callbacks(execute=True):
        response = admin.post(
            "/admin/notifications/notification/",
            {"action": "send_again", "_selected_action": [failed.pk, sent.pk]},
            follow=True,
        )
    assert "1 failed email(s) will be sent again." in response.content.decode()
    failed.refresh_from_db()
    assert failed.status == Notification.Status.PENDING
    assert failed.next_attempt <= timezone.now()
    assert published == [[failed.pk]]
    assert Notification.objects.get(pk=sent.pk).status == Notification.Status.SENT
    [logged] = LogEntry.objects.filter(user=operator)
    assert logged.object_id == str(failed.pk)

    assert outbox.deliver(failed.pk) is True  # what the worker does with it
    assert [m.to for m in mailoutbox] == [[alice.email]]
    assert Notification.objects.get(pk=failed.pk).status == Notification.Status.SENT


def test_an_email_page_does_not_show_a_data_export_link(admin, alice):
    """The link in a data-export email opens the person's whole data to whoever holds it,
    without signing in: the operator sees that the email has one, never the link."""
    export = exports.request_export(user=alice)
    assert exports.build(export.pk)
    email = Notification.objects.get(kind=Kind.DATA_EXPORT, user=alice)
    link = email.context["link"]
    token = link.rstrip("/").rsplit("/", 1)[-1]
    for url in (
        f"/admin/notifications/notification/{email.pk}/change/",
        "/admin/notifications/notification/",
        f"/admin/notifications/notification/?q={alice.email}",
    ):
        page = html.unescape(admin.get(url).content.decode())
        assert token not in page, url
    page = html.unescape(admin.get(f"/admin/notifications/notification/{email.pk}/change/").content.decode())
    assert "expires" in page

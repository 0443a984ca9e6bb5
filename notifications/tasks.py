"""Celery tasks for notifications: thin wrappers around the outbox and the sweeps."""

from celery import shared_task

from . import digests, exports, outbox, reminders


@shared_task(ignore_result=True, acks_late=True)  # type: ignore[untyped-decorator]
def deliver_notification(notification_id: int) -> bool:
    return outbox.deliver(notification_id)


@shared_task(ignore_result=True, acks_late=True)  # type: ignore[untyped-decorator]
def deliver_notifications(notification_ids: list[int]) -> int:
    """Deliver a batch (a move's or a sweep's emails): one task message instead of one per email."""
    return outbox.EMAIL_OUTBOX.deliver_batch(notification_ids)


@shared_task(ignore_result=True)  # type: ignore[untyped-decorator]
def sweep_outbox() -> int:
    """Send whatever is pending and due, serially (``manhattan_site.outbox``): the
    broker lost a task, or the mail server was down and the back-off has passed."""
    return outbox.sweep_outbox()


@shared_task(ignore_result=True)  # type: ignore[untyped-decorator]
def sweep_reminders() -> dict[str, int]:
    """Remind players whose turn has waited, and time out the long absent."""
    return {
        "reminders": reminders.send_due_reminders(),
        "timeouts": reminders.time_out_absent_players(),
    }


@shared_task(ignore_result=True)  # type: ignore[untyped-decorator]
def send_digests() -> int:
    return digests.send_digests()


@shared_task(ignore_result=True, acks_late=True)  # type: ignore[untyped-decorator]
def build_data_export(export_id: int) -> bool:
    """Build a person's data export and email them its link."""
    return exports.build(export_id)


@shared_task(ignore_result=True)  # type: ignore[untyped-decorator]
def sweep_data_exports() -> int:
    """Delete the exports whose link has expired (and queue any left unbuilt)."""
    return exports.sweep()

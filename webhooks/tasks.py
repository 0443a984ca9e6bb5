"""Celery tasks for webhooks: thin wrappers around ``webhooks.delivery``."""

from celery import shared_task

from . import delivery


@shared_task(ignore_result=True, acks_late=True)  # type: ignore[untyped-decorator]
def deliver_webhooks(delivery_ids: list[int]) -> int:
    return delivery.WEBHOOK_OUTBOX.deliver_batch(delivery_ids)


@shared_task(ignore_result=True)  # type: ignore[untyped-decorator]
def sweep_webhooks() -> int:
    """Send the deliveries that are due (retries, and what the broker lost), serially
    (``manhattan_site.outbox``), and forget old ones."""
    delivery.prune()
    return delivery.sweep()

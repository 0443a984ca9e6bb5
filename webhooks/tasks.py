"""Celery tasks for webhooks: thin wrappers around ``webhooks.delivery``."""

from celery import shared_task

from . import delivery


@shared_task(ignore_result=True, acks_late=True)  # type: ignore[untyped-decorator]
def deliver_webhooks(delivery_ids: list[int]) -> int:
    return sum(1 for pk in delivery_ids if delivery.deliver(pk))


@shared_task(ignore_result=True)  # type: ignore[untyped-decorator]
def sweep_webhooks() -> int:
    """Hand out the deliveries that are due (retries, and what the broker lost), and forget old ones."""
    delivery.prune()
    return delivery.sweep()

"""Webhook attempts, delivered and failed, as ``/metrics`` shows them."""

from __future__ import annotations

import pytest

from tests.factories import webhook_delivery
from tests.support.metrics import scrape, value
from webhooks import delivery

pytestmark = pytest.mark.django_db
DELIVERED = 'manhattan_webhook_attempts_total{outcome="delivered"}'
FAILED = 'manhattan_webhook_attempts_total{outcome="failed"}'


def test_webhook_attempts_are_counted_by_outcome(alice, receiver, endpoint_for, settings):
    endpoint = endpoint_for(alice).endpoint
    before = scrape(settings)
    receiver.status = 200
    assert delivery.deliver(webhook_delivery(endpoint, seq=1).pk)
    receiver.status = 500
    assert not delivery.deliver(webhook_delivery(endpoint, seq=2).pk)
    assert not delivery.deliver(webhook_delivery(endpoint, seq=3).pk)
    after = scrape(settings)
    assert value(after, DELIVERED) == value(before, DELIVERED) + 1
    assert value(after, FAILED) == value(before, FAILED) + 2

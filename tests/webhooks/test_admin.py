"""The webhooks admin as an operator uses it: endpoints with their state and
recent deliveries (never the secret), the delivery log read-only, and a
"send a test event" action."""

from __future__ import annotations

import html
import json

import pytest
from django.contrib.admin.models import LogEntry

from tests.factories import act, greedy_move, select_all, two_player_game, webhook_delivery
from webhooks import delivery, services
from webhooks.models import Delivery, Endpoint

pytestmark = pytest.mark.django_db


def test_an_endpoint_shows_its_state_and_deliveries_but_not_its_secret(admin, alice, endpoint_for, receiver):
    new = endpoint_for(alice)
    receiver.status = 500
    test = services.send_test_event(endpoint=new.endpoint)
    delivery.deliver(test.pk)

    listing = admin.get("/admin/webhooks/endpoint/")
    assert listing.status_code == 200
    assert new.endpoint.url in listing.content.decode()
    page = admin.get(f"/admin/webhooks/endpoint/{new.endpoint.pk}/change/").content.decode()
    assert new.endpoint.url in page
    assert "webhook.test" in page
    assert "HTTP 500." in page
    assert new.secret not in page
    assert new.secret[6:] not in page


def test_the_delivery_log_is_read_only(admin, alice, endpoint_for):
    test = services.send_test_event(endpoint=endpoint_for(alice).endpoint)
    listing = admin.get("/admin/webhooks/delivery/?status=pending")
    assert listing.status_code == 200
    assert test.event_id in listing.content.decode()
    page = admin.get(f"/admin/webhooks/delivery/{test.pk}/change/")
    assert page.status_code == 200
    assert 'name="_save"' not in page.content.decode()
    admin.post(f"/admin/webhooks/delivery/{test.pk}/change/", {"status": "delivered"})
    test.refresh_from_db()
    assert test.status == Delivery.Status.PENDING
    assert admin.get("/admin/webhooks/delivery/add/").status_code == 403


def test_the_send_a_test_event_action(admin, alice, bob, endpoint_for, broker, django_capture_on_commit_callbacks):
    first, second = endpoint_for(alice).endpoint, endpoint_for(bob).endpoint
    with django_capture_on_commit_callbacks(execute=True):
        response = admin.post(
            "/admin/webhooks/endpoint/",
            {"action": "send_test_event", "_selected_action": [first.pk, second.pk]},
            follow=True,
        )
    assert response.status_code == 200
    assert "Test events queued for 2 endpoint(s)." in response.content.decode()
    tests = Delivery.objects.filter(event_type="webhook.test")
    assert {t.endpoint_id for t in tests} == {first.pk, second.pk}
    assert sorted(broker.ids) == sorted(t.pk for t in tests)


def test_switching_an_endpoint_back_on_in_the_admin_forgets_its_failures(admin, alice, endpoint_for):
    endpoint = endpoint_for(alice).endpoint
    services.update_endpoint(endpoint=endpoint, enabled=False)
    endpoint.consecutive_failures = 15
    endpoint.save()
    response = admin.post(
        f"/admin/webhooks/endpoint/{endpoint.pk}/change/",
        {
            "owner": alice.pk,
            "description": "",
            "event_types": '["game.move"]',
            "enabled": "on",
            "disabled_reason": endpoint.disabled_reason,
            # The (empty) inline of recent deliveries.
            "deliveries-TOTAL_FORMS": "0",
            "deliveries-INITIAL_FORMS": "0",
            "deliveries-MIN_NUM_FORMS": "0",
            "deliveries-MAX_NUM_FORMS": "0",
        },
    )
    assert response.status_code == 302, [line for line in response.content.decode().splitlines() if "error" in line]
    endpoint.refresh_from_db()
    assert endpoint.enabled is True
    assert endpoint.consecutive_failures == 0
    assert endpoint.disabled_reason == ""
    assert endpoint.event_types == ["game.move"]


def test_a_delivery_page_shows_no_hand_and_no_drawn_card(admin, alice, bob, endpoint_for):
    """The owner's webhooks carry their own hand and the cards they drew; the operator's
    delivery log shows them as the game's own admin page does, as counts: the deck's
    order is secret from operators too."""
    endpoint = endpoint_for(alice).endpoint
    game = two_player_game(alice, bob)
    select_all(game)
    act(game, greedy_move(game))  # alice, the start player, places and draws a card
    started = endpoint.deliveries.get(event_type="game.started")
    hand = started.payload["data"]["event"]["hands"][0]
    [placed] = [
        event
        for d in endpoint.deliveries.filter(event_type="game.move")
        for event in d.payload["data"]["events"]
        if event["type"] == "piece_placed"
    ]
    assert placed["drew"] is not None

    page = html.unescape(admin.get(f"/admin/webhooks/delivery/{started.pk}/change/").content.decode())
    assert "game_created" in page
    assert '"hand_sizes": [4, 4]' in page
    assert json.dumps(hand) not in page
    move = endpoint.deliveries.get(event_type="game.move", payload__data__version=placed["seq"])
    page = html.unescape(admin.get(f"/admin/webhooks/delivery/{move.pk}/change/").content.decode())
    assert "piece_placed" in page
    assert '"drew_count": 1' in page
    assert f'"drew": {json.dumps(placed["drew"])}' not in page


def test_an_operator_sends_a_failed_delivery_again(admin, operator, alice, endpoint_for, receiver, broker, settings,
                                                   django_capture_on_commit_callbacks):  # fmt: skip
    settings.WEBHOOK_MAX_ATTEMPTS = 1
    endpoint = endpoint_for(alice).endpoint
    receiver.status = 500
    failed = services.send_test_event(endpoint=endpoint)
    failed.event_type = "game.move"  # a test event is tried once whatever the policy; a real one is retried
    failed.save()
    delivery.deliver(failed.pk)
    failed.refresh_from_db()
    assert failed.status == Delivery.Status.FAILED
    broker.ids.clear()

    with django_capture_on_commit_callbacks(execute=True):
        response = admin.post(
            "/admin/webhooks/delivery/", {"action": "send_again", "_selected_action": [failed.pk]}, follow=True
        )
    assert "1 failed delivery(ies) will be sent again." in response.content.decode()
    failed.refresh_from_db()
    assert failed.status == Delivery.Status.PENDING
    assert failed.finished is None
    assert broker.ids == [failed.pk]
    assert LogEntry.objects.filter(user=operator, object_id=str(failed.pk)).exists()

    receiver.status = 200
    assert delivery.deliver(failed.pk) is True  # what the worker does with it
    failed.refresh_from_db()
    assert failed.status == Delivery.Status.DELIVERED


def test_an_endpoint_page_shows_only_its_latest_deliveries(admin, alice):
    """An endpoint that has had thousands of deliveries opens as fast as a new one: its page
    lists the latest few, and the delivery log (filtered by endpoint) has the rest."""
    endpoint = Endpoint.objects.create(owner=alice, url="https://hooks.example/in", secret="s")
    rows = [webhook_delivery(endpoint, seq) for seq in range(60)]
    page = admin.get(f"/admin/webhooks/endpoint/{endpoint.pk}/change/").content.decode()
    shown = page.count('<td class="field-event_type">')
    assert 0 < shown <= 25
    assert f"/admin/webhooks/delivery/{rows[-1].pk}/change/" in page  # the newest
    assert f"/admin/webhooks/delivery/{rows[0].pk}/change/" not in page  # the oldest
    assert f"/admin/webhooks/delivery/?endpoint__id__exact={endpoint.pk}" in page
    log = admin.get(f"/admin/webhooks/delivery/?endpoint__id__exact={endpoint.pk}")
    assert log.status_code == 200
    assert f"/admin/webhooks/delivery/{rows[0].pk}/change/" in log.content.decode()

"""The webhooks API: register (the secret shown once), list, read, change,
delete, the delivery log and a test event; strict input; a limit per user."""

from __future__ import annotations

import pytest

from webhooks import delivery
from webhooks.models import Delivery, Endpoint

pytestmark = pytest.mark.django_db

URL = "/api/v1/webhooks"
BODY = {"url": "https://hooks.example.com/manhattan", "event_types": ["game.your_turn", "game.move"]}


@pytest.fixture
def client(client_for, alice):
    return client_for(alice)


def test_registering_answers_the_secret_once(client, alice):
    response = client.post(URL, {**BODY, "description": "my bot"}, format="json")
    assert response.status_code == 201, response.content
    created = response.json()
    assert created["secret"].startswith("whsec_")
    assert created["url"] == BODY["url"]
    assert created["event_types"] == ["game.move", "game.your_turn"]
    assert created["enabled"] is True
    assert created["consecutive_failures"] == 0
    assert Endpoint.objects.get(pk=created["id"]).owner == alice

    listed = client.get(URL).json()
    assert [e["id"] for e in listed] == [created["id"]]
    assert "secret" not in listed[0]
    read = client.get(f"{URL}/{created['id']}").json()
    assert "secret" not in read
    assert read["description"] == "my bot"


def test_each_endpoint_has_its_own_secret(client):
    first = client.post(URL, BODY, format="json").json()["secret"]
    second = client.post(URL, BODY, format="json").json()["secret"]
    assert first != second


def test_an_unknown_field_is_refused_by_name(client):
    response = client.post(URL, {**BODY, "events": ["game.move"]}, format="json")
    assert response.status_code == 422
    problem = response.json()
    assert problem["code"] == "unknown_field"
    assert problem["field"] == "events"
    assert "'events'" in problem["detail"]
    assert not Endpoint.objects.exists()


def test_an_unknown_field_in_a_change_is_refused_by_name(client):
    created = client.post(URL, BODY, format="json").json()
    response = client.patch(f"{URL}/{created['id']}", {"enabled": False, "secret": "whsec_mine"}, format="json")
    assert response.status_code == 422
    assert response.json()["field"] == "secret"


@pytest.mark.parametrize(
    "body",
    [
        {"url": BODY["url"]},
        {"url": BODY["url"], "event_types": []},
        {"url": BODY["url"], "event_types": ["game.teleported"]},
        {"url": BODY["url"], "event_types": "game.move"},
        {"event_types": ["game.move"]},
        ["not", "an", "object"],
    ],
)
def test_a_malformed_registration_is_a_problem(client, body):
    response = client.post(URL, body, format="json")
    assert response.status_code == 400, response.content
    assert response.json()["code"] == "invalid"


# Kinds of blank the schema's minLength 1 lets through (space, tab, line breaks, Unicode spaces, a
# separator control): a URL of them is refused as any URL the server may not call, not as malformed.
BLANK_URLS = [" ", "\t", "\r\n", "\xa0", "\u2003", "\u2028", "\x1c"]


@pytest.mark.parametrize("url", BLANK_URLS)
def test_a_blank_url_is_refused_as_a_url_the_server_may_not_call(client, url):
    response = client.post(URL, {**BODY, "url": url}, format="json")
    assert response.status_code == 422, response.content
    assert response.json()["code"] == "webhook_url_refused"
    created = client.post(URL, BODY, format="json").json()
    changed = client.patch(f"{URL}/{created['id']}", {"url": url}, format="json")
    assert changed.status_code == 422, changed.content
    assert changed.json()["code"] == "webhook_url_refused"
    assert Endpoint.objects.get(pk=created["id"]).url == BODY["url"]


def test_a_url_between_spaces_is_kept_without_them(client):
    response = client.post(URL, {**BODY, "url": f"  {BODY['url']}\n"}, format="json")
    assert response.status_code == 201, response.content
    assert response.json()["url"] == BODY["url"]


def test_a_user_has_at_most_the_configured_number_of_endpoints(client, settings):
    settings.WEBHOOK_MAX_ENDPOINTS_PER_USER = 2
    for _ in range(2):
        assert client.post(URL, BODY, format="json").status_code == 201
    response = client.post(URL, BODY, format="json")
    assert response.status_code == 422
    assert response.json()["code"] == "webhook_limit_reached"
    assert Endpoint.objects.count() == 2


def test_changing_and_switching_off_and_on(client):
    created = client.post(URL, BODY, format="json").json()
    changed = client.patch(
        f"{URL}/{created['id']}", {"event_types": ["game.over"], "enabled": False}, format="json"
    ).json()
    assert changed["event_types"] == ["game.over"]
    assert changed["enabled"] is False
    assert changed["disabled_reason"]
    Endpoint.objects.filter(pk=created["id"]).update(consecutive_failures=7)
    back_on = client.patch(f"{URL}/{created['id']}", {"enabled": True}, format="json").json()
    assert back_on["enabled"] is True
    assert back_on["consecutive_failures"] == 0
    assert back_on["disabled_reason"] == ""


def test_deleting_removes_the_endpoint_and_its_log(client):
    created = client.post(URL, BODY, format="json").json()
    client.post(f"{URL}/{created['id']}/test")
    assert client.delete(f"{URL}/{created['id']}").status_code == 204
    assert not Endpoint.objects.exists()
    assert not Delivery.objects.exists()
    assert client.get(f"{URL}/{created['id']}").status_code == 404


def test_another_users_endpoint_does_not_exist_for_me(client, client_for, bob):
    created = client.post(URL, BODY, format="json").json()
    theirs = client_for(bob)
    for method, path in [
        ("get", ""),
        ("patch", ""),
        ("delete", ""),
        ("get", "/deliveries"),
        ("post", "/test"),
    ]:
        response = getattr(theirs, method)(f"{URL}/{created['id']}{path}", {}, format="json")
        assert response.status_code == 404, (method, path)
        assert response.json()["code"] == "webhook_not_found"
    assert theirs.get(URL).json() == []
    assert Endpoint.objects.filter(pk=created["id"], enabled=True).exists()


def test_anonymous_callers_are_refused(client_for):
    assert client_for(None).get(URL).status_code in (401, 403)


def test_a_test_event_is_delivered_and_shows_in_the_log(client, receiver, broker, django_capture_on_commit_callbacks):
    created = client.post(URL, {**BODY, "url": receiver.url()}, format="json")
    assert created.status_code == 201, created.content
    endpoint_id = created.json()["id"]
    with django_capture_on_commit_callbacks(execute=True):
        queued = client.post(f"{URL}/{endpoint_id}/test")
    assert queued.status_code == 202
    test = queued.json()
    assert test["event_type"] == "webhook.test"
    assert test["status"] == "pending"
    assert broker.ids == [test["id"]]  # handed to a worker on commit

    for pk in broker.ids:  # what the worker does with the task
        delivery.deliver(pk)

    assert len(receiver.requests) == 1
    log = client.get(f"{URL}/{endpoint_id}/deliveries").json()
    assert len(log) == 1
    entry = log[0]
    assert entry["status"] == "delivered"
    assert entry["http_status"] == 204
    assert entry["attempts"] == 1
    assert isinstance(entry["latency_ms"], int)
    assert entry["latency_ms"] >= 0
    assert entry["event_id"] == receiver.requests[0].headers["webhook-id"]
    assert entry["payload"]["type"] == "webhook.test"


def test_the_log_can_be_filtered_by_status(client, receiver):
    endpoint_id = client.post(URL, {**BODY, "url": receiver.url()}, format="json").json()["id"]
    receiver.status = 500
    for _ in range(2):
        test = client.post(f"{URL}/{endpoint_id}/test").json()
        delivery.deliver(test["id"])
    client.post(f"{URL}/{endpoint_id}/test")
    assert len(client.get(f"{URL}/{endpoint_id}/deliveries?status=failed").json()) == 2
    assert len(client.get(f"{URL}/{endpoint_id}/deliveries?status=pending").json()) == 1
    response = client.get(f"{URL}/{endpoint_id}/deliveries?status=lost")
    assert response.status_code == 400
    assert response.json()["code"] == "bad_filter"


def test_the_schema_types_every_webhook_body():
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    operations = {
        op["operationId"]: op
        for path, item in schema["paths"].items()
        if path.startswith("/api/v1/webhooks")
        for op in item.values()
        if isinstance(op, dict) and "operationId" in op
    }
    assert set(operations) == {
        "webhooks_list",
        "webhooks_create",
        "webhooks_retrieve",
        "webhooks_update",
        "webhooks_destroy",
        "webhooks_deliveries_list",
        "webhooks_test",
        "webhooks_rotate_secret",
    }
    components = schema["components"]["schemas"]
    assert "secret" in components["NewWebhookEndpoint"]["properties"]
    assert "secret" not in components["WebhookEndpoint"]["properties"]
    assert components["WebhookDelivery"]["properties"]["latency_ms"]["nullable"] is True
    create = operations["webhooks_create"]
    assert create["requestBody"]["content"]["application/json"]["schema"]["$ref"].endswith(
        "WebhookEndpointCreateRequest"
    )
    assert "422" in create["responses"]


def test_test_events_are_throttled(client, monkeypatch):
    from rest_framework.throttling import SimpleRateThrottle

    # DRF reads the rates once, into this class attribute.
    monkeypatch.setattr(
        SimpleRateThrottle, "THROTTLE_RATES", {**SimpleRateThrottle.THROTTLE_RATES, "webhook_test": "2/hour"}
    )
    endpoint_id = client.post(URL, BODY, format="json").json()["id"]
    for _ in range(2):
        assert client.post(f"{URL}/{endpoint_id}/test").status_code == 202
    refused = client.post(f"{URL}/{endpoint_id}/test")
    assert refused.status_code == 429
    assert refused.json()["code"] == "throttled"
    assert Delivery.objects.count() == 2


def test_a_new_secret_replaces_the_old_one_after_a_day_of_overlap(client, receiver):
    from django.utils import timezone
    from standardwebhooks import Webhook, WebhookVerificationError

    created = client.post(URL, {**BODY, "url": receiver.url()}, format="json").json()
    rotated = client.post(f"{URL}/{created['id']}/secret")
    assert rotated.status_code == 200
    secret = rotated.json()["secret"]
    assert secret.startswith("whsec_")
    assert secret != created["secret"]
    assert "secret" not in client.get(f"{URL}/{created['id']}").json()

    test = client.post(f"{URL}/{created['id']}/test").json()
    delivery.deliver(test["id"])
    # For a day both sign, so a receiver can switch over without losing a delivery ...
    [request] = receiver.requests
    assert len(request.headers["webhook-signature"].split(" ")) == 2
    assert Webhook(secret).verify(request.body, request.headers)["type"] == "webhook.test"
    assert Webhook(created["secret"]).verify(request.body, request.headers)["type"] == "webhook.test"

    # ... and then only the new one.
    Endpoint.objects.filter(pk=created["id"]).update(previous_secret_until=timezone.now())
    test = client.post(f"{URL}/{created['id']}/test").json()
    delivery.deliver(test["id"])
    later = receiver.requests[1]
    assert len(later.headers["webhook-signature"].split(" ")) == 1
    assert Webhook(secret).verify(later.body, later.headers)["type"] == "webhook.test"
    with pytest.raises(WebhookVerificationError):
        Webhook(created["secret"]).verify(later.body, later.headers)


def test_finished_deliveries_are_forgotten_after_the_configured_days(client, settings):
    from datetime import timedelta

    from django.utils import timezone

    settings.WEBHOOK_LOG_DAYS = 30
    endpoint_id = client.post(URL, BODY, format="json").json()["id"]
    ids = [client.post(f"{URL}/{endpoint_id}/test").json()["id"] for _ in range(3)]
    old = timezone.now() - timedelta(days=31)
    Delivery.objects.filter(pk=ids[0]).update(created=old, status=Delivery.Status.DELIVERED)
    Delivery.objects.filter(pk=ids[1]).update(created=old)  # still pending: kept until it is sent or given up
    assert delivery.prune() == 1
    assert sorted(Delivery.objects.values_list("pk", flat=True)) == sorted(ids[1:])

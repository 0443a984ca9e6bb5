"""The one outbox machine (``manhattan_site.outbox``), as both of its users run it:
emails and webhooks, each through its real delivery and sweep tasks. A lease
that runs out is taken over (and the late worker cannot record over the new
one); two workers racing for the same rows on PostgreSQL send each once; the
back-off follows the one ``RetryPolicy``; a row is given up by its policy."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import pytest
from celery import current_app
from django.conf import settings as django_settings
from django.db import connection
from django.utils import timezone

from accounts.models import User
from manhattan_site.outbox import Attempt, Outbox, RetryPolicy
from notifications import outbox as email_outbox
from notifications import tasks as email_tasks
from notifications.models import Kind, Notification
from webhooks import delivery as webhook_delivery
from webhooks import services, ssrf, transport
from webhooks import tasks as webhook_tasks
from webhooks.models import Delivery, Endpoint


@dataclass
class Far:
    """The far side, as both kinds see it (the mail server, the receiver): what it
    took, in order, and whether it answers with a failure."""

    failing: bool = False
    seconds: float = 0.0  # how long each send takes
    took: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def receive(self, ident: str) -> None:
        if self.seconds:
            time.sleep(self.seconds)  # a send that takes a while: the other worker races meanwhile
        with self.lock:
            self.took.append(ident)


@dataclass
class Kind_:
    """One user of the machine: how to write a row, and its real tasks."""

    name: str
    outbox: Outbox[Any]
    model: type[Any]
    write: Callable[[int], Any]  # the n-th row's pk
    deliver_task: Any
    sweep_task: Any
    ident: Callable[[Any], str]  # how the far side tells rows apart


def _email_kind(user: User, far: Far, monkeypatch: pytest.MonkeyPatch) -> Kind_:
    def send(message: Any) -> None:
        if far.failing:
            raise ConnectionRefusedError(111, "Connection refused")
        far.receive(message.extra_headers["Message-ID"])

    monkeypatch.setattr(email_outbox, "send", send)

    def write(n: int) -> Any:
        row = email_outbox.enqueue(kind=Kind.YOUR_TURN, key=f"machine-{n}", email=user.email, user=user)
        assert row is not None
        return row.pk

    return Kind_(
        "email",
        email_outbox.EMAIL_OUTBOX,
        Notification,
        write,
        email_tasks.deliver_notifications,
        email_tasks.sweep_outbox,
        lambda row: row.message_id,
    )


def _webhook_kind(user: User, far: Far, monkeypatch: pytest.MonkeyPatch) -> Kind_:
    def post(target: Any, body: bytes, headers: dict[str, str]) -> transport.Answer:
        if far.failing:
            raise transport.TransportError("connect_failed", "Connection refused")
        far.receive(headers["webhook-id"])
        return transport.Answer(status=204, location="", body=b"")

    monkeypatch.setattr(ssrf, "check_url", lambda url: url)  # no DNS: the far side is a stand-in
    monkeypatch.setattr(transport, "post", post)
    endpoint = Endpoint.objects.create(
        owner=user, url="https://hooks.example.com/h", event_types=["game.move"], secret=services.new_secret()
    )

    def write(n: int) -> Any:
        payload = {"type": "game.move", "data": {"seq": n}}
        row = Delivery.objects.create(endpoint=endpoint, event_id=f"msg_m{n}", event_type="game.move", payload=payload)
        return row.pk

    return Kind_(
        "webhook",
        webhook_delivery.WEBHOOK_OUTBOX,
        Delivery,
        write,
        webhook_tasks.deliver_webhooks,
        webhook_tasks.sweep_webhooks,
        lambda row: row.event_id,
    )


@pytest.fixture
def far() -> Far:
    return Far()


@pytest.fixture(params=["email", "webhook"])
def kind(request: pytest.FixtureRequest, alice: User, far: Far, monkeypatch: pytest.MonkeyPatch) -> Kind_:
    published: list[Any] = []
    monkeypatch.setattr(current_app, "send_task", lambda name, args, **kw: published.append(args))  # no broker
    make = _email_kind if request.param == "email" else _webhook_kind
    return make(alice, far, monkeypatch)


def _row(kind: Kind_, pk: Any) -> Any:
    return kind.model.objects.get(pk=pk)


# --- the policy itself -------------------------------------------------------------------


def test_the_policy_doubles_from_its_first_delay_up_to_its_cap() -> None:
    policy = RetryPolicy(first_delay=timedelta(seconds=30), max_delay=timedelta(hours=1))
    assert [policy.delay(n).total_seconds() for n in range(1, 10)] == [30, 60, 120, 240, 480, 960, 1920, 3600, 3600]
    assert policy.delay(10_000) == timedelta(hours=1)  # no overflow however long it fails


def test_the_policy_gives_up_by_attempts_or_by_age() -> None:
    by_attempts = RetryPolicy(timedelta(seconds=1), timedelta(hours=1), max_attempts=3)
    assert [by_attempts.gives_up(attempts=n, age=timedelta(days=99)) for n in (1, 2, 3)] == [False, False, True]
    by_age = RetryPolicy(timedelta(seconds=1), timedelta(hours=1), max_age=timedelta(days=3))
    assert by_age.gives_up(attempts=1000, age=timedelta(days=3)) is False
    assert by_age.gives_up(attempts=1, age=timedelta(days=3, seconds=1)) is True


# --- through the real tasks, for both kinds ---------------------------------------------------


@pytest.mark.django_db
def test_a_lapsed_lease_is_taken_over_and_the_late_worker_records_nothing(kind: Kind_, far: Far) -> None:
    pk = kind.write(1)
    now = timezone.now()
    # A worker claimed the row a while ago and died: its lease has just run out.
    kind.model.objects.filter(pk=pk).update(next_attempt=now - kind.outbox.lease() * 3)
    dead_lease = kind.outbox.claim(pk, now - kind.outbox.lease() - timedelta(seconds=1))
    assert dead_lease is not None
    assert dead_lease < now
    live = kind.write(2)
    live_lease = kind.outbox.claim(live, timezone.now())  # another worker holds this one now
    assert live_lease is not None

    assert kind.sweep_task() == 1, "the sweep takes over the lapsed claim, and leaves the live one"
    assert far.took == [kind.ident(_row(kind, pk))]
    assert _row(kind, pk).status == kind.outbox.sent
    assert _row(kind, live).status == kind.outbox.pending

    # The dead worker wakes up and records its attempt: conditional on its claim, it changes nothing.
    late = kind.model.objects.filter(pk=pk, claimed_until=dead_lease)
    kind.outbox._record_failure(_row(kind, pk), late, Attempt("late"), now)
    assert _row(kind, pk).status == kind.outbox.sent
    assert _row(kind, pk).attempts == 1
    assert kind.deliver_task([pk, live]) == 0, "nothing sent twice, nothing taken from a live claim"


@pytest.mark.django_db
def test_the_back_off_follows_the_policy_and_nothing_is_sent_before_it_has_passed(
    kind: Kind_, far: Far, settings: Any
) -> None:
    settings.WEBHOOK_RETRY_BASE_SECONDS = 60
    settings.WEBHOOK_RETRY_MAX_SECONDS = 3600
    settings.WEBHOOK_MAX_ATTEMPTS = 50
    far.failing = True
    pk = kind.write(1)
    due = kind.model.objects.filter(pk=pk)
    waits = []
    for _ in range(8):
        before = timezone.now()
        assert kind.deliver_task([pk]) == 0
        after = _row(kind, pk)
        assert after.status == kind.outbox.pending
        waits.append(round((after.next_attempt - before).total_seconds() / 60))
        assert kind.deliver_task([pk]) == 0, "not due yet: a redelivered task tries nothing"
        assert kind.sweep_task() == 0, "nor does the sweep"
        assert _row(kind, pk).attempts == after.attempts
        due.update(next_attempt=timezone.now())  # the wait has passed
    assert waits == [1, 2, 4, 8, 16, 32, 60, 60]  # minutes: one policy, the same for both kinds
    assert _row(kind, pk).attempts == 8

    far.failing = False
    assert kind.sweep_task() == 1
    assert _row(kind, pk).status == kind.outbox.sent
    assert _row(kind, pk).last_error == ""


@pytest.mark.django_db
def test_a_row_is_given_up_by_its_policy(kind: Kind_, far: Far, settings: Any) -> None:
    """Webhooks give up after their attempts; emails by age (a mail server down for
    hours must not lose the mail written meanwhile)."""
    settings.WEBHOOK_MAX_ATTEMPTS = 3
    far.failing = True
    pk = kind.write(1)
    due = kind.model.objects.filter(pk=pk)
    policy = kind.outbox.policy()
    for attempt in range(1, 4):
        due.update(next_attempt=timezone.now())
        assert kind.deliver_task([pk]) == 0
        assert _row(kind, pk).attempts == attempt
    if policy.max_attempts is None:
        assert _row(kind, pk).status == kind.outbox.pending
        assert policy.max_age is not None
        due.update(next_attempt=timezone.now(), created=timezone.now() - policy.max_age - timedelta(minutes=1))
        assert kind.deliver_task([pk]) == 0
    assert _row(kind, pk).status == kind.outbox.failed
    far.failing = False
    due.update(next_attempt=timezone.now())
    assert kind.sweep_task() == 0, "given up is given up"
    assert kind.deliver_task([pk]) == 0
    assert far.took == []


@pytest.mark.django_db
def test_a_first_attempt_does_not_wait_for_the_workers_clock(kind: Kind_, far: Far) -> None:
    """The row's due time is the writer's clock: a worker a little behind still sends
    a fresh row at once. A retry waits for its back-off, whatever the worker."""
    pk = kind.write(1)
    due = kind.model.objects.filter(pk=pk)
    due.update(next_attempt=timezone.now() + timedelta(seconds=2))  # written "in the future" by a fast clock
    assert kind.deliver_task([pk]) == 1
    retry = kind.write(2)
    kind.model.objects.filter(pk=retry).update(attempts=1, next_attempt=timezone.now() + timedelta(seconds=2))
    assert kind.deliver_task([retry]) == 0
    assert len(far.took) == 1


@pytest.mark.django_db
def test_a_row_held_until_later_is_not_sent_early_by_a_task_that_names_it(kind: Kind_, far: Far) -> None:
    """A fresh row due minutes from now (a game-over email waiting for its review) is
    held: a delivery task naming it, redelivered or stray, leaves it to its time."""
    pk = kind.write(1)
    held = timezone.now() + timedelta(minutes=10)
    kind.model.objects.filter(pk=pk).update(next_attempt=held)
    assert kind.deliver_task([pk]) == 0
    assert kind.sweep_task() == 0
    assert far.took == []
    kind.model.objects.filter(pk=pk).update(next_attempt=timezone.now())  # its time has come
    assert kind.deliver_task([pk]) == 1
    assert len(far.took) == 1


@pytest.mark.django_db
def test_a_sweep_starts_no_new_send_once_its_time_is_spent(kind: Kind_, far: Far) -> None:
    """Serial in its own task, a sweep must end within the task's soft time limit:
    what it has no time for is the next sweep's, the longest waiting first."""
    pks = [kind.write(n) for n in range(1, 4)]
    far.seconds = 0.2
    assert kind.outbox.sweep(budget_seconds=0.1) == 1
    assert far.took == [kind.ident(_row(kind, pks[0]))]
    assert kind.outbox.sweep_budget() < django_settings.CELERY_TASK_SOFT_TIME_LIMIT - kind.outbox.longest_send()
    assert kind.sweep_task() == 2
    assert len(far.took) == 3


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_workers_racing_for_the_same_rows_send_each_once(kind: Kind_, far: Far) -> None:
    """Two delivery tasks for the same rows (a redelivered message and the sweep)
    start at the same moment, in opposite orders, on two connections: the claim's
    conditional UPDATE lets exactly one send each row."""
    pks = [kind.write(n) for n in range(1, 9)]
    far.seconds = 0.05
    start = threading.Barrier(2)
    sent: list[int] = []
    errors: list[BaseException] = []

    def worker(order: list[Any], task: Callable[..., int]) -> None:
        try:
            start.wait(timeout=10)
            sent.append(task(order))
        except BaseException as error:  # shown by the assertion below
            errors.append(error)
        finally:
            connection.close()

    threads = [
        threading.Thread(target=worker, args=(pks, kind.deliver_task)),
        threading.Thread(target=worker, args=(list(reversed(pks)), kind.deliver_task)),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not errors, errors
    assert sum(sent) == len(pks)
    assert sorted(far.took) == sorted(kind.ident(_row(kind, pk)) for pk in pks), "each row sent once"
    rows = kind.model.objects.filter(pk__in=pks)
    assert {(row.status, row.attempts, row.claimed_until) for row in rows} == {(kind.outbox.sent, 1, None)}

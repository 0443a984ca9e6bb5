"""The outbox machine that emails and webhooks both use.

A row of an outbox is written in the transaction of the event that causes it
(the move and its emails and webhooks are stored together or not at all),
handed to a delivery task after commit, and picked up by a periodic sweep if
the broker lost it or an attempt failed. One ``Outbox`` subclass per kind of
row adds only what is its own: how to build one and send it (``send``), when
not to send it at all (``suppressed``), and what to count or do after an
attempt (``on_sent``, ``on_failed``). Everything else is here, once:

* **claim with a lease**: a conditional ``UPDATE`` of a pending, due,
  unclaimed row (or one whose lease has run out) sets ``claimed_until`` and
  commits at once. Under PostgreSQL's read committed, a second worker's
  ``UPDATE`` of the same row waits for the first to commit, then finds the
  row claimed and changes nothing: two workers never send one row. A worker
  that dies leaves its lease to run out; then the row is free again.
* **send outside any transaction**: a hung mail server or receiver never
  holds a lock that a move waits for.
* **record** the outcome with an ``UPDATE`` conditional on the claim, so a
  row is marked sent only by the worker that sent it. The mark is tried once
  more on a fresh connection if the connection dropped just after the send.
* **back off** by one ``RetryPolicy`` (doubling from a first delay, capped),
  and **give up** by attempts, by age, or at once on a permanent refusal.
* **sweep**: see ``Outbox.sweep`` for why it sends serially.

This module knows no app: ``notifications.outbox`` and ``webhooks.delivery``
subclass it.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, ClassVar, Generic, Protocol, TypeVar

from celery import current_app
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.db import InterfaceError, OperationalError, connection, models, transaction
from django.db.models import F, Q, QuerySet
from django.utils import timezone

logger = logging.getLogger(__name__)
Row = TypeVar("Row", bound=models.Model)
ERROR_LENGTH = 2000  # of ``last_error``: enough for any server's answer
# How far a worker's clock may be behind the writer's for a fresh row still to be due
# at once: clocks kept by NTP differ by milliseconds; a row held on purpose (a game-over
# email waiting for its review) is due minutes later and stays held.
CLOCK_TOLERANCE = timedelta(seconds=30)


class OutboxRow(Protocol):
    """The columns every outbox row has (``Notification``, ``Delivery``)."""

    pk: Any
    status: str
    attempts: int
    next_attempt: datetime
    last_error: str
    created: datetime
    claimed_until: datetime | None


@dataclass(frozen=True)
class RetryPolicy:
    """When a failed attempt is tried again, and when the row is given up.

    The wait after the n-th failed attempt is ``first_delay * 2 ** (n - 1)``,
    at most ``max_delay``. The row fails for good after ``max_attempts``
    attempts, or once it is older than ``max_age`` when an attempt fails
    (whichever is set; a permanent refusal fails it at once). There is no
    jitter: the sweep sends serially, so retries never arrive as a herd.
    """

    first_delay: timedelta
    max_delay: timedelta
    max_attempts: int | None = None
    max_age: timedelta | None = None

    def delay(self, attempts: int) -> timedelta:
        """The wait after the ``attempts``-th failed attempt."""
        doubled: timedelta = self.first_delay * 2 ** min(max(attempts - 1, 0), 20)
        return min(doubled, self.max_delay)

    def gives_up(self, *, attempts: int, age: timedelta) -> bool:
        """Whether a row that has now failed ``attempts`` times, ``age`` old, is given up."""
        if self.max_attempts is not None and attempts >= self.max_attempts:
            return True
        return self.max_age is not None and age > self.max_age


@dataclass(frozen=True)
class Attempt:
    """What one send did: no ``error`` means the other side took it."""

    error: str = ""
    permanent: bool = False  # a refusal that retrying cannot change: the row fails at once
    columns: dict[str, Any] = field(default_factory=dict)  # the kind's own record of it (HTTP status …)


@dataclass(frozen=True)
class Skip:
    """A row not to send (a suppression rule said so): the status it takes instead."""

    status: str
    columns: dict[str, Any] = field(default_factory=dict)


class Outbox(Generic[Row]):
    """One kind of outbox row and how it is delivered; subclasses fill in the hooks."""

    model: type[Row]
    name: ClassVar[str]  # for logs: "email", "webhook"
    task: ClassVar[str]  # the delivery task, by name (the tasks module imports its outbox, not the reverse)
    batch: ClassVar[int]  # rows per delivery task
    sweep_limit: ClassVar[int] = 500  # rows one sweep looks at
    # Statuses of the kind's ``Status`` choices.
    pending: ClassVar[str] = "pending"
    sent: ClassVar[str]
    failed: ClassVar[str] = "failed"
    sent_at: ClassVar[str]  # the column set to the time of a success
    finished_at: ClassVar[str | None] = None  # the column set whenever a row stops being pending, if any

    # --- what each kind adds ---------------------------------------------------------

    def policy(self) -> RetryPolicy:
        raise NotImplementedError

    def lease(self) -> timedelta:
        """How long a claim holds: longer than a task may run (its hard time limit),
        so that a claim never runs out while its worker is still sending."""
        raise NotImplementedError

    def longest_send(self) -> float:
        """Seconds one send may take at most (the transport's own timeout)."""
        return 10.0

    def sweep_budget(self) -> float:
        """Seconds after which a sweep starts no new send: one more send must
        still end within the task's soft time limit."""
        return max(float(settings.CELERY_TASK_SOFT_TIME_LIMIT) - self.longest_send() - 5, 1.0)

    def load(self, pk: Any) -> Row | None:
        """The claimed row with what sending it needs (None: it was deleted meanwhile)."""
        return self.model._default_manager.filter(pk=pk).first()

    def suppressed(self, row: Row, now: datetime) -> Skip | None:
        """The kind's rules for not sending a row at all."""
        return None

    def send(self, row: Row) -> Attempt:
        """Build one and send it. An exception is a failed attempt (``is_permanent`` says which)."""
        raise NotImplementedError

    def is_permanent(self, error: Exception) -> bool:
        return False

    def on_sent(self, row: Row, attempt: Attempt) -> None:
        """After a success is recorded (metrics, the kind's bookkeeping)."""

    def on_failed(self, row: Row, attempt: Attempt, *, final: bool) -> None:
        """After a failed attempt is recorded; ``final`` when the row was given up."""

    # --- writing --------------------------------------------------------------------

    def publish_on_commit(self, pks: Sequence[Any]) -> None:
        """Hand rows to the workers once the transaction that wrote them commits."""
        if pks:
            ids = list(pks)
            transaction.on_commit(lambda: self.publish(ids))

    def publish(self, pks: Sequence[Any]) -> None:
        """One delivery task per ``batch`` rows."""
        for start in range(0, len(pks), self.batch):
            try:
                current_app.send_task(self.task, args=[list(pks[start : start + self.batch])])
            except Exception:  # the broker is down: the sweep will send them
                logger.warning("could not hand %s %s(s) to the workers", len(pks) - start, self.name, exc_info=True)
                return

    def send_again(self, pks: Sequence[Any], now: datetime | None = None) -> int:
        """An operator's retry: the given-up (failed) rows among ``pks`` are pending and
        due now, handed to the workers when the transaction commits. Their attempts stay
        counted, so a row past its policy's limit gets one more try, not a new series."""
        now = now or timezone.now()
        failed = self.model._default_manager.filter(pk__in=list(pks), status=self.failed)
        ids = list(failed.values_list("pk", flat=True))
        again = {self.finished_at: None} if self.finished_at else {}
        self.model._default_manager.filter(pk__in=ids, status=self.failed).update(
            status=self.pending, next_attempt=now, claimed_until=None, **again
        )
        self.publish_on_commit(ids)
        return len(ids)

    # --- delivering one row -----------------------------------------------------------

    def claim(self, pk: Any, now: datetime) -> datetime | None:
        """Claim a pending, due row that no live lease holds; the lease's end if this call got it.

        An UPDATE outside any transaction commits at once, so the claim is
        seen by every other worker before this one speaks to anybody. A row
        never tried is due up to ``CLOCK_TOLERANCE`` before its ``next_attempt``:
        that is the writer's clock, and a worker whose clock is a few
        milliseconds behind must not leave a fresh sign-in link to the sweep,
        while a row held until later (a game-over email waiting for its review)
        is not sent early by a task that names it. A retry is due only once its
        back-off has passed (a redelivered task never cuts it short).
        """
        lease = now + self.lease()
        claimed = (
            self.model._default_manager.filter(pk=pk, status=self.pending)
            .filter(Q(attempts=0, next_attempt__lte=now + CLOCK_TOLERANCE) | Q(next_attempt__lte=now))
            .filter(Q(claimed_until__isnull=True) | Q(claimed_until__lt=now))
            .update(claimed_until=lease)
        )
        return lease if claimed else None

    def deliver(self, pk: Any, now: datetime | None = None) -> bool:
        """Send one pending, due row; True if this call sent it.

        ``now`` is the moment the sweep looks from (tests pass a later one); by
        default the present.
        """
        now = now or timezone.now()
        lease = self.claim(pk, now)
        if lease is None:
            return False
        mine = self.model._default_manager.filter(pk=pk, claimed_until=lease)
        row = self.load(pk)
        if row is None:
            return False
        skip = self.suppressed(row, now)
        if skip is not None:
            mine.update(status=skip.status, claimed_until=None, **self._finished(now), **skip.columns)
            return False
        try:
            attempt = self.send(row)
        except SoftTimeLimitExceeded as error:
            # The task's time is up, not the row's: each transport has a timeout of its own
            # well within the limit, so a hanging server fails as a timeout and backs off.
            # The claim is let go and no attempt counted; the next sweep sends it.
            mine.update(claimed_until=None, last_error=_error_text(error))
            raise
        except Exception as error:
            attempt = Attempt(error=_error_text(error), permanent=self.is_permanent(error))
        if attempt.error:
            self._record_failure(row, mine, attempt, now)
            return False
        self._mark_sent(mine, lease, attempt)
        self.on_sent(row, attempt)
        return True

    def deliver_batch(self, pks: Sequence[Any]) -> int:
        """What a delivery task does: each row in turn; how many were sent."""
        return sum(1 for pk in pks if self.deliver(pk))

    def _finished(self, now: datetime) -> dict[str, Any]:
        return {self.finished_at: now} if self.finished_at else {}

    def _mark_sent(self, mine: QuerySet[Row], lease: datetime, attempt: Attempt) -> None:
        """Record that the other side took the row. A connection dropped between its
        acceptance and this UPDATE would leave the row pending, and the sweep would
        send it again once the lease ran out; so the UPDATE is tried once more on a
        fresh connection while the lease is still this worker's (the UPDATE is
        conditional on it, so it can never mark another's claim)."""

        def update() -> None:
            done = timezone.now()
            columns: dict[str, Any] = {"status": self.sent, "attempts": F("attempts") + 1, "last_error": ""}
            columns |= {self.sent_at: done, **self._finished(done), **attempt.columns, "claimed_until": None}
            mine.update(**columns)

        try:
            update()
        except (OperationalError, InterfaceError):
            if timezone.now() >= lease or connection.in_atomic_block:
                raise  # the claim is no longer surely ours (or a caller's transaction is lost): the sweep decides
            logger.warning("marking a sent %s failed on a dropped connection; retrying", self.name, exc_info=True)
            connection.close()  # the next query opens a fresh connection
            update()

    def _record_failure(self, row: Row, mine: QuerySet[Row], attempt: Attempt, now: datetime) -> None:
        outboxed: OutboxRow = row  # type: ignore[assignment]
        attempts = outboxed.attempts + 1
        policy = self.policy()
        final = attempt.permanent or policy.gives_up(attempts=attempts, age=now - outboxed.created)
        mine.update(
            status=self.failed if final else self.pending,
            attempts=attempts,
            last_error=attempt.error[:ERROR_LENGTH],
            next_attempt=now + policy.delay(attempts),
            claimed_until=None,
            **(self._finished(now) if final else {}),
            **attempt.columns,
        )
        logger.warning(
            "%s %s failed (attempt %s%s): %s",
            self.name,
            row.pk,
            attempts,
            ", given up" if final else "",
            attempt.error,
        )
        self.on_failed(row, attempt, final=final)

    # --- the sweep ----------------------------------------------------------------------

    def pending_due(self, now: datetime | None = None, limit: int | None = None) -> list[Any]:
        """Pending rows due by ``now`` that no live lease holds, the longest waiting first."""
        now = now or timezone.now()
        return list(
            self.model._default_manager.filter(status=self.pending, next_attempt__lte=now)
            .filter(Q(claimed_until__isnull=True) | Q(claimed_until__lt=now))
            .order_by("next_attempt")
            .values_list("pk", flat=True)[: limit or self.sweep_limit]
        )

    def sweep(self, now: datetime | None = None, budget_seconds: float | None = None) -> int:
        """Send what is pending and due, serially, inside the sweep's own task; how many were sent.

        Serial, not a fan-out of delivery tasks, for both kinds: the sweep is
        the safety net, not the main path (new rows go out by the on-commit
        tasks, in parallel). It runs when something went wrong — the broker
        lost messages, a server or receiver is down — and then handing out more
        task messages adds load where there is trouble, while sending here
        needs nothing but the database. The claim is taken and the due time
        judged at the same moment (no queue in between), and ``now`` means one
        thing from reading to sending. The task's soft time limit bounds it:
        after ``budget_seconds`` no new row is started, and whatever is left
        is the next sweep's.
        """
        budget = self.sweep_budget() if budget_seconds is None else budget_seconds
        started = time.monotonic()
        sent = 0
        for pk in self.pending_due(now):
            if time.monotonic() - started > budget:
                break
            sent += self.deliver(pk, now)
        return sent


def _error_text(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}"[:ERROR_LENGTH]

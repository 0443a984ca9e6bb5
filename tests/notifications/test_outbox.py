"""The transactional outbox: emails are written with the move, delivered on
commit and by the sweep, never lost when the broker is down, never sent twice."""

from __future__ import annotations

from typing import Any

import pytest
from django.core import mail
from django.db.models import QuerySet
from django.utils import timezone

from games import services as games
from games import store
from games.models import Game
from games.signals import Appended, Cause
from notifications import outbox, receivers
from notifications.models import Kind, Notification

pytestmark = pytest.mark.django_db


def select_for(client: Any, game: Any) -> Any:
    legal = client.get(f"/api/v1/games/{game.public_id}/legal-actions").json()
    pieces = [int(s) for s, n in legal["selection"]["reserve"].items() for _ in range(n)][: legal["selection"]["count"]]
    return client.post(
        f"/api/v1/games/{game.public_id}/actions",
        {"action": {"type": "select", "pieces": pieces}, "expected_version": legal["version"]},
        format="json",
    )


def test_the_move_and_its_emails_are_stored_together(alice, bob, client_for, started_game):
    # Alice selects for red, then green: only then is it bob's turn.
    client = client_for(alice)
    assert select_for(client, started_game).status_code == 200
    assert not Notification.objects.filter(kind=Kind.YOUR_TURN).exists()  # still alice's turn
    assert select_for(client, started_game).status_code == 200
    turn = Notification.objects.get(kind=Kind.YOUR_TURN)
    assert (turn.user, turn.seat, turn.status) == (bob, 1, Notification.Status.PENDING)


def test_a_refused_move_writes_no_email(alice, bob, client_for, started_game):
    response = client_for(bob).post(
        f"/api/v1/games/{started_game.public_id}/actions",
        {"action": {"type": "select", "pieces": [1, 1, 1, 1]}, "expected_version": started_game.version},
        format="json",
    )
    assert response.status_code == 422
    assert not Notification.objects.filter(kind=Kind.YOUR_TURN).exists()


def test_delivery_is_scheduled_on_commit(alice, client_for, started_game, django_capture_on_commit_callbacks, broker):
    client = client_for(alice)
    select_for(client, started_game)
    with django_capture_on_commit_callbacks(execute=True):
        assert select_for(client, started_game).status_code == 200
    assert broker.published == [[Notification.objects.get(kind=Kind.YOUR_TURN).pk]]


def test_broker_down_then_recovery_loses_nothing_and_sends_nothing_twice(
    alice, bob, client_for, started_game, django_capture_on_commit_callbacks, broker
):
    broker.is_down = True
    client = client_for(alice)
    with django_capture_on_commit_callbacks(execute=True):
        assert select_for(client, started_game).status_code == 200
        assert select_for(client, started_game).status_code == 200  # the move is kept
    pending = Notification.objects.filter(status=Notification.Status.PENDING)
    assert pending.filter(kind=Kind.YOUR_TURN, user=bob).exists()
    assert len(mail.outbox) == 0

    # The broker is back: the periodic sweep delivers everything pending, once.
    waiting = pending.count()
    assert outbox.sweep_outbox() == waiting
    assert not Notification.objects.filter(status=Notification.Status.PENDING).exists()
    turn = Notification.objects.get(kind=Kind.YOUR_TURN)

    def turn_emails() -> int:
        return sum(1 for m in mail.outbox if m.extra_headers.get("Message-ID") == turn.message_id)

    assert turn_emails() == 1
    # A late, redelivered task and a second sweep send nothing more.
    assert outbox.deliver(turn.pk) is False
    assert outbox.sweep_outbox() == 0
    assert turn_emails() == 1


def test_smtp_refusing_then_accepting(alice, bob, started_game, monkeypatch):
    turn = outbox.enqueue(kind=Kind.YOUR_TURN, key="smtp-test", email=bob.email, user=bob, game=started_game, seat=1)
    assert turn is not None

    from django.core.mail.backends.locmem import EmailBackend

    original = EmailBackend.send_messages

    def refuse(self: Any, messages: Any) -> int:
        raise ConnectionRefusedError("SMTP server down")

    monkeypatch.setattr(EmailBackend, "send_messages", refuse)
    assert outbox.deliver(turn.pk) is False
    turn.refresh_from_db()
    assert (turn.status, turn.attempts) == (Notification.Status.PENDING, 1)
    assert "SMTP server down" in turn.last_error
    assert outbox.sweep_outbox() == 0  # backing off: not due yet

    monkeypatch.setattr(EmailBackend, "send_messages", original)
    turn.refresh_from_db()
    assert outbox.sweep_outbox(now=turn.next_attempt) == 1
    turn.refresh_from_db()
    assert turn.status == Notification.Status.SENT
    assert len(mail.outbox) == 1


def test_the_same_key_is_written_once(bob, started_game):
    first = outbox.enqueue(kind=Kind.YOUR_TURN, key="k1", email=bob.email, user=bob, game=started_game, seat=1)
    second = outbox.enqueue(kind=Kind.YOUR_TURN, key="k1", email=bob.email, user=bob, game=started_game, seat=1)
    assert first is not None
    assert second is None
    assert Notification.objects.filter(key="k1").count() == 1


def test_invitees_are_emailed(alice):
    game = games.create_game(
        creator=alice,
        options={"players": 2},
        seats=[games.SeatSpec("me"), games.SeatSpec("invite", email="newcomer@example.com")],
    )
    invitation = Notification.objects.get(kind=Kind.INVITATION, game=game)
    assert invitation.email == "newcomer@example.com"
    assert invitation.user is None


def test_a_batch_of_emails_is_one_statement_and_written_once(
    alice, bob, started_game, django_assert_num_queries, django_capture_on_commit_callbacks, broker
):
    """A round's end emails every player at once: one INSERT and one task message for
    all of them (and one statement for the turn clock), and recording the same
    events again writes nothing new."""
    loaded = store.load(started_game.public_id)
    events = [{"type": "round_scored", "round": 1}, {"type": "game_finished"}]

    def record() -> None:
        appended = Appended(loaded, tuple(events), first_seq=50, acting_seat=0, cause=Cause.MOVE, now=timezone.now())
        receivers.write_game_emails(Game, appended=appended)

    with django_capture_on_commit_callbacks(execute=True), django_assert_num_queries(2):
        record()
    rows = Notification.objects.filter(key__contains=":5").order_by("key")
    assert [(n.kind, n.seat) for n in rows] == [
        (Kind.ROUND_SCORED, 0),
        (Kind.GAME_OVER, 0),
        (Kind.ROUND_SCORED, 1),
        (Kind.GAME_OVER, 1),
    ]
    assert [sorted(batch) for batch in broker.published] == [sorted(n.pk for n in rows)], "one task for the four"

    with django_capture_on_commit_callbacks(execute=True):
        record()
    assert Notification.objects.filter(key__contains=":5").count() == 4
    assert all(n.status == Notification.Status.PENDING for n in Notification.objects.filter(key__contains=":5"))


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("drops", [1, 2])
def test_a_connection_dropped_after_the_server_took_the_email_sends_it_once(
    alice, bob, started_game, monkeypatch, drops
):
    """The server accepts, then the database connection drops before the row is marked
    sent: the mark is retried once on a fresh connection, so the sweep never sends
    the email again. Dropped twice, the row stays claimed until the lease runs out."""
    from django.core.mail.backends.locmem import EmailBackend
    from django.db import OperationalError, connection

    turn = outbox.enqueue(kind=Kind.YOUR_TURN, key="drop-test", email=bob.email, user=bob, game=started_game, seat=1)
    assert turn is not None
    original_send = EmailBackend.send_messages
    original_update = QuerySet.update
    marks = {"tried": 0}
    Notification.objects.exclude(pk=turn.pk).update(status=Notification.Status.SKIPPED)  # only this one is due

    def accept_then_drop(self: Any, messages: Any) -> int:
        sent = original_send(self, messages)
        connection.ensure_connection()
        connection.connection.close()  # the socket goes, as when PostgreSQL restarts
        return sent

    def update_counting(self: Any, **values: Any) -> int:
        if values.get("status") == Notification.Status.SENT:
            marks["tried"] += 1
            if drops == 2 and marks["tried"] == 2:
                connection.ensure_connection()
                connection.connection.close()  # the fresh connection drops too
        return original_update(self, **values)

    monkeypatch.setattr(EmailBackend, "send_messages", accept_then_drop)
    monkeypatch.setattr(QuerySet, "update", update_counting)

    if drops == 1:
        assert outbox.deliver(turn.pk) is True
    else:
        with pytest.raises(OperationalError):
            outbox.deliver(turn.pk)
        connection.close()
    monkeypatch.setattr(EmailBackend, "send_messages", original_send)
    monkeypatch.setattr(QuerySet, "update", original_update)

    turn.refresh_from_db()
    assert len(mail.outbox) == 1
    if drops == 1:
        assert turn.status == Notification.Status.SENT
        assert turn.claimed_until is None
        assert outbox.sweep_outbox(now=timezone.now() + outbox.LEASE * 2) == 0
        assert len(mail.outbox) == 1
    else:
        assert turn.status == Notification.Status.PENDING
        assert turn.claimed_until is not None  # the sweep sends it again only after the lease
        assert outbox.sweep_outbox() == 0
    assert marks["tried"] == 2  # once, and once more: never a third time

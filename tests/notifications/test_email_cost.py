"""What keeps a turn email cheap: a bounded number of queries per email, an
HTML part short-lined enough for 8bit, and one SMTP connection reused from
one email to the next."""

from __future__ import annotations

import re
import socket
import types
from collections.abc import Iterator
from typing import Any

import pytest

from accounts.models import User
from games.models import Game
from games.presentation.vocabulary import HEX
from notifications import emails, mailer, outbox
from notifications.models import Kind, Notification, Preference
from tests.factories import placement_turn_of, play_until
from tests.support.mail import latest, parts, site_sends_to

pytestmark = pytest.mark.django_db

LOT = re.compile(
    r'<td width="34" height="34" align="center" valign="middle" bgcolor="(#[0-9a-f]{6})" '
    r'title="City (\d), lot (\d): (\d+) storeys" style="[^"]*color:(#[0-9a-f]{6});[^"]*">'
    r'<div style="[^"]*">(\d+)</div><div style="[^"]*">([^<]*)</div></td>'
)


def test_the_board_speaks_the_recipients_language(bot_game):
    play_until(bot_game, lambda g: g.round >= 2)
    placement_turn_of(bot_game, 0)
    User.objects.filter(pk=bot_game.creator_id).update(language="de")
    _, markup = parts(emails.build_message(latest(Kind.YOUR_TURN, seat=0)))
    assert ">Stadt 1</div>" in markup
    assert re.search(r'title="Stadt \d, Baufeld \d: \d+ Stockwerke"', markup)
    assert max(len(line) for line in markup.splitlines()) < 998


def test_a_turn_email_is_built_from_the_same_data_as_the_game(bot_game):
    """Every lot of the real game's board is in the email, with its owner's colour."""
    play_until(bot_game, lambda g: g.round >= 2)
    placement_turn_of(bot_game, 0)
    notification = latest(Kind.YOUR_TURN, seat=0)
    context = emails.email_context(notification)
    _, markup = parts(emails.build_message(notification))
    cells = {(int(m.group(2)), int(m.group(3))): m.group(1) for m in LOT.finditer(markup)}
    board = context["view"]["board"]
    built = {(c + 1, lot + 1): b["owner"] for c, lots in enumerate(board) for lot, b in enumerate(lots) if b}
    assert built, "the game has buildings by round 2"
    assert cells == {place: HEX[owner] for place, owner in built.items()}


def test_the_html_part_goes_out_as_8bit_not_quoted_printable(started_game):
    placement_turn_of(started_game, 0)
    message = emails.build_message(latest(Kind.YOUR_TURN, seat=0)).message()
    encodings = {part.get_content_type(): part["Content-Transfer-Encoding"] for part in message.walk()}
    assert encodings["text/html"] in ("7bit", "8bit")
    assert encodings["text/plain"] in ("7bit", "8bit")


def test_delivering_an_email_runs_a_bounded_number_of_queries(bot_game, django_assert_max_num_queries, mailoutbox):
    """The notification with its user, preference and game; whether the player has
    the game page open (a turn email); the seats with their players; the log;
    whether anyone wrote at the table; whether the player has another game of
    the same name (to tell them apart); the update: the same number for any
    number of players."""
    placement_turn_of(bot_game, 0)
    Preference.objects.get_or_create(user=bot_game.creator)
    notification = latest(Kind.YOUR_TURN, seat=0)
    with django_assert_max_num_queries(9):
        assert outbox.deliver(notification.pk) is True
    assert len(mailoutbox) == 1


def test_the_preference_is_read_once_per_delivery(started_game, alice, django_assert_num_queries, mailoutbox):
    alice.language = "de"
    alice.save()
    Preference.objects.create(user=alice)
    notification = latest(Kind.GAME_STARTED, seat=0)
    with django_assert_num_queries(7):  # savepoint/transaction, lock, same name, seats, log, update
        assert outbox.deliver(notification.pk) is True
    assert mailoutbox[0].subject.startswith("Manhattan")
    assert '<html lang="de">' in parts(mailoutbox[0])[1]


# --- one SMTP connection, reused -------------------------------------------------------------------


class Inbox:
    def __init__(self) -> None:
        self.peers: list[Any] = []
        self.ids: list[str] = []
        self.refuse_next = False

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        if self.refuse_next:
            self.refuse_next = False
            return "451 Try again later"
        self.peers.append(session.peer)
        found = re.search(rb"^Message-ID:\s*(<[^>]+>)", envelope.content, re.M | re.I)
        self.ids.append(found.group(1).decode() if found else "")
        return "250 OK"


@pytest.fixture
def smtp() -> Iterator[Inbox]:
    with site_sends_to(Inbox()) as inbox:
        yield inbox


def pending_emails(game: Game) -> list[Notification]:
    return list(Notification.objects.filter(game=game, status=Notification.Status.PENDING).order_by("pk"))


def test_consecutive_emails_share_one_smtp_connection(started_game, smtp):
    waiting = pending_emails(started_game)
    assert len(waiting) == 3  # the invitation and two "game started"
    assert all(outbox.deliver(n.pk) for n in waiting)
    assert sorted(smtp.ids) == sorted(n.message_id for n in waiting)
    assert len(set(smtp.peers)) == 1, "one connection for the three"
    assert Notification.objects.filter(status=Notification.Status.SENT, attempts=1).count() == 3


def test_an_idle_connection_is_not_reused(started_game, smtp, monkeypatch):
    monkeypatch.setattr(mailer, "MAX_IDLE_S", -1.0)
    for n in pending_emails(started_game):
        assert outbox.deliver(n.pk)
    assert len(set(smtp.peers)) == 3


def test_a_connection_dropped_while_idle_is_replaced_before_sending(started_game, smtp):
    first, second, third = pending_emails(started_game)
    assert outbox.deliver(first.pk)
    mailer._local.backend.connection.sock.shutdown(socket.SHUT_RDWR)  # the server hung up meanwhile

    assert outbox.deliver(second.pk)  # found out before sending: a new connection, first attempt
    assert outbox.deliver(third.pk)
    assert Notification.objects.filter(status=Notification.Status.SENT, attempts=1).count() == 3
    assert len(set(smtp.peers)) == 2
    assert sorted(smtp.ids) == sorted(n.message_id for n in (first, second, third)), "each sent once"


def test_a_failure_while_sending_fails_that_attempt_and_the_connection_is_replaced(started_game, smtp):
    first, second, third = pending_emails(started_game)
    assert outbox.deliver(first.pk)
    smtp.refuse_next = True  # the server refuses the next message

    assert outbox.deliver(second.pk) is False
    second.refresh_from_db()
    assert (second.status, second.attempts) == (Notification.Status.PENDING, 1)
    assert second.last_error
    assert mailer._local.backend is None, "a connection that failed is never reused"

    assert outbox.deliver(third.pk)
    assert outbox.sweep_outbox(now=second.next_attempt) == 1
    second.refresh_from_db()
    assert (second.status, second.attempts) == (Notification.Status.SENT, 2)
    assert sorted(smtp.ids) == sorted(n.message_id for n in (first, second, third)), "each sent once"


@pytest.mark.parametrize(
    ("server_does", "hung_up"),
    [("nothing", False), ("says goodbye", True), ("closes", True)],
)
def test_a_reused_connection_is_checked_for_a_server_hang_up_without_a_round_trip(server_does, hung_up):
    ours, server = socket.socketpair()
    with ours, server:
        if server_does == "says goodbye":
            server.sendall(b"421 4.4.2 idle too long, closing\r\n")
        elif server_does == "closes":
            server.close()
        backend = types.SimpleNamespace(connection=types.SimpleNamespace(sock=ours))
        assert mailer._hung_up(backend) is hung_up
        assert ours.gettimeout() is None, "the probe leaves the socket blocking"

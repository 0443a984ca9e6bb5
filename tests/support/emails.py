"""Every kind of email as a test sees it: a notification of each kind written
by the services in a real game, and what every email must satisfy (mail-safe
HTML, its link, its headers, the game's sections)."""

from __future__ import annotations

import re
from datetime import timedelta
from email.message import EmailMessage
from typing import Any

from django.utils import timezone

from accounts import links
from accounts.models import User
from accounts.services import request_sign_in_link
from games import engine, services, store
from games.models import Game
from games.presentation import board
from notifications import digests, emails, exports, reminders
from notifications.models import UNSUBSCRIBABLE, Kind, Notification, Preference
from notifications.replies import handle_inbound
from notifications.reply_address import reply_address
from tests.factories import digest_time, placement_turn_of, play_until
from tests.support.mail import HEX, latest, prefer, visible_text

LINK = re.compile(r"http://[^\s\"<>]+/accounts/link/(login|game|invite|page)/([^/\s\"<>]+)/[^\s\"<>]*")


REPLYABLE_KINDS = (Kind.YOUR_TURN, Kind.REMINDER, Kind.GAME_STARTED, Kind.MOVE_REFUSED)


def reply_to(notification: Notification, first_line: str, message_id: str = "<reply-1@example.com>") -> EmailMessage:
    message = EmailMessage()
    message["From"] = notification.email
    message["To"] = reply_address(notification)
    message["Subject"] = "Re: your turn"
    message["Message-ID"] = message_id
    message.set_content(f"{first_line}\n\n> It is your turn in your game of Manhattan.\n")
    return message


def finish(game: Game) -> None:
    play_until(game, lambda g: g.status == Game.Status.FINISHED, limit=1000)


def make(kind: str, game: Game, alice: Any, bob: Any) -> Notification:
    """A notification of ``kind`` as the services write it in a real game."""
    if kind == Kind.LOGIN:
        request_sign_in_link(alice.email, next_path="/games/")
        return latest(Kind.LOGIN)
    if kind == Kind.INVITATION:
        return latest(Kind.INVITATION, email=bob.email)
    if kind == Kind.GAME_STARTED:
        return latest(Kind.GAME_STARTED, seat=0)
    if kind == Kind.YOUR_TURN:
        placement_turn_of(game, 0)
        return latest(Kind.YOUR_TURN, seat=0)
    if kind == Kind.ROUND_SCORED:
        play_until(game, lambda g: Notification.objects.filter(kind=Kind.ROUND_SCORED).exists())
        return latest(Kind.ROUND_SCORED, seat=0)
    if kind == Kind.GAME_OVER:
        finish(game)
        return latest(Kind.GAME_OVER, seat=0)
    if kind == Kind.REMINDER:
        placement_turn_of(game, 0)
        reminders.send_due_reminders(timezone.now() + timedelta(days=2))
        return latest(Kind.REMINDER, seat=0)
    if kind == Kind.TIMEOUT:
        placement_turn_of(game, 0)
        assert reminders.time_out_absent_players(timezone.now() + timedelta(days=8)) == 0  # the warning first
        assert reminders.time_out_absent_players(timezone.now() + timedelta(days=9)) == 1
        return latest(Kind.TIMEOUT, seat=0)
    if kind == Kind.MOVE_REFUSED:
        placement_turn_of(game, 0)
        outcome = handle_inbound(reply_to(latest(Kind.YOUR_TURN, seat=0), "card 5 town 9 size 2"))
        assert not outcome.accepted
        return latest(Kind.MOVE_REFUSED, seat=0)
    if kind == Kind.DIGEST:
        prefer(alice, frequency=Preference.Frequency.DAILY_DIGEST)
        placement_turn_of(game, 0)
        assert digests.send_digests(now=digest_time()) == 1
        return latest(Kind.DIGEST)
    if kind == Kind.SEAT_ANSWERED:
        lobby = services.create_game(
            creator=alice,
            options={"players": 3},
            seats=[
                services.SeatSpec("me"),
                services.SeatSpec("invite", email="carol@example.com"),
                services.SeatSpec("open"),
            ],
        )
        services.join_game(game=lobby, user=User.objects.create_user(email="carol@example.com", display_name="carol"))
        return latest(Kind.SEAT_ANSWERED, game=lobby)
    if kind == Kind.DATA_EXPORT:
        assert exports.build(exports.request_export(user=alice).pk)
        return latest(Kind.DATA_EXPORT)
    raise AssertionError(kind)


def assert_mail_safe_html(markup: str) -> None:
    """Tables and inline styles only: nothing a mail client blocks or strips."""
    lower = markup.lower()
    assert lower.startswith("<!doctype html>")
    for banned in ("<img", "<style", "<link", "<script", "<svg", "src=", "url(", "@import", "class="):
        assert banned not in lower, banned
    for attribute in re.finditer(r"([\w-]+)=[\"']https?://", markup):
        assert attribute.group(1) == "href", "only links may point outside the email"
    assert "<table" in lower
    assert 'style="' in lower
    assert lower.count("<table") == lower.count("</table>")
    assert lower.count("<tr") == lower.count("</tr>")


def assert_rendered(text: str) -> None:
    for leftover in ("{{", "}}", "{%", "%}", "&lt;", "&amp;", "&#x27;"):
        assert leftover not in text, leftover


def the_link(text: str, markup: str, purpose: str) -> links.LinkData:
    """The signed link: the same URL in the text and as a link in the HTML, and valid."""
    found = [m for m in LINK.finditer(text) if m.group(1) == purpose]
    assert found, f"no {purpose} link in the text part"
    url = found[0].group(0)
    assert f'href="{url}"' in markup, "the HTML part links to the same URL"
    return links.read_token(purpose, found[0].group(2))


def seat_view(notification: Notification) -> dict[str, Any]:
    assert notification.game is not None
    state = store.state_of(notification.game, upto=notification.context.get("seq"))
    assert state is not None
    return engine.player_view(state, notification.seat).to_json()


def mini_card(markup: str, card: int) -> list[str]:
    """The nine squares (background colours) of the small picture of ``card``."""
    start = markup.index(f'title="Card {card}"')
    table = markup[start : markup.index("</table>", start)]
    squares = re.findall(r'<td width="11" height="11" bgcolor="(#[0-9a-f]{6})"', table)
    assert len(squares) == 9
    return squares


def assert_game_sections(notification: Notification, text: str, markup: str) -> None:
    """Hand, round supply and reserve, scores, what to do, board: in both parts."""
    view = seat_view(notification)
    seen = visible_text(markup)
    me = notification.seat
    mine = next(p for p in view["players"] if p["seat"] == me)
    finished = view["phase"] == engine.FINISHED

    if not finished:
        # The hand: numbers in the text; small 3×3 cards with the position marked in the HTML.
        hand = view["hand"]
        assert f"Your hand: {', '.join(map(str, hand))}" in text
        assert "Your hand" in seen
        for card in hand:
            squares = mini_card(markup, card)
            assert squares[card - 1] == "#222222"
            assert squares.count("#222222") == 1
        # This round's pieces and the reserve, per colour the player plays.
        for colour in mine["colours"]:
            pieces = view["colours"][colour]
            selected = [str(pieces["selection"][s]) for s in "1234"]
            reserve = [str(pieces["reserve"][s]) for s in "1234"]
            assert f"- {colour}: this round {', '.join(selected)}; reserve {', '.join(reserve)}" in text
            assert f"{colour} this round {' '.join(selected)} reserve {' '.join(reserve)}" in seen

    # The scores, the recipient's marked as "you".
    for player in view["players"]:
        colours = ", ".join(player["colours"])
        who = "you" if player["seat"] == me else ""
        assert re.search(rf"- {who}[^\n]*\({colours}\): {player['score']}\n", text), player
        assert re.search(rf"{who}\S* \({colours}\) {player['score']}", seen), player

    # What they can do.
    assert notification.game is not None
    state = store.state_of(notification.game, upto=notification.context.get("seq"))
    assert state is not None
    legal = engine.legal_actions(engine.player_view(state, me))
    if legal.selection is not None:
        colour = engine.COLOUR_NAMES[legal.selection.colour]
        sentence = f"Your move: choose {legal.selection.count} pieces of {colour} for this round from your reserve."
        assert sentence in text
        assert sentence in seen
    elif legal.placements:
        assert "You can play:" in text
        assert "You can play:" in seen
        by_card: dict[int, set[tuple[int, int]]] = {}
        for p in legal.placements:
            by_card.setdefault(p.card + 1, set()).add((p.city + 1, p.lot + 1))
        lines = {int(m.group(1)): m.group(2) for m in re.finditer(r"^- Card (\d):(.*)$", text, re.M)}
        assert set(lines) == set(by_card)
        for card, places in by_card.items():
            for city, lot in places:
                assert f"city {city} (lot {lot})" in lines[card]
                assert f"city {city} (lot {lot})" in seen
            assert f"Card {card}:" in seen
    elif finished:
        assert "The game is over." in text
        assert "The game is over." in seen
    elif view["to_act"] is not None:
        assert "Nothing to do for now: waiting for" in text
        assert "Nothing to do for now: waiting for" in seen

    # The board: as text in the text part, as coloured tables in the HTML.
    assert board.text_board(board.cities(engine.player_view(state, me))) in text
    assert len(re.findall(r'<td width="34" height="34"', markup)) == 54
    for city in range(6):
        assert f"City {city + 1}" in seen
        for lot, building in enumerate(view["board"][city]):
            if building is None:
                continue
            cell = re.search(
                rf'<td width="34" height="34" align="center" valign="middle" bgcolor="(#[0-9a-f]{{6}})" '
                rf'title="City {city + 1}, lot {lot + 1}: {building["height"]} storeys"',
                markup,
            )
            assert cell is not None, (city, lot)
            assert cell.group(1) == HEX[building["owner"]], (city, lot)


def assert_headers(notification: Notification, message: Any) -> None:
    raw = message.message()
    assert raw["Message-ID"] == notification.message_id
    assert emails.build_message(notification).message()["Message-ID"] == notification.message_id, "stable"
    assert raw["Auto-Submitted"] == "auto-generated"
    if notification.kind in UNSUBSCRIBABLE and notification.user is not None:
        header = re.fullmatch(r"<(http://\S+/mail/unsubscribe/([^/]+)/)>", "".join(raw["List-Unsubscribe"].split()))
        assert header is not None
        data = links.read_token(links.UNSUBSCRIBE, header.group(2))
        assert (data.kind, data.user_id) == (notification.kind, notification.user.pk)
        assert raw["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    else:
        assert raw["List-Unsubscribe"] is None
        assert raw["List-Unsubscribe-Post"] is None

"""Timeouts: always after a warning, never during a vacation; after one the
bot keeps moving for the absent player, turn after turn, until they come back
(a move of theirs, or "I'm back"); the timeout email says what the bot played."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from games import engine, services
from games.models import Game, GameEvent, Seat
from notifications import emails, reminders
from notifications.models import Kind, Notification, TurnClock
from tests.support.mail import latest, parts

pytestmark = pytest.mark.django_db
HOUR = timedelta(hours=1)


def moves_of(game: Game, seat: int) -> int:
    return GameEvent.objects.filter(game=game, seat=seat).count()


def test_a_timeout_always_comes_after_a_warning_whatever_the_policy(quick_game):
    start = quick_game.turn_since
    assert reminders.time_out_absent_players(now=start + HOUR) == 0
    warning = latest(Kind.REMINDER, seat=0)
    assert warning.context["warning"] is True
    text = str(emails.build_message(warning).body)
    assert "will move for you" in text
    assert moves_of(quick_game, 0) == 0
    assert reminders.time_out_absent_players(now=start + 2 * HOUR) == 1
    assert moves_of(quick_game, 0) == 1


def test_vacation_stops_timeouts_not_only_reminders(quick_game, alice):
    reminders.set_vacation(user=alice, until=timezone.now() + 5 * 24 * HOUR)
    start = quick_game.turn_since
    for hours in (1, 2, 3, 24, 48):
        assert reminders.time_out_absent_players(now=start + hours * HOUR) == 0
    assert moves_of(quick_game, 0) == 0
    assert not Notification.objects.filter(kind=Kind.REMINDER).exists()
    clock = TurnClock.objects.get(game=quick_game)
    assert clock.timeout_at > alice.preference.vacation_until


def timed_out(game: Game) -> None:
    start = game.turn_since
    reminders.time_out_absent_players(now=start + HOUR)
    assert reminders.time_out_absent_players(now=start + 3 * HOUR) == 1


def test_after_a_timeout_the_bot_keeps_moving_until_the_player_comes_back(quick_game, alice, bob):
    timed_out(quick_game)
    assert Seat.objects.get(game=quick_game, index=0).absent_since is not None
    # Alice selects for both her colours by the bot, then it is bob's turn, and so on:
    # whenever it is alice's turn again, the bot plays it at once, with no new timeout.
    for _ in range(6):
        quick_game.refresh_from_db()
        if quick_game.to_act_seat == 0:
            services.play_bot_turns(game_id=quick_game.public_id)
            continue
        seat = quick_game.to_act_seat
        state = engine.fold([e.payload for e in GameEvent.objects.filter(game=quick_game).order_by("seq")])
        legal = engine.legal_actions(engine.player_view(state, seat))
        if legal.selection is not None:
            pieces = [s for s in (1, 2, 3, 4) for _ in range(legal.selection.reserve[s - 1])][: legal.selection.count]
            action: engine.Action = engine.SelectPieces(pieces=tuple(pieces))
        else:
            p = legal.placements[0]
            action = engine.PlacePiece(card=p.card, city=p.city, size=p.size, colour=p.colour)
        services.submit_action(
            game_id=quick_game.public_id, user=bob, action=action, expected_version=quick_game.version
        )
        services.play_bot_turns(game_id=quick_game.public_id)
    assert moves_of(quick_game, 0) >= 2
    assert Notification.objects.filter(kind=Kind.TIMEOUT).count() == 1  # one email, not one per move
    assert (
        not Notification.objects.filter(kind=Kind.YOUR_TURN, seat=0, created__gt=quick_game.started)
        .exclude(context__seq__lte=2)
        .exists()
    )
    # "I'm back": the seat is hers again, and her turn's clock runs again.
    assert services.come_back(game_id=quick_game.public_id, user=alice) is True
    assert Seat.objects.get(game=quick_game, index=0).absent_since is None


def test_a_move_of_the_absent_player_takes_the_seat_back(quick_game, alice):
    timed_out(quick_game)
    quick_game.refresh_from_db()
    if quick_game.to_act_seat != 0:
        pytest.skip("not alice's turn after the timeout")
    services.play_bot_turns(game_id=quick_game.public_id, limit=0)
    from tests.factories import greedy_move

    services.submit_action(
        game_id=quick_game.public_id, user=alice, action=greedy_move(quick_game), expected_version=quick_game.version
    )
    assert Seat.objects.get(game=quick_game, index=0).absent_since is None


def test_the_timeout_email_says_which_move_the_bot_made(quick_game):
    timed_out(quick_game)
    notification = latest(Kind.TIMEOUT, seat=0)
    text, markup = parts(emails.build_message(notification))
    placed = GameEvent.objects.filter(game=quick_game, seat=0).first()
    assert placed.type == "pieces_selected"
    assert "The bot played:" in text
    assert "chose the red pieces for this round" in text
    assert "until you come back" in text
    assert "The bot played:" in markup


def test_im_back_on_the_page(quick_game, alice):
    from django.test import Client

    timed_out(quick_game)
    client = Client()
    client.force_login(alice)
    page = client.get(f"/games/{quick_game.public_id}/").content.decode()
    assert 'data-testid="come-back"' in page
    response = client.post(f"/games/{quick_game.public_id}/back/")
    assert response.status_code == 302
    assert Seat.objects.get(game=quick_game, index=0).absent_since is None

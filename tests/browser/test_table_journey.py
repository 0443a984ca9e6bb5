"""The table in the loop: two people and two bots play a whole four-player game
to the end, the people by clicking only (the pieces of each round with − and +,
every building by touching a card, a lot and a piece), each on a page that
stays open while the others' moves arrive live. Alice sits at a desktop, Bob
at a phone. Nobody at the table gets a turn email or a reminder; when Bob
closes his page for a while, the next turn that is his brings them again.

The bots play at their quickest (random) in a thread standing in for the
worker (``tests.support.pages.Worker``). Along the way the README's pictures are taken
(``tests.support.screenshots``)."""

from __future__ import annotations

import random
import time

import pytest
from django.utils import timezone
from playwright.sync_api import Browser

from accounts.models import User
from games import services, store
from games.models import Game
from notifications.models import Kind, Notification, TurnClock
from notifications.reminders import send_due_reminders
from tests.support.browser import DESKTOP, PHONE, signed_in
from tests.support.pages import (
    Worker,
    build_by_touching,
    choose_a_card_and_a_lot,
    click_to_build_is_ready,
    close_and_wait_until_gone,
    deliver_pending,
    open_game,
    select_by_clicking,
    wait_for_version,
    wait_until_present,
)
from tests.support.screenshots import take
from tests.support.waiting import PAGE_TIMEOUT_MS, wait_until

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]
BOB_LEAVES_IN_ROUND = 3  # of four (R7)  # and comes back at his next turn, brought by its email


def person_to_act(game: Game, people: dict[int, User]) -> User | None:
    """Who must click now: alice or bob, or nobody (a bot is to move, or the game is over)."""
    game.refresh_from_db()
    if game.status != Game.Status.ACTIVE:
        return None
    seat = game.seats.get(index=game.to_act_seat)
    return people.get(seat.user_id) if seat.user_id else None


def until_a_person_is_to_act(game: Game, people: dict[int, User], worker: Worker) -> User | None:
    def handed_on() -> bool:
        assert worker.failure is None, worker.failure
        return person_to_act(game, people) is not None or game.status != Game.Status.ACTIVE

    wait_until(handed_on, message="the bots did not hand the turn on")  # they are thinking
    return person_to_act(game, people)


def remind_now(game: Game) -> None:
    """As if the turn had waited long enough for a reminder: the sweep runs."""
    TurnClock.objects.filter(game=game, seat__isnull=False).update(next_reminder_at=timezone.now())
    send_due_reminders()
    deliver_pending()


def sent(game: Game, user: User, kind: str) -> int:
    return Notification.objects.filter(game=game, user=user, kind=kind, status=Notification.Status.SENT).count()


def test_two_people_and_two_bots_play_a_whole_game_by_clicking_with_their_pages_open(
    server, browser: Browser, alice: User, bob: User, worker: Worker, tmp_path
):
    User.objects.filter(pk=alice.pk).update(display_name="Alice")
    User.objects.filter(pk=bob.pk).update(display_name="Bob")
    game = services.create_game(
        creator=alice,
        name="Harbour 27",
        options={"players": 4, "start_player": 0},
        seats=[
            services.SeatSpec("me"),
            services.SeatSpec("bot", bot="random"),
            services.SeatSpec("invite", email=bob.email),
            services.SeatSpec("bot", bot="random"),
        ],
    )
    people = {alice.pk: alice, bob.pk: bob}
    shots: set[str] = set()
    screens = {alice.pk: DESKTOP, bob.pk: PHONE}
    pages = {pk: open_game(signed_in(browser, server, user, screens[pk]), server, game) for pk, user in people.items()}
    wait_until_present(pages[alice.pk], alice)  # at the table from the lobby on (Bob has no seat yet)
    take(pages[alice.pk], "game-lobby.png", tmp_path)
    shots.add("game-lobby.png")

    # Bob takes his seat, which starts the game; it starts on Alice's page by itself.
    with pages[bob.pk].expect_navigation():
        pages[bob.pk].get_by_test_id("join-button").click()
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE
    pages[alice.pk].get_by_test_id("board").wait_for(timeout=PAGE_TIMEOUT_MS)
    assert pages[alice.pk].evaluate("window.notReloaded === true")
    pages[bob.pk].evaluate("window.notReloaded = true")
    wait_until_present(pages[bob.pk], bob)

    # Bob wishes luck; it reaches Alice's page by itself.
    pages[bob.pk].get_by_test_id("talk-text").fill("Good luck, Alice!")
    with pages[bob.pk].expect_navigation():
        pages[bob.pk].get_by_test_id("talk-text").press("Enter")
    pages[alice.pk].get_by_test_id("talk-messages").get_by_text("Good luck, Alice!").wait_for(timeout=PAGE_TIMEOUT_MS)
    pages[bob.pk].evaluate("window.notReloaded = true")
    wait_until_present(pages[bob.pk], bob)

    rng = random.Random(27)
    built = {pk: 0 for pk in people}
    selected = {pk: 0 for pk in people}
    bob_away = False
    bob_left = False
    started = time.monotonic()
    for _ in range(200):
        player = until_a_person_is_to_act(game, people, worker)
        if player is None:
            break
        page = pages.get(player.pk)
        state = store.state_of(game)
        assert state is not None
        seat = game.to_act_seat
        remind_now(game)  # the turn has come: no email nor reminder to a player at the table...
        if bob_away and player == bob:
            # ...but Bob left: the move that handed him the turn brought its email, and the reminder came.
            assert sent(game, bob, Kind.YOUR_TURN) == 1
            assert sent(game, bob, Kind.REMINDER) == 1
            pages[bob.pk] = page = open_game(signed_in(browser, server, bob, PHONE), server, game)
            wait_until_present(page, bob)
            bob_away = False
        assert page is not None
        for pk, open_page in pages.items():
            if pk != bob.pk or not bob_away:
                wait_for_version(open_page, game.version)  # the moves arrived...
                assert open_page.evaluate("window.notReloaded === true"), "...live, not by a reload"
        for pk, user in people.items():
            if pk == alice.pk or not bob_left:
                assert sent(game, user, Kind.YOUR_TURN) == 0, f"{user} had the page open"
                assert sent(game, user, Kind.REMINDER) == 0, f"{user} had the page open"

        if page.get_by_test_id("select-form").count():
            select_by_clicking(page, game, rng, seat)
            selected[player.pk] += 1
        else:
            click_to_build_is_ready(page)  # the test fails if only the plain form is left
            if state.round == 3 and player == alice and "game-page-desktop.png" not in shots:
                choose_a_card_and_a_lot(page, rng)
                take(page, "game-page-desktop.png", tmp_path)
                shots.add("game-page-desktop.png")
            if state.round == 3 and player == bob and "game-page-phone.png" not in shots:
                choose_a_card_and_a_lot(page, rng)
                page.get_by_test_id("board").evaluate(
                    "b => window.scrollTo(0, b.getBoundingClientRect().top + window.scrollY - 4)"
                )
                take(page, "game-page-phone.png", tmp_path)
                shots.add("game-page-phone.png")
            build_by_touching(page, game, rng, seat)
            built[player.pk] += 1
        page.evaluate("window.notReloaded = true")  # the page the player's own move led to
        deliver_pending()  # as the worker does on commit of each move
        game.refresh_from_db()
        if game.status == Game.Status.ACTIVE:
            wait_until_present(page, player)  # the new page says so
            if player == bob and state.round == BOB_LEAVES_IN_ROUND and not bob_left and game.to_act_seat != seat:
                close_and_wait_until_gone(page, bob)
                bob_away = bob_left = True
    duration = time.monotonic() - started

    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED, "the game was played to the end"
    assert worker.failure is None
    assert bob_left, "Bob left for a while"
    assert not bob_away, "and came back"
    for pk in people:
        assert selected[pk] == 3, "a selection each round but the last (forced), by clicking"
        assert built[pk] >= 20, "every building by touching (less what a hand could not place)"
    assert sent(game, alice, Kind.YOUR_TURN) == sent(game, alice, Kind.REMINDER) == 0
    assert sent(game, bob, Kind.YOUR_TURN) == sent(game, bob, Kind.REMINDER) == 1, "only while he was away"
    final = pages[alice.pk]
    final.wait_for_function("() => !document.querySelector('[data-testid=place-form]')")
    assert final.evaluate("window.notReloaded === true"), "the end arrived live"
    final.get_by_test_id("scores").wait_for()
    final.evaluate("window.scrollTo(0, 0)")
    take(final, "game-finished.png", tmp_path)
    shots.add("game-finished.png")
    assert shots == {"game-lobby.png", "game-page-desktop.png", "game-page-phone.png", "game-finished.png"}
    print(f"the whole game took {duration:.0f} s of clicking")  # shown with -s: a budget to keep

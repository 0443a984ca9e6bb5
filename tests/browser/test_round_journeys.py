"""One whole round between two people in Dutch, French and Korean, by clicking
only: each plays on their own page, open the whole time, and sees the other's
moves arrive live; every building goes up by touching the board, and neither
gets a "your turn" email while sitting at the table."""

from __future__ import annotations

import random

import pytest

from accounts.models import User
from games import store
from games.models import Game

from .live import (
    click_to_build_is_ready,
    deliver_pending,
    open_game,
    sent_turn_emails,
    signed_in,
    to_act,
    wait_for_version,
    wait_until_present,
)
from .playing import build_by_touching, select_by_form

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


@pytest.mark.parametrize("language", ["nl", "fr", "ko"])
def test_one_whole_round_between_two_people_by_clicking(
    server, browser, started_game: Game, alice: User, bob: User, language: str
):
    User.objects.filter(pk__in=[alice.pk, bob.pk]).update(language=language)
    pages = {user.pk: open_game(signed_in(browser, server, user), server, started_game) for user in (alice, bob)}
    for user in (alice, bob):
        wait_until_present(pages[user.pk], user)
    rng = random.Random(language)
    selected = built = 0
    for _ in range(40):
        state = store.state_of(started_game)
        assert state is not None
        if state.round > 1:
            break
        player = to_act(started_game)
        seat = 0 if player == alice else 1
        page, other = pages[player.pk], pages[(bob if player == alice else alice).pk]
        started_game.refresh_from_db()
        if page.get_by_test_id("select-form").count():
            select_by_form(page, started_game, rng, seat)
            selected += 1
        else:
            click_to_build_is_ready(page)  # fails if only the plain form is left
            build_by_touching(page, started_game, rng, seat)
            built += 1
        started_game.refresh_from_db()
        wait_for_version(other, started_game.version)
        assert other.evaluate("window.notReloaded === true"), "the move arrived live, not by a reload"
        page.evaluate("window.notReloaded = true")  # the page the player's own move led to
        deliver_pending()  # as the worker does on commit of each move
        if started_game.status == Game.Status.ACTIVE:
            wait_until_present(page, player)  # the page after the player's own move says so
    state = store.state_of(started_game)
    assert state is not None
    assert state.round == 2, "a whole round was played"
    assert selected >= 2  # each player chose pieces: a selection per colour
    assert built >= 8
    assert sent_turn_emails(started_game, alice) == 0
    assert sent_turn_emails(started_game, bob) == 0

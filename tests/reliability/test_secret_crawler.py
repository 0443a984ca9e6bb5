"""The secret crawler: everything a seat can get from the site, checked for
what that seat must never learn.

Games of two, three and four players are played through the API. At every
phase (lobby, selection, placement in mid-round, right after an R16 redraw,
right after a reshuffle, finished) each seat, a stranger, an anonymous client
and a staff operator walk every GET endpoint of the API, every web page and
every email they were sent, and every response to the moves they make.
Each document is checked against the server's own knowledge of the game
(``Truth``: the log folded after every event) for

* the shuffle seed (``GameSecret.seed``), which must appear nowhere at all;
* another seat's hand, structurally in JSON (``hand``/``hands`` keys, the
  ``drew`` of another seat's draw) and web pages (the ``data-card`` of the
  hand), and as a card sequence anywhere: comma-separated runs of numbers
  (JSON lists, "3, 5, 5, 9" in text) and the mini-cards of HTML pages and
  emails (``data-card``, ``title``/``aria-label="Card n"``), 1- and 0-based,
  in the hand's order and sorted;
* the draw pile's order, every reshuffle's order and the initial pile's
  order: every run of 6 consecutive cards, either way round, 1- and 0-based.

A sequence is checked only where it is *distinctive*: if the same numbers are
public to the viewer (their own hand, anyone's discards, selected and reserve
piece counts, the viewer's redacted log, the record of a finished game) the
signature proves nothing and is skipped. The self-check tests
(test_secret_crawler_self_check.py) inject leaks of every kind into the application (monkeypatching, never
editing it) and assert the crawler reports each one.

Games are deterministic: the shuffle seed is fixed by replacing
``games.services.secrets`` for the test, and the moves come from the engine's
bots with generators seeded by the version. The four-player game's deal is
rigged (``engine.create_game`` wrapped) so that seat 1 is stuck in round 1
and must redraw (R16); no bot game redraws on its own.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from games.engine import PlacePiece, Resign, SelectPieces
from notifications import digests
from tests.factories import digest_time
from tests.support.secrets.tables import Table, assert_clean, has, reshuffled

pytestmark = pytest.mark.django_db


# --- the crawls ------------------------------------------------------------------------------------


@pytest.mark.slow  # a whole game crawled at every phase
def test_two_players_nothing_secret_reaches_anyone(monkeypatch, mailoutbox):
    # Two copies of each card: 8 are dealt, and the pile of 10 runs out in round 1.
    table = Table("two", 2, monkeypatch, mailoutbox, copies=2)
    table.join_all()
    table.crawler.checkpoint("lobby")
    table.start()
    table.crawler.checkpoint("selection")
    table.play_until(lambda events: table.truth.state.phase == "placement" and table.truth.state.placements >= 3)
    table.crawler.checkpoint("placement")
    table.refused_reply()
    table.remind_and_time_out()
    table.crawler.checkpoint("reminder, refusal and timeout")
    table.play_until(reshuffled)
    table.crawler.checkpoint("reshuffle")
    # From here seat 1 reads one digest a day instead of an email per turn (fewer emails to build).
    table.digest_reader(1)
    table.play_to_end()  # six rounds, and a reshuffle in nearly every one
    table.crawler.deliver()  # seat 1's updates are gathered for the digest, seat 0's are sent (and read below)
    assert digests.send_digests(now=digest_time(days=1)) == 1
    table.crawler.checkpoint("finished", last=True)
    assert_clean(
        table,
        expected_checkpoints=[
            "lobby",
            "selection",
            "placement",
            "reminder, refusal and timeout",
            "reshuffle",
            "finished",
        ],
        expected_kinds={
            "invitation",
            "game_started",
            "your_turn",
            "round_scored",
            "game_over",
            "reminder",
            "timeout",
            "move_refused",
            "digest",
        },
    )


@pytest.mark.slow  # a whole game crawled at every phase
def test_three_players_nothing_secret_reaches_anyone(monkeypatch, mailoutbox):
    # Three copies of each card: 12 are dealt, and the pile of 15 runs out in round 2.
    table = Table("three", 3, monkeypatch, mailoutbox, copies=3, policy="greedy")
    table.join_all()
    table.digest_reader(2)
    table.crawler.checkpoint("lobby")
    table.start()
    table.crawler.checkpoint("selection")
    table.play_until(lambda events: table.truth.state.phase == "placement" and table.truth.state.placements >= 5)
    table.crawler.checkpoint("placement")
    table.play_until(reshuffled)
    assert digests.send_digests(now=digest_time(days=1)) >= 1
    table.crawler.checkpoint("reshuffle")
    # Seat 1 leaves: its hand stays its own while the others play on, until seat 2 leaves too.
    table.move(Resign(), seat=1)
    assert table.truth.state.resigned[1]
    table.play_until(lambda events: table.truth.state.phase == "placement" and table.truth.state.to_act == 2)
    table.crawler.checkpoint("resigned")
    table.move(Resign(), seat=2)
    assert table.truth.finished
    table.crawler.checkpoint("finished", last=True)
    assert_clean(
        table,
        expected_checkpoints=["lobby", "selection", "placement", "reshuffle", "resigned", "finished"],
        expected_kinds={"invitation", "game_started", "your_turn", "round_scored", "game_over", "digest"},
    )


# The four-player deal: seat 0 (red, south) holds card 3 (0-based 2, lot 2 from the
# south) and builds a 2-storey tower on lot 2 of every city; seat 1 (blue, west)
# chose only 1-storey pieces and is left holding four cards 1 (lot 2 from the west):
# after red's sixth placement blue cannot build and redraws (R16).
RED_SIZES, BLUE_SIZES, OTHER_SIZES = [2] * 6, [1] * 6, [1, 1, 1, 1, 2, 2]
RIGGED_HANDS = [[2, 2, 2, 2], [0, 0, 0, 4], [8, 8, 8, 8], [1, 1, 1, 1]]
RIGGED_DRAWS = [2, 4, 8, 1, 2, 4, 8, 1, 7, 4, 5, 3, 7, 4, 5, 3, 7, 0, 5, 3, 7, 4, 5, 6, 7]
RIGGED_COPIES = 7


def rig_redraw(created: dict[str, Any]) -> None:
    deck = Counter(dict.fromkeys(range(9), RIGGED_COPIES))
    deck.subtract(Counter(c for hand in RIGGED_HANDS for c in hand))
    deck.subtract(Counter(RIGGED_DRAWS))
    rest = sorted(deck.elements())
    random.Random("rest of the rigged deck").shuffle(rest)
    created["hands"] = [list(h) for h in RIGGED_HANDS]
    created["draw_pile"] = rest + RIGGED_DRAWS[::-1]  # the top of the pile is its end


@pytest.mark.slow  # a whole game crawled at every phase
def test_four_players_with_a_redraw_nothing_secret_reaches_anyone(monkeypatch, mailoutbox):
    table = Table("four", 4, monkeypatch, mailoutbox, copies=RIGGED_COPIES)
    table.join_all()
    table.crawler.checkpoint("lobby")
    table.start(rig=rig_redraw)
    assert table.truth.payloads[0]["hands"] == RIGGED_HANDS
    # Round 1 as scripted above: seat -> its actions in order (then the bots take over).
    moves: list[tuple[int, list[int], int, list[int]]] = [
        (0, RED_SIZES, 2, RED_SIZES),
        (1, BLUE_SIZES, 4, BLUE_SIZES),
        (2, OTHER_SIZES, 8, OTHER_SIZES),
        (3, OTHER_SIZES, 1, OTHER_SIZES),
    ]
    for seat, selection, card, sizes in moves:
        table.script[seat] = [SelectPieces(tuple(selection))]
        table.script[seat] += [PlacePiece(card=card, city=city, size=size) for city, size in enumerate(sizes)]
    table.crawler.checkpoint("selection")
    table.play_until(lambda events: table.truth.state.phase == "placement" and table.truth.state.placements >= 6)
    table.crawler.checkpoint("placement")
    table.play_until(has("hand_redrawn"))
    redraw = next(e for e in table.truth.payloads if e["type"] == "hand_redrawn")
    assert redraw["player"] == 1
    assert redraw["drew"] == [4, 5, 6, 7]
    table.crawler.checkpoint("redraw")
    table.play_until(reshuffled)
    table.crawler.checkpoint("reshuffle")
    for seat in (3, 2, 1):  # three leave: one player is left, and the game is over
        table.move(Resign(), seat=seat)
    assert table.truth.finished
    table.crawler.checkpoint("finished", last=True)
    assert all(not moves for moves in table.script.values())
    assert_clean(
        table,
        expected_checkpoints=["lobby", "selection", "placement", "redraw", "reshuffle", "finished"],
        expected_kinds={"invitation", "game_started", "your_turn", "round_scored", "game_over"},
    )

"""An independent replay of a game record (the format of RECORD.md): the rules
written again from the rulebook, not from the engine, so that a record the
engine exports is checked by something that does not share its code."""

from __future__ import annotations

from collections import Counter
from typing import Any

Board = dict[tuple[int, int], list[tuple[str, int]]]  # (city, lot) -> pieces bottom to top
SIDE_INDEX = {"S": 0, "W": 1, "N": 2, "E": 3}


COLOURS = ("red", "blue", "green", "yellow")


PIECES = {1: 11, 2: 6, 3: 4, 4: 3}


def rotate(card: int, side: str) -> int:
    """R6 from RULES.md, 1-based card in, 1-based lot out."""
    r, c = divmod(card - 1, 3)
    k = SIDE_INDEX[side]
    if k == 0:
        rr, cc = r, c
    elif k == 1:
        rr, cc = c, 2 - r
    elif k == 2:
        rr, cc = 2 - r, 2 - c
    else:
        rr, cc = 2 - c, r
    return 3 * rr + cc + 1


def storeys(pieces: list[tuple[str, int]], colour: str) -> int:
    return sum(size for c, size in pieces if c == colour)


def may_place(pieces: list[tuple[str, int]] | None, colour: str, size: int) -> bool:
    """R14."""
    if not pieces:
        return True
    owner = pieces[-1][0]
    return owner == colour or storeys(pieces, colour) + size >= storeys(pieces, owner)


def any_placement(board: Board, hand: list[int], side: str, round_pieces: dict[str, Counter[int]]) -> bool:
    for card in set(hand):
        lot = rotate(card, side)
        for city in range(1, 7):
            for colour, left in round_pieces.items():
                if any(left[s] > 0 and may_place(board.get((city, lot)), colour, s) for s in (1, 2, 3, 4)):
                    return True
    return False


def any_lot_accepts(board: Board, round_pieces: dict[str, Counter[int]]) -> bool:
    for city in range(1, 7):
        for lot in range(1, 10):
            for colour, left in round_pieces.items():
                if any(left[s] > 0 and may_place(board.get((city, lot)), colour, s) for s in (1, 2, 3, 4)):
                    return True
    return False


def score(board: Board, colours: list[str]) -> dict[str, int]:
    """R17: tallest unique +3, city majority +2, +1 per building."""
    points = dict.fromkeys(colours, 0)
    heights = {key: sum(s for _, s in pieces) for key, pieces in board.items()}
    for city in range(1, 7):
        owned = Counter(pieces[-1][0] for (c, _), pieces in board.items() if c == city)
        for colour, n in owned.items():
            points[colour] += n
        if owned:
            (leader, most), *rest = owned.most_common()
            if not rest or rest[0][1] < most:
                points[leader] += 2
    if heights:
        tallest = max(heights.values())
        at_top = [key for key, h in heights.items() if h == tallest]
        if len(at_top) == 1:
            points[board[at_top[0]][-1][0]] += 3
    return points


def expected_winners(board: Board, colours: list[list[str]], totals: dict[str, int]) -> list[int]:
    """R19 with its tie-breaks: total, then tallest owned building, then most buildings."""

    def total(p: int) -> int:
        return sum(totals[c] for c in colours[p])

    def tallest(p: int) -> int:
        return max((sum(s for _, s in ps) for ps in board.values() if ps[-1][0] in colours[p]), default=0)

    def count(p: int) -> int:
        return sum(1 for ps in board.values() if ps[-1][0] in colours[p])

    pool = list(range(len(colours)))
    for key in (total, tallest, count):
        best = max(key(p) for p in pool)
        pool = [p for p in pool if key(p) == best]
    return pool


def next_with_pieces(
    clockwise: list[int], after: int, colours: list[list[str]], round_pieces: dict[str, Counter[int]]
) -> int | None:
    """R10: the next player clockwise after ``after`` (``after`` last) with round pieces left."""
    i = clockwise.index(after)
    for step in range(1, len(clockwise) + 1):
        q = clockwise[(i + step) % len(clockwise)]
        if sum(sum(round_pieces[c].values()) for c in colours[q]) > 0:
            return q
    return None


def replay(record: dict[str, Any]) -> None:
    """Check every move and score of ``record`` with the rules written above."""
    assert record["format"] == "manhattan-record/1"
    players: int = record["players"]
    sides: list[str] = record["sides"]
    colours: list[list[str]] = record["colours"]
    options = record["options"]
    assert len(sides) == players == len(colours)
    assert len(set(sides)) == players
    if players == 2:
        assert all(len(cs) == 2 for cs in colours)
    else:
        assert all(len(cs) == 1 for cs in colours)
    all_colours = [c for cs in colours for c in cs]
    assert len(set(all_colours)) == len(all_colours) == (3 if players == 3 else 4)
    assert set(all_colours) <= set(COLOURS)
    player_of = {c: p for p, cs in enumerate(colours) for c in cs}
    rounds_expected = 4 if players == 4 and not options["six_rounds"] else 6
    k = 24 // rounds_expected
    deck = Counter({card: options["copies_per_position"] for card in range(1, 10)})
    clockwise: list[int] = sorted(range(players), key=lambda p: SIDE_INDEX[sides[p]])

    board: Board = {}
    reserve = {c: Counter(PIECES) for c in all_colours}
    totals = dict.fromkeys(all_colours, 0)
    hands: list[Counter[int]] | None = None
    rounds = record["rounds"]
    assert [r["round"] for r in rounds] == list(range(1, rounds_expected + 1))
    start = rounds[0]["start_player"]
    for rnd in rounds:
        where = f"round {rnd['round']}"
        # R12: the start player passes clockwise each round.
        assert rnd["start_player"] == start, where
        order = clockwise[clockwise.index(start) :] + clockwise[: clockwise.index(start)]
        # Hands: 4 cards each, the same as at the end of the previous round.
        before = [Counter(h) for h in rnd["hands_before"]]
        assert all(sum(h.values()) == 4 for h in before), where
        assert all(set(h) <= set(range(1, 10)) for h in before), where
        if hands is not None:
            assert before == hands, where
        hands = before
        assert sum((hands[p] for p in range(players)), Counter()) <= deck
        # R9: selections in order from the start player, k pieces each, from the reserve.
        expected_order = [(p, c) for p in order for c in colours[p]]
        assert [(s["player"], s["colour"]) for s in rnd["selections"]] == expected_order, where
        round_pieces: dict[str, Counter[int]] = {}
        for sel in rnd["selections"]:
            pieces = Counter(sel["pieces"])
            assert sum(pieces.values()) == k, where
            assert all(pieces[s] <= reserve[sel["colour"]][s] for s in pieces), where
            reserve[sel["colour"]] -= pieces
            round_pieces[sel["colour"]] = pieces
        if rnd["round"] == rounds_expected:
            assert all(sum(r.values()) == 0 for r in reserve.values()), "the last selection empties the reserve"
        # R10: turns clockwise from the start player among players with pieces left.
        to_act = next_with_pieces(clockwise, clockwise[clockwise.index(start) - 1], colours, round_pieces)
        for t, turn in enumerate(rnd["turns"]):
            here = f"{where} turn {t + 1}"
            p = turn["player"]
            assert p == to_act, here
            mine = {c: round_pieces[c] for c in colours[p]}
            if "redraw" in turn:
                # R16: the hand shown allowed no placement, though some lot accepts a piece.
                discarded = Counter(turn["redraw"]["discarded"])
                assert discarded == hands[p], here
                assert not any_placement(board, list(discarded), sides[p], mine), here
                assert any_lot_accepts(board, mine), here
                drew = turn["redraw"]["drew"]
                assert len(drew) == 4, here
                hands[p] = Counter(drew)
                continue
            if "lost" in turn:
                assert not any_placement(board, list(hands[p].elements()), sides[p], mine), here
                colour, size = turn["lost"]["colour"], turn["lost"]["size"]
                # R16: the smallest unplaced round piece; on a tie, the player's first colour.
                smallest = min((s, colours[p].index(c)) for c in colours[p] for s in (1, 2, 3, 4) if mine[c][s])
                assert (size, colours[p].index(colour)) == smallest, here
                round_pieces[colour][size] -= 1
                to_act = next_with_pieces(clockwise, p, colours, round_pieces)
                continue
            colour, card, city, lot, size = turn["colour"], turn["card"], turn["city"], turn["lot"], turn["size"]
            assert player_of[colour] == p, here
            assert 1 <= card <= 9, here
            assert 1 <= city <= 6, here
            assert 1 <= lot <= 9, here
            assert 1 <= size <= 4, here
            assert hands[p][card] > 0, f"{here}: card {card} not in hand"
            assert lot == rotate(card, sides[p]), f"{here}: R6 rotation"
            assert round_pieces[colour][size] > 0, f"{here}: piece not in this round's selection"
            assert may_place(board.get((city, lot)), colour, size), f"{here}: R14"
            board.setdefault((city, lot), []).append((colour, size))
            round_pieces[colour][size] -= 1
            hands[p][card] -= 1
            hands[p] = +hands[p]
            if turn["drew"] is not None:
                assert 1 <= turn["drew"] <= 9
                hands[p][turn["drew"]] += 1
            to_act = next_with_pieces(clockwise, p, colours, round_pieces)
        # R12: the round ends when every colour placed (or lost) all its round pieces.
        assert to_act is None, where
        assert all(sum(v.values()) == 0 for v in round_pieces.values()), where
        # R17: recompute the round's scores from the rebuilt board.
        expected = score(board, all_colours)
        assert rnd["scores"] == expected, where
        for colour, n in expected.items():
            totals[colour] += n
        start = clockwise[(clockwise.index(start) + 1) % players]
    assert record["totals"] == totals
    # R18 and R19.
    assert record["player_totals"] == [sum(totals[c] for c in cs) for cs in colours]
    assert record["winners"] == expected_winners(board, colours, totals)
    # R2/R7: every colour used all 24 pieces (none lost here means all on the board).
    for colour in all_colours:
        on_board = sum(1 for ps in board.values() for c, _ in ps if c == colour)
        lost = sum(1 for r in rounds for t in r["turns"] if "lost" in t and t["lost"]["colour"] == colour)
        assert on_board + lost == 24, colour

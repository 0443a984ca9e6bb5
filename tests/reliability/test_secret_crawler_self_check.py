"""The crawler's self-check: leaks of every kind are injected into the
application (monkeypatching, never editing it) and the crawler must report
each one; with nothing injected it reports nothing. The crawls themselves are
in test_secret_crawler.py."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from games import engine, store
from games.models import Game, GameSecret
from games.presentation.table import HandCard, card_cells
from notifications import emails as notification_emails
from tests.support.secrets.tables import Table

pytestmark = pytest.mark.django_db


# --- the self-check: the crawler catches injected leaks ----------------------------------------------


@pytest.fixture
def small_table(monkeypatch, mailoutbox) -> Table:
    """A two-player game in its first placements, with emails still to deliver."""
    table = Table("small", 2, monkeypatch, mailoutbox)
    table.join_all()
    table.start()
    table.play_until(lambda events: table.truth.state.phase == "placement" and table.truth.state.placements >= 2)
    table.crawler.once |= {"static:seat 0", "static:anonymous"}  # the schema and docs: crawled by the big tests
    return table


def _other_hand(game: Game, seat: int | None) -> list[int]:
    state = store.state_of(game)
    assert state is not None
    return list(state.hands[((seat or 0) + 1) % state.players])


def leak_next_seats_hand_as_own(monkeypatch: pytest.MonkeyPatch, table: Table) -> None:
    real = engine.player_view

    def leaky(state: engine.GameState, seat: int | None) -> engine.PlayerView:
        view = real(state, seat)
        if seat is None:
            return view
        return view._replace(hand=tuple(state.hands[(seat + 1) % state.players]))

    monkeypatch.setattr(engine, "player_view", leaky)


def leak_every_hand_in_the_json(monkeypatch: pytest.MonkeyPatch, table: Table) -> None:
    real = engine.PlayerView.to_json

    def to_json(self: engine.PlayerView) -> dict[str, Any]:
        data = real(self)
        state = store.state_of(table.game)
        assert state is not None
        data["debug"] = {"all": [[c + 1 for c in h] for h in state.hands]}
        return data

    monkeypatch.setattr(engine.PlayerView, "to_json", to_json)


def leak_unredacted_events(monkeypatch: pytest.MonkeyPatch, table: Table) -> None:
    def identity(event: dict[str, Any], seat: int | None) -> dict[str, Any]:
        return dict(event)

    monkeypatch.setattr(engine, "redact_event", identity)
    monkeypatch.setattr("games.engine.views.redact_event", identity)


def leak_seed_in_the_summary(monkeypatch: pytest.MonkeyPatch, table: Table) -> None:
    from games.api.serializers import GameSummarySerializer

    real = GameSummarySerializer.to_representation

    def summary(self: GameSummarySerializer, game: Game) -> dict[str, Any]:
        data = dict(real(self, game))
        data["etag_salt"] = GameSecret.objects.filter(game=game).values_list("seed", flat=True).first() or ""
        return data

    monkeypatch.setattr(GameSummarySerializer, "to_representation", summary)


def leak_the_pile_in_the_email_board(monkeypatch: pytest.MonkeyPatch, table: Table) -> None:
    from games.presentation import board

    real = board.text_board

    def text_board(cities: list[Any]) -> str:
        state = store.state_of(table.game)
        assert state is not None
        upcoming = ", ".join(str(c + 1) for c in reversed(state.draw_pile))
        return real(cities) + f"\nComing up: {upcoming}"

    monkeypatch.setattr(board, "text_board", text_board)


def leak_another_hand_as_page_cards(monkeypatch: pytest.MonkeyPatch, table: Table) -> None:
    from games.presentation import table as present

    real = present.hand_cards

    def hand_cards(view: engine.PlayerView, legal: Any = None) -> list[Any]:
        if view.seat is None:
            return real(view, legal)
        return real(view._replace(hand=tuple(_other_hand(table.game, view.seat))), legal)

    monkeypatch.setattr(present, "hand_cards", hand_cards)


def leak_another_hand_in_the_email_html(monkeypatch: pytest.MonkeyPatch, table: Table) -> None:
    """Only the HTML part shows the other hand (as mini-cards); the text part is right."""
    real = notification_emails.render_to_string  # type: ignore[attr-defined]

    def render_to_string(name: str, context: dict[str, Any]) -> str:
        if name.endswith("-body.html") and context.get("view"):
            other = [c + 1 for c in _other_hand(table.game, context["notification"].seat)]
            cards = [
                HandCard(index=i, card=card, cells=card_cells(card), lot=card, lot_cells=card_cells(card), cities=[])
                for i, card in enumerate(other)
            ]
            context = {**context, "hand": cards}
        return real(name, context)

    monkeypatch.setattr(notification_emails, "render_to_string", render_to_string)


def leak_raw_payloads_to_the_admin(monkeypatch: pytest.MonkeyPatch, table: Table) -> None:
    from games.admin import GameEventInline

    monkeypatch.setattr(GameEventInline, "public_payload", lambda self, event: json.dumps(event.payload))


def leak_a_hand_in_the_spectator_view(monkeypatch: pytest.MonkeyPatch, table: Table) -> None:
    real = engine.player_view
    monkeypatch.setattr(engine, "spectator_view", lambda state: real(state, 0))


LEAKS: dict[str, tuple[Callable[[pytest.MonkeyPatch, Table], None], str, str]] = {
    # name: (inject, a channel that must report it, words the finding must contain)
    "own hand replaced by the next seat's": (leak_next_seats_hand_as_own, "api", "not the viewer's own"),
    "every hand in the game JSON": (leak_every_hand_in_the_json, "api", "hand after event"),
    "events not redacted": (leak_unredacted_events, "api", "'draw_pile'"),
    "seed in the game summary": (leak_seed_in_the_summary, "api", "the shuffle seed"),
    "draw pile in the email's board": (leak_the_pile_in_the_email_board, "email", "the draw pile's order"),
    "another hand as the page's cards": (leak_another_hand_as_page_cards, "web", "hand cards"),
    "another hand in the email's HTML": (leak_another_hand_in_the_email_html, "email", "(html): seat"),
    "raw payloads in the admin": (leak_raw_payloads_to_the_admin, "admin", "draw pile's order"),
    "a hand in the spectator's states": (leak_a_hand_in_the_spectator_view, "api", "states/"),
}


def test_self_check_the_crawler_finds_nothing_when_nothing_leaks(small_table):
    small_table.crawler.checkpoint("control")
    assert small_table.crawler.findings == []
    assert small_table.crawler.signatures > 100


@pytest.mark.parametrize("leak", sorted(LEAKS))
def test_self_check_the_crawler_catches_an_injected_leak(small_table, monkeypatch, leak):
    inject, channel, words = LEAKS[leak]
    inject(monkeypatch, small_table)
    small_table.crawler.checkpoint(f"leak: {leak}")
    findings = small_table.crawler.findings
    assert findings, f"the crawler missed the injected leak {leak!r}"
    where = {"api": "GET /api", "web": "GET /games", "email": "email", "admin": "GET /admin"}[channel]
    assert any(where in f and words in f for f in findings), "\n".join(findings[:20])

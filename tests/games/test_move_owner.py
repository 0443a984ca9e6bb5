"""One owner for a move: ``services.submit_action`` plays it once per key for every
edge (the API, the page, an email reply), and announces it with one typed payload."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Any

import pytest

from accounts.models import User
from games import engine, services, store
from games.errors import GameError
from games.models import Game, GameEvent, IdempotencyKey
from games.signals import Appended, Cause, events_appended

pytestmark = pytest.mark.django_db
DOCS = Path(__file__).resolve().parents[2] / "docs"


def _selection(game: Game) -> engine.Action:
    """A legal action of the seat to act (alice's: she starts)."""
    game.refresh_from_db()
    state = store.load(game.public_id).state
    assert state is not None
    return engine.enumerate_actions(engine.player_view(state, state.to_act))[0]


def test_a_repeat_under_the_same_key_gets_the_first_result_and_plays_nothing(started_game: Game, alice: User) -> None:
    action = _selection(started_game)
    version = started_game.version
    first = services.submit_action(
        game_id=started_game.public_id, user=alice, action=action, expected_version=version, key="k1", asked="sel"
    )
    events = GameEvent.objects.filter(game=started_game).count()
    again = services.submit_action(
        game_id=started_game.public_id, user=alice, action=action, expected_version=version, key="k1", asked="sel"
    )
    assert not first.replayed
    assert again.replayed
    assert (again.game.version, again.seat, again.events, again.created) == (
        first.game.version,
        first.seat,
        first.events,
        first.created,
    )
    assert again.state.seq == first.state.seq
    assert GameEvent.objects.filter(game=started_game).count() == events
    with pytest.raises(GameError) as refused:
        services.submit_action(
            game_id=started_game.public_id, user=alice, action=action, expected_version=version, key="k1", asked="other"
        )
    assert refused.value.code == "idempotency_key_reused"
    assert IdempotencyKey.objects.filter(user=alice, game=started_game).count() == 1


@pytest.mark.parametrize("key", ["", "k" * 201, "tab\there", "caf\u00e9"])
def test_every_edge_meets_the_same_key_rule(started_game: Game, alice: User, key: str) -> None:
    with pytest.raises(GameError) as refused:
        services.submit_action(
            game_id=started_game.public_id, user=alice, action=engine.Resign(), expected_version=1, key=key, asked=None
        )
    assert refused.value.code == "bad_idempotency_key"


def test_a_move_is_announced_with_one_frozen_payload(started_game: Game, alice: User) -> None:
    heard: list[Any] = []

    def listen(sender: Any, **kwargs: Any) -> None:
        heard.append(kwargs)

    events_appended.connect(listen, dispatch_uid="tests.move_owner")
    try:
        services.submit_action(
            game_id=started_game.public_id,
            user=alice,
            action=_selection(started_game),
            expected_version=started_game.version,
        )
    finally:
        events_appended.disconnect(dispatch_uid="tests.move_owner")
    assert [set(kwargs) for kwargs in heard] == [{"signal", "appended"}]
    appended = heard[0]["appended"]
    assert isinstance(appended, Appended)
    assert appended.cause is Cause.MOVE
    assert appended.last_seq == appended.loaded.game.version
    with pytest.raises(dataclasses.FrozenInstanceError):
        appended.cause = Cause.BOT


def test_the_webhooks_documentation_names_every_cause_a_move_can_have() -> None:
    """``game.move`` is sent for every cause but the deal (``start``)."""
    row = next(line for line in (DOCS / "api.md").read_text().splitlines() if line.startswith("| `game.move`"))
    documented = set(re.findall(r"`(\w+)` \(", row.split("`cause`", 1)[1]))
    assert documented == {cause.value for cause in Cause} - {"start"}

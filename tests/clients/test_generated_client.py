"""The schema proven by use: a Python client generated from it with
openapi-python-client plays a whole game against a live server.

Every answer is parsed by the generated models, which check required fields,
types and enums, so a body that strays from the schema fails here."""

from __future__ import annotations

import importlib
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from accounts.models import User
from accounts.services import create_api_token
from tests.support.waiting import wait_until

pytestmark = pytest.mark.slow
PACKAGE = "manhattan_client"
GENERATOR = Path(sys.executable).with_name("openapi-python-client")


@pytest.fixture
def generated(game_server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """The client package, generated from the schema the live server serves."""
    schema = tmp_path / "schema.yaml"
    schema.write_bytes(httpx.get(f"{game_server.url}/api/v1/schema/", timeout=30).raise_for_status().content)
    config = tmp_path / "config.yaml"
    config.write_text(f"package_name_override: {PACKAGE}\nproject_name_override: manhattan-client\npost_hooks: []\n")
    output = tmp_path / "tmp" / PACKAGE
    command = [str(GENERATOR), "generate", "--path", str(schema), "--output-path", str(output)]
    result = subprocess.run(
        [*command, "--meta", "none", "--config", str(config)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    # Every part of the schema became code (the generator warns on stderr).
    assert "Warning" not in result.stdout + result.stderr, result.stdout + result.stderr
    monkeypatch.syspath_prepend(str(output.parent))
    for name in [m for m in sys.modules if m == PACKAGE or m.startswith(PACKAGE + ".")]:
        del sys.modules[name]
    return importlib.import_module(PACKAGE)


def module(name: str) -> Any:
    return importlib.import_module(f"{PACKAGE}.{name}")


def choose(legal: Any) -> dict[str, Any]:
    """A simple policy: the smallest pieces to select, or the first legal placement."""
    if legal.selection is not None:
        reserve = legal.selection.reserve.to_dict()
        sizes = [int(size) for size in sorted(reserve) for _ in range(reserve[size])]
        colour = str(legal.selection.colour)
        return {"type": "select", "pieces": sizes[: legal.selection.count], "colour": colour}
    first = legal.placements[0]
    option = first.options[0]
    return {"type": "place", "card": first.card, "city": option.city, "size": option.size, "colour": str(option.colour)}


def test_a_generated_client_plays_a_whole_game_against_the_greedy_bot(game_server, generated):
    player = User.objects.create_user("client@example.com")
    token = create_api_token(user=player, name="generated client").raw
    client = generated.AuthenticatedClient(base_url=game_server.url, token=token, raise_on_unexpected_status=True)
    models = module("models")
    games_create, game_get = (module(f"api.games.{n}") for n in ("games_create", "game_get"))
    legal_actions, game_act = module("api.games.game_legal_actions"), module("api.games.game_act")
    game_events, game_record, me = module("api.games.game_events"), module("api.games.game_record"), module("api.me.me")

    assert me.sync(client=client).email == "client@example.com"
    body = models.CreateGameRequest.from_dict(
        {"seats": [{"kind": "me"}, {"kind": "bot", "bot": "greedy"}], "options": {"players": 2}}
    )
    created = games_create.sync(client=client, body=body)
    assert isinstance(created, models.Game), created
    game_id = str(created.id)
    assert created.status == models.StatusEnum.ACTIVE  # every seat taken: dealt as it was created

    def my_turn_or_over() -> Any:
        game = game_get.sync(game_id, client=client)
        assert isinstance(game, models.Game), game
        return game if game.my_turn or game.status == models.StatusEnum.FINISHED else None

    moves = 0
    deadline = time.monotonic() + 240
    while True:
        # The bot's move is being stored: until it is my turn again (or the game is over).
        game = wait_until(my_turn_or_over, timeout=30, message=f"the bot never answered ({moves} moves)")
        if game.status == models.StatusEnum.FINISHED:
            break
        assert time.monotonic() < deadline, f"the game did not finish ({moves} moves)"
        legal = legal_actions.sync(game_id, client=client)
        assert isinstance(legal, models.LegalActions), legal
        request = models.ActionRequestRequest.from_dict({"action": choose(legal), "expected_version": legal.version})
        answer = game_act.sync(game_id, client=client, body=request)
        assert isinstance(answer, models.ActionResult), answer
        assert answer.version > legal.version
        # Typed events, one class per type (not a dict of additional properties).
        mine = answer.events[0]
        assert isinstance(mine, (models.PiecesSelectedEvent, models.PiecePlacedEvent)), mine
        assert mine.seq == legal.version + 1
        assert not mine.additional_properties, mine.additional_properties
        moves += 1

    assert moves >= 12
    assert game.state is not None
    assert game.state.winners
    events = game_events.sync(game_id, client=client)
    assert events.version == game.version
    assert [event.seq for event in events.events] == list(range(1, game.version + 1))
    created_event = events.events[0]
    assert isinstance(created_event, models.GameCreatedEvent), created_event
    assert created_event.hand_sizes == [len(hand) for hand in created_event.hands if hand is not None] * 2
    kinds = {type(event).__name__ for event in events.events}
    assert {"PiecesSelectedEvent", "PiecePlacedEvent", "RoundScoredEvent", "GameFinishedEvent"} <= kinds
    assert all(not event.additional_properties for event in events.events)
    record = game_record.sync(game_id, client=client)
    assert isinstance(record, models.Record), record
    assert len(record.player_totals) == 2
    assert isinstance(record.options, models.RecordOptions)
    first_round = record.rounds[0]
    assert isinstance(first_round, models.RecordRound)
    assert isinstance(first_round.turns[0], models.RecordTurn)
    assert isinstance(first_round.turns[0].card, int)
    assert not first_round.turns[0].additional_properties


def test_a_refusal_is_a_typed_problem(game_server, generated):
    player = User.objects.create_user("refused@example.com")
    client = generated.AuthenticatedClient(base_url=game_server.url, token=create_api_token(user=player, name="t").raw)
    models = module("models")
    body = models.CreateGameRequest.from_dict({"seats": [{"kind": "me"}], "options": {"players": 2}})
    answer = module("api.games.games_create").sync_detailed(client=client, body=body)
    assert answer.status_code == 400
    assert isinstance(answer.parsed, models.Problem)
    assert answer.parsed.code == "invalid"
    assert isinstance(answer.parsed.errors, models.ProblemErrors)  # typed, not a bare dict
    assert "seats" in answer.parsed.errors.additional_properties
    assert "RateLimit" in answer.headers

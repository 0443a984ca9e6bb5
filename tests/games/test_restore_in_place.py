"""A database restored under a running process (``pg_restore --clean``) is served as
restored: the process's cached folds of the lost history are never used again, and
no process needs a restart. ``manage.py check_game_logs`` verifies the restored logs."""

from __future__ import annotations

import shutil
import subprocess
from typing import Any

import pytest
from django.core.management import call_command
from django.db import connection

from accounts.models import User
from games import engine, store
from games.models import Game, GameEvent
from tests.notifications.helpers import act

pytestmark = pytest.mark.django_db(transaction=True)

ROW_FIELDS = ["version", "phase", "round", "to_act_seat", "turn_since", "status", "finished", "updated"]


def choices(game: Game) -> list[engine.Action]:
    game.refresh_from_db()
    state = store.state_of(game)
    # Moves that append one event each (resigning appends more), so two histories meet at one version.
    actions = engine.enumerate_actions(engine.player_view(state, state.to_act))
    return [action for action in actions if not isinstance(action, engine.Resign)]


def restore_rows(game: Game, row: dict[str, Any]) -> None:
    """What a restore does to one game, through the ORM: its later events are gone and
    its row is back as it was (the database's id sequence may hand the same ids out again)."""
    # A restore is not the service: it goes around the append-only guard.
    GameEvent._base_manager.filter(game=game, seq__gt=row["version"]).delete()
    Game.objects.filter(pk=game.pk).update(**row)


def test_a_state_cached_before_a_restore_is_not_served_after_it(started_game: Game, alice: User):
    game = started_game
    restored_row = Game.objects.filter(pk=game.pk).values(*ROW_FIELDS).get()
    first, *_others, last = choices(game)
    act(game, first)  # this process caches the state after `first` (on commit)
    cached = store.states.latest_with_mark(game.public_id)
    assert cached is not None
    assert cached[0].seq == game.version

    restore_rows(game, restored_row)
    act(game, last)  # another history to the same version: its own row, its own time
    assert game.version == cached[0].seq
    # As a process that never read the game between the restore and that move has it:
    store.states.forget(game.public_id)
    store.states.remember(game.public_id, *cached)
    assert store.state_of(game) != cached[0]
    assert store.state_of(game) == engine.fold(store.event_payloads(game))
    assert store.load(game.public_id).state == engine.fold(store.event_payloads(game))


def test_a_restore_to_an_earlier_version_is_served_at_that_version(started_game: Game):
    game = started_game
    restored_row = Game.objects.filter(pk=game.pk).values(*ROW_FIELDS).get()
    act(game, choices(game)[0])
    act(game, choices(game)[0])
    restore_rows(game, restored_row)
    game.refresh_from_db()
    assert store.load(game.public_id).state.seq == restored_row["version"]
    act(game, choices(game)[-1])  # the restored game plays on
    assert store.state_of(game) == engine.fold(store.event_payloads(game))


def test_check_game_logs_passes_a_whole_database_and_names_a_broken_game(started_game: Game, capsys):
    call_command("check_game_logs")
    assert "1 games checked, 0 broken" in capsys.readouterr().out
    GameEvent._base_manager.filter(game=started_game, seq=started_game.version).delete()
    with pytest.raises(SystemExit):
        call_command("check_game_logs")
    out = capsys.readouterr()
    assert str(started_game.public_id) in out.out + out.err


@pytest.mark.postgres
@pytest.mark.skipif(not shutil.which("pg_dump"), reason="pg_dump is not installed")
def test_dump_moves_restore_and_the_same_process_answers_the_restored_states(started_game: Game):
    if connection.vendor != "postgresql":
        pytest.skip("pg_dump and pg_restore need PostgreSQL")
    game = started_game
    settings = connection.settings_dict
    target = ["-h", settings["HOST"], "-p", str(settings["PORT"]), "-U", settings["USER"], "-d", settings["NAME"]]
    dumped = subprocess.run(["pg_dump", "-Fc", *target], capture_output=True, check=True).stdout
    restored_version = game.version
    first = choices(game)[0]
    act(game, first)
    act(game, choices(game)[0])
    assert store.states.latest(game.public_id).seq == restored_version + 2
    connection.close()
    subprocess.run(
        ["pg_restore", "--clean", "--if-exists", "--no-owner", *target], input=dumped, capture_output=True, check=True
    )
    game.refresh_from_db()
    assert game.version == restored_version
    assert store.load(game.public_id).state.seq == restored_version
    # The same version again, by another move (the restored id sequence hands out the same row ids).
    act(game, choices(game)[-1])
    assert store.state_of(game) == engine.fold(store.event_payloads(game))
    call_command("check_game_logs")

"""After a restore (or any time): is every game's log whole, and does it agree with its row?

For each game: the events are numbered 1..version without a gap, they fold without an
error, and the fold agrees with the game row's version, phase, player to act and
status. Prints one line per broken game and exits with status 1 if there is one.
Folding reads every log: on a large database run it off-peak (about 1.5 ms a game).
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from games import engine
from games.models import Game, GameEvent


def problems_of(game: Game) -> list[str]:
    """What is wrong with this game's log, or nothing."""
    rows = list(GameEvent.objects.filter(game=game).order_by("seq").values_list("seq", "payload"))
    numbers = [seq for seq, _payload in rows]
    if numbers != list(range(1, len(numbers) + 1)):
        return [f"events are not numbered 1..{len(numbers)} without a gap"]
    if len(rows) != game.version:
        return [f"the log has {len(rows)} events, the game says version {game.version}"]
    if not rows:
        return []
    try:
        state = engine.fold([payload for _seq, payload in rows])
    except Exception as error:  # any failure to fold is what this command reports
        return [f"the log does not fold: {type(error).__name__}: {error}"]
    found = []
    if state.seq != game.version:
        found.append(f"the fold is at version {state.seq}, the game at {game.version}")
    if state.phase != game.phase:
        found.append(f"the fold is in phase {state.phase!r}, the game in {game.phase!r}")
    if state.to_act != game.to_act_seat:
        found.append(f"seat {state.to_act} is to act in the fold, seat {game.to_act_seat} in the game")
    if state.is_finished != (game.status == Game.Status.FINISHED):
        found.append(f"the fold is {'' if state.is_finished else 'not '}finished, the game is {game.status}")
    return found


class Command(BaseCommand):
    help = "Check that every game's event log is whole, folds, and agrees with the game (after a restore)."

    def handle(self, *args: Any, **options: Any) -> None:
        checked = broken = 0
        for game in Game.objects.order_by("pk").iterator(chunk_size=200):
            checked += 1
            found = problems_of(game)
            if found:
                broken += 1
                self.stderr.write(f"{game.public_id} ({game.name or 'unnamed'}): " + "; ".join(found))
        self.stdout.write(f"{checked} games checked, {broken} broken")
        if broken:
            raise SystemExit(1)

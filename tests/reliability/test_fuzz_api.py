"""The API under schemathesis: every operation of the OpenAPI schema, positive
and negative data, as a seated player and as a stranger.

The harness is tests/reliability/fuzz.py (its docstring lists the checks); this
runs it in-process through Django's WSGI application on the test database. In
the suite, a few derandomized cases per operation, identity and mode, so it stays
fast and every run draws the same cases. The long run is this test with more:
``FUZZ_EXAMPLES=60`` draws 60 cases per operation, identity and mode (three times
as many for actions), and ``FUZZ_SEED`` draws other cases than the derandomized
ones; see docs/reliability.md.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from django.core.cache import cache
from django.core.handlers.wsgi import WSGIHandler

from tests.support.fuzz import ACTIONS, Fuzzer
from tests.support.fuzz_checks import ALL_CHECKS, Tally, report
from tests.support.fuzz_world import PLAYER, STRANGER, build_world
from tests.support.fuzz_wsgi import capture_exceptions, keep_connections, wsgi_schema

# slow: hundreds of generated API calls per identity (left out by `dev.py test --fast`)
pytestmark = [pytest.mark.django_db, pytest.mark.slow]

# 14 operations x 2 modes x 2, and more for actions: about 80 cases per identity.
EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "2"))
MORE_EXAMPLES = {ACTIONS: 12 if "FUZZ_EXAMPLES" not in os.environ else 3 * EXAMPLES}
SEED = int(os.environ["FUZZ_SEED"]) if os.environ.get("FUZZ_SEED") else None


@pytest.fixture
def fuzzer(db) -> Iterator[Fuzzer]:
    cache.clear()  # the throttles count in the cache, which outlives each test's database
    app = WSGIHandler()
    current: list[Fuzzer] = []
    with keep_connections(), capture_exceptions(lambda: current[0] if current else None):
        fuzzer = Fuzzer(wsgi_schema(app), build_world(), app=app)
        current.append(fuzzer)
        yield fuzzer
    cache.clear()


def assert_clean(tally: Tally, identity: str) -> None:
    text = report(tally, f"API fuzzing as the {identity}")
    assert tally.server_errors == [], text
    assert {name: tally.failures.get(name, 0) for name in ALL_CHECKS} == dict.fromkeys(ALL_CHECKS, 0), text
    assert tally.generation_errors == [], text
    assert tally.invariant_errors == [], text


def test_every_operation_as_a_seated_player(fuzzer):
    tally = fuzzer.run(identities=(PLAYER,), examples=EXAMPLES, more_examples=MORE_EXAMPLES, seed=SEED)

    assert_clean(tally, PLAYER)
    assert tally.cases >= 60
    # Real ids reach the views: games are read and acted in, not only 404s.
    assert tally.statuses["GET /api/v1/games/{game_id} -> 200"] > 0, tally.statuses
    assert tally.statuses["GET /api/v1/games/{game_id}/legal-actions -> 200"] > 0, tally.statuses
    assert any(key.startswith("POST /api/v1/games/{game_id}/actions -> 422") for key in tally.statuses)
    assert tally.actions_played > 0, tally.statuses


def test_every_operation_as_a_stranger(fuzzer):
    tally = fuzzer.run(identities=(STRANGER,), examples=EXAMPLES, more_examples=MORE_EXAMPLES, seed=SEED)

    assert_clean(tally, STRANGER)
    assert tally.cases >= 60
    assert tally.statuses["GET /api/v1/games/{game_id} -> 200"] > 0, tally.statuses
    assert tally.statuses["GET /api/v1/games/{game_id}/legal-actions -> 403 not_a_player"] > 0, tally.statuses
    assert tally.actions_played == 0

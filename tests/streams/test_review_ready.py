"""A finished game's review reaches the streams once it is ready: ``event: review_ready``
on the game's stream, and ``review_ready`` on each player's stream, which follows the
finished game until then."""

from __future__ import annotations

from typing import Any

import pytest

from games.models import Game, GameReview
from games.services.review import run_review
from tests.factories import play_to_end, two_player_bot_game
from tests.support.api import token

pytestmark = pytest.mark.slow


@pytest.fixture
def _small_review(settings: Any) -> None:
    settings.GAME_REVIEW = "all"
    settings.GAME_REVIEW_ITERATIONS = 2


@pytest.mark.usefixtures("_small_review")
def test_the_players_stream_says_game_over_then_review_ready(asgi_server: Any, sse: Any, alice: Any) -> None:
    game = two_player_bot_game(alice)
    stream = sse(f"{asgi_server.url}/api/v1/stream", **token(alice))
    assert stream.next().data == {"type": "ready"}
    play_to_end(game, alice)
    over = stream.until(lambda e: e.data["type"] == "game_over", timeout=10)
    assert f"{game.pk}:{game.version}" in (over.id or "")  # still followed: its review is coming

    run_review(str(game.public_id))
    ready = stream.until(lambda e: e.data["type"] == "review_ready", timeout=10)
    assert ready.data == {
        "type": "review_ready",
        "game": str(game.public_id),
        "seq": game.version,
        "version": game.version,
    }
    assert f"{game.pk}:" not in (ready.id or "")  # told: no longer followed

    # A client that dropped after game_over hears of the review when it resumes.
    again = sse(f"{asgi_server.url}/api/v1/stream", **token(alice), **{"Last-Event-ID": over.id or ""})
    assert again.next(timeout=5).data["type"] == "review_ready"


@pytest.mark.usefixtures("_small_review")
def test_the_game_stream_sends_review_ready_once_the_review_is_stored(
    asgi_server: Any, sse: Any, alice: Any, stranger: Any
) -> None:
    game = two_player_bot_game(alice)
    play_to_end(game, alice)
    game.refresh_from_db()
    url = f"{asgi_server.url}/api/v1/games/{game.public_id}/stream?after={game.version}"
    stream = sse(url, **token(alice))
    assert stream.status == 200
    assert sse(url, **token(stranger)).status == 404  # a private game's review is its viewers' alone

    run_review(str(game.public_id))
    ready = stream.until(lambda e: e.name == "review_ready", timeout=10)
    assert ready.id == str(game.version)
    assert ready.data == {
        "type": "review_ready",
        "game": str(game.public_id),
        "version": game.version,
        "review": f"/api/v1/games/{game.public_id}/review",
    }
    assert Game.objects.get(pk=game.pk).status == Game.Status.FINISHED


@pytest.mark.django_db
@pytest.mark.parametrize("policy", ["off", "failed"])
def test_a_game_without_a_review_to_come_is_no_longer_followed_after_game_over(
    settings: Any, alice: Any, policy: str
) -> None:
    from streams import feeds

    settings.GAME_REVIEW = "off" if policy == "off" else "all"
    game = two_player_bot_game(alice)
    cursor = feeds.user_cursor_now(alice)
    play_to_end(game, alice)
    if policy == "failed":
        GameReview.objects.filter(game=game).update(status=GameReview.Status.FAILED)
    frames, after, following = feeds.user_events(alice, cursor)
    assert [frame.body["type"] for frame in frames][-1] == "game_over"
    assert game.pk not in after
    assert str(game.public_id) not in following

"""Bot levels in the service: chosen on the new-game page and in the API's seat body, each
shown with its measured rating (or "not yet rated"), played by the level's bot, and rated
from saved arena matches by ``manage.py rate_levels``. The old seat kinds keep working."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from django.test import Client
from rest_framework.test import APIClient

from accounts.models import User
from games import engine, levels, services, store
from games.models import Game, GameEvent
from games.services import play

pytestmark = pytest.mark.django_db

RATED = {
    "method": "test",
    "measured": "2026-12-03",
    "players": 2,
    "levels": {
        "easy": {"rating": -9.28, "mu": 8.96, "sigma": 6.08, "games": 200},
        "medium": {"rating": 22.79, "mu": 41.04, "sigma": 6.08, "games": 200},
    },
    "not_rated": ["hard", "strongest"],
    "matches": [],
}


@pytest.fixture
def ratings_file(tmp_path: Path, monkeypatch: Any) -> Path:
    path = tmp_path / "level_ratings.json"
    path.write_text(json.dumps(RATED), encoding="utf-8")
    monkeypatch.setattr(levels, "LEVEL_RATINGS_FILE", path)
    return path


def _options(page: str, seat: int) -> dict[str, str]:
    """The seat's choices on the page, value -> label."""
    start = page.index(f'name="seat_{seat}"')
    select = page[start : page.index("</select>", start)]
    options = {}
    for chunk in select.split("<option value=")[1:]:
        value = chunk.split('"')[1]
        options[value] = chunk.split(">", 1)[1].split("</option")[0].strip()
    return options


def test_the_new_game_page_offers_each_level_with_its_rating_or_none(
    client: Client, alice: User, ratings_file: Path
) -> None:
    client.force_login(alice)
    page = client.get("/games/new/").content.decode()
    options = _options(page, 2)
    assert options["easy"] == "Easy bot (rating -9.3)"
    assert options["medium"] == "Medium bot (rating 22.8)"
    assert options["hard"] == "Hard bot (not yet rated)"
    assert options["strongest"] == "Strongest bot (not yet rated)"
    assert {"strong", "greedy", "random", "invite", "open"} <= set(options), "the old kinds stay"
    assert list(options).index("easy") < list(options).index("strongest")
    assert 'data-testid="level-ratings-help"' in page


@pytest.mark.parametrize(
    ("language", "medium", "hard"),
    [
        ("de", "Mittlerer Bot (Wertungszahl 22,8)", "Schwerer Bot (noch ohne Wertungszahl)"),
        ("nl", "Gemiddelde bot (rating 22,8)", "Moeilijke bot (nog geen rating)"),
        ("fr", "Bot moyen (cote 22,8)", "Bot difficile (pas encore de cote)"),
        ("ko", "보통 봇 (레이팅 22.8)", "어려움 봇 (아직 레이팅 없음)"),
    ],
)
def test_the_levels_are_labelled_in_the_readers_language(
    client: Client, alice: User, ratings_file: Path, language: str, medium: str, hard: str
) -> None:
    client.force_login(alice)
    page = client.get("/games/new/", HTTP_ACCEPT_LANGUAGE=language).content.decode()
    options = _options(page, 3)
    assert options["medium"] == medium
    assert options["hard"] == hard


def test_without_a_ratings_file_every_level_is_not_yet_rated(
    client: Client, alice: User, tmp_path: Path, monkeypatch: Any
) -> None:
    monkeypatch.setattr(levels, "LEVEL_RATINGS_FILE", tmp_path / "missing.json")
    client.force_login(alice)
    options = _options(client.get("/games/new/").content.decode(), 2)
    assert [options[level] for level in ("easy", "medium", "hard", "strongest")] == [
        "Easy bot (not yet rated)",
        "Medium bot (not yet rated)",
        "Hard bot (not yet rated)",
        "Strongest bot (not yet rated)",
    ]


def test_a_level_chosen_on_the_form_takes_the_seat_and_plays(client: Client, alice: User) -> None:
    client.force_login(alice)
    form = {"players": "3", "seat_2": "easy", "seat_3": "greedy", "timeout": "168"}
    assert client.post("/games/new/", form).status_code == 302
    game = Game.objects.get(creator=alice)
    assert [seat.bot for seat in game.seats.order_by("index")] == ["", "easy", "greedy"]
    page = client.get(f"/games/{game.public_id}/").content.decode()
    assert "Bot 2 (easy bot)" in page
    client.post(f"/games/{game.public_id}/start/")
    for _ in range(400):  # the creator plays its first legal move; the bots play theirs
        play.play_bot_turns(game_id=game.public_id)
        loaded = store.load(game.public_id)
        if loaded.game.status == Game.Status.FINISHED:
            break
        assert loaded.state is not None
        assert loaded.state.to_act == 0, "only the person's turns are left after the bots played"
        action = next(
            a for a in engine.enumerate_actions(engine.player_view(loaded.state, 0)) if not isinstance(a, engine.Resign)
        )
        services.submit_action(game_id=game.public_id, user=alice, action=action, expected_version=loaded.game.version)
    loaded = store.load(game.public_id)
    assert loaded.game.status == Game.Status.FINISHED
    assert GameEvent.objects.filter(game=game, type="piece_placed", seat=1).exists(), "the easy bot placed"


def test_an_unknown_level_on_the_form_is_refused(client: Client, alice: User) -> None:
    client.force_login(alice)
    response = client.post("/games/new/", {"players": "2", "seat_2": "godlike", "timeout": "168"})
    assert response.status_code == 400
    assert not Game.objects.exists()


@pytest.mark.parametrize("bot", ["easy", "medium", "hard", "strongest", "strong", "greedy", "random"])
def test_the_api_creates_a_game_with_a_level_or_an_old_bot(
    api: Callable[[User | None], APIClient], alice: User, bot: str
) -> None:
    response = api(alice).post("/api/v1/games", {"seats": [{"kind": "me"}, {"kind": "bot", "bot": bot}]}, format="json")
    assert response.status_code == 201, response.content
    game = Game.objects.get(public_id=response.json()["id"])
    assert [seat.bot for seat in game.seats.order_by("index")] == ["", bot]


@pytest.mark.parametrize("bot", ["godlike", "EASY", "strong-greedy-playouts", ""])
def test_an_unknown_bot_or_level_is_a_422_problem(
    api: Callable[[User | None], APIClient], alice: User, bot: str
) -> None:
    response = api(alice).post("/api/v1/games", {"seats": [{"kind": "me"}, {"kind": "bot", "bot": bot}]}, format="json")
    if bot == "":  # no bot named at all: the field is missing, as before
        assert response.status_code == 400
        assert response.json()["code"] == "invalid"
        return
    assert response.status_code == 422, response.content
    assert response["Content-Type"].startswith("application/problem+json")
    body = response.json()
    assert body["code"] == "unknown_bot"
    assert body["type"] == "/api/v1/problems/unknown_bot"
    assert body["choices"] == ["random", "greedy", "strong", "easy", "medium", "hard", "strongest"]
    assert not Game.objects.exists()


def test_the_problem_page_describes_unknown_bot(client: Client) -> None:
    response = client.get("/api/v1/problems/unknown_bot", HTTP_ACCEPT="application/json")
    assert response.status_code == 200
    assert "bot level" in json.dumps(response.json())


def test_the_openapi_schema_types_the_levels_with_their_ratings(client: Client, ratings_file: Path) -> None:
    response = client.get("/api/v1/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    schema = json.loads(response.content)
    bot_seat = next(v for v in schema["components"]["schemas"]["SeatSpecRequest"]["oneOf"] if "bot" in v["properties"])
    bot = bot_seat["properties"]["bot"]
    assert bot["enum"] == ["greedy", "random", "strong", "easy", "medium", "hard", "strongest"]
    assert "`medium` rating 22.8 (200 games of 2 players, measured 2026-12-03)" in bot["description"]
    assert "`hard` not yet rated" in bot["description"]
    create = schema["paths"]["/api/v1/games"]["post"]["responses"]
    assert "422" in create


def _write_match(path: Path, games: list[tuple[list[str], list[int], list[int]]]) -> None:
    lines = [
        json.dumps({"key": f"k{i}", "lineup": lineup, "winners": won, "totals": totals})
        for i, (lineup, won, totals) in enumerate(games)
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_rate_levels_rates_the_levels_of_a_saved_match_and_leaves_the_rest_unrated(tmp_path: Path) -> None:
    match = tmp_path / "easy-medium.jsonl"
    games = [(["easy", "medium"], [1], [70, 160]), (["medium", "easy"], [0], [150, 90])] * 5
    games.append((["easy", "medium"], [0], [120, 110]))
    _write_match(match, games)
    output = tmp_path / "ratings.json"
    call_command("rate_levels", str(match), "--output", str(output), "--commit", "abc1234")
    written = json.loads(output.read_text())
    assert written["players"] == 2
    assert written["commit"] == "abc1234"
    assert set(written["levels"]) == {"easy", "medium"}
    assert written["not_rated"] == ["hard", "strongest"]
    assert written["levels"]["medium"]["rating"] > written["levels"]["easy"]["rating"]
    assert written["levels"]["easy"]["games"] == 11
    assert written["matches"][0]["wins"] == {"easy": 1.0, "medium": 10.0}
    rated = levels._read(output)
    assert rated["medium"].rating == written["levels"]["medium"]["rating"]


def test_rate_levels_refuses_a_match_of_anything_but_levels(tmp_path: Path) -> None:
    """A bot at another budget is no level: its games never make a level's rating."""
    match = tmp_path / "mixed.jsonl"
    _write_match(match, [(["easy", "greedy"], [1], [70, 160])])
    with pytest.raises(CommandError, match="greedy is not a level"):
        call_command("rate_levels", str(match), "--output", str(tmp_path / "out.json"))


def test_the_checked_in_ratings_file_holds_measured_levels_only(client: Client, alice: User) -> None:
    """What the page shows by default: the file the arena's matches made, each rated level
    resting on the games of its matches, the levels without a match not yet rated."""
    written = json.loads(levels.LEVEL_RATINGS_FILE.read_text(encoding="utf-8"))
    rated = levels.level_ratings()
    assert set(rated) | set(written["not_rated"]) == {"easy", "medium", "hard", "strongest"}
    assert not set(rated) & set(written["not_rated"])
    for name, level in rated.items():
        assert level.games == sum(m["games"] for m in written["matches"] if name in m["levels"]) > 0
    client.force_login(alice)
    options = _options(client.get("/games/new/").content.decode(), 2)
    for name in written["not_rated"]:
        assert options[name].endswith("(not yet rated)")
    for name, level in rated.items():
        assert options[name].endswith(f"(rating {level.rating:.1f})")

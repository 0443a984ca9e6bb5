"""Numbers in markup are never localized: in German, Dutch and French a decimal
comma in ``x="105,0"`` would pile the storey bars up at the board's left edge.
Every page with a drawing is rendered in all five languages, and every numeric
SVG attribute and every number in an inline style is read as a plain number."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from html.parser import HTMLParser

import pytest
from django.template.loader import render_to_string
from django.utils import translation

from accounts.models import User
from games.models import Game
from ratings.chart import rating_chart
from ratings.profiles import RatingPoint
from tests.factories import act, greedy_move

pytestmark = pytest.mark.django_db
LANGUAGES = ["en", "de", "nl", "fr", "ko"]
# SVG attributes that hold numbers (lists of them for viewBox and points).
NUMERIC = {
    "x", "y", "x1", "y1", "x2", "y2", "cx", "cy", "r", "rx", "ry", "width", "height",
    "stroke-width", "font-size", "viewbox", "points", "stroke-dasharray",
}  # fmt: skip
NUMBER = re.compile(r"-?\d+(\.\d+)?")
CSS_NUMBER = re.compile(r"-?\d+(?:[.,]\d+)?")


class Numbers(HTMLParser):
    """Collects what the page writes as numbers: SVG attributes and inline styles."""

    def __init__(self) -> None:
        super().__init__()
        self.in_svg = 0
        self.svg_values: list[tuple[str, str, str]] = []
        self.styles: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "svg":
            self.in_svg += 1
        for name, value in attrs:
            if value is None:
                continue
            if name == "style":
                self.styles.append(value)
            elif self.in_svg and name in NUMERIC and not (tag == "svg" and value.endswith("%")):
                self.svg_values.append((tag, name, value))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag == "svg":
            self.in_svg -= 1

    def handle_endtag(self, tag: str) -> None:
        if tag == "svg":
            self.in_svg -= 1


def read(html: str) -> Numbers:
    numbers = Numbers()
    numbers.feed(html)
    return numbers


def assert_plain_numbers(html: str, language: str) -> int:
    """Every number parses; returns how many SVG values were checked."""
    numbers = read(html)
    for tag, name, value in numbers.svg_values:
        parts = value.split()  # viewBox, points and dash arrays are lists; the rest one number
        if name == "points":  # "x,y x,y": one comma per pair, between the two
            parts = [number for pair in parts for number in pair.split(",", 1)]
        for part in parts:
            assert NUMBER.fullmatch(part), f"{language}: <{tag} {name}={value!r}> is not a plain number"
    for style in numbers.styles:
        for match in CSS_NUMBER.finditer(style):
            assert "," not in match.group(), f"{language}: style {style!r} has a decimal comma"
    return len(numbers.svg_values)


@pytest.fixture
def game_with_buildings(started_game: Game) -> Game:
    """Both players have built, so lots carry storey bars of fractional widths."""
    for _ in range(6):
        act(started_game, greedy_move(started_game))
    started_game.refresh_from_db()
    return started_game


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_game_page_s_board_has_plain_numbers(browser, game_with_buildings, alice, language):
    User.objects.filter(pk=alice.pk).update(language=language)
    html = browser(alice).get(f"/games/{game_with_buildings.public_id}/").content.decode()
    assert re.search(r'<rect class="storeys" x="\d+\.\d', html), "the test needs a fractional coordinate"
    assert assert_plain_numbers(html, language) > 100


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_spectator_page_s_board_has_plain_numbers(browser, game_with_buildings, stranger, language):
    game_with_buildings.public = True
    game_with_buildings.save(update_fields=["public"])
    User.objects.filter(pk=stranger.pk).update(language=language)
    response = browser(stranger).get(f"/games/{game_with_buildings.public_id}/watch/")
    assert response.status_code == 200
    assert assert_plain_numbers(response.content.decode(), language) > 100


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_rating_chart_has_plain_numbers(language):
    history = [
        RatingPoint(game=f"g{i}", at=datetime(2026, 1, i + 1, tzinfo=UTC), rating=r, rank=1 + i % 2)
        for i, r in enumerate([1.37, 4.21, 3.05, 7.77])
    ]
    chart = rating_chart(history)
    with translation.override(language):
        html = render_to_string("ratings/_chart.svg.html", {"chart": chart, "players": 2})
    assert re.search(r'cy="\d+\.\d"', html), "the test needs a fractional coordinate"
    assert assert_plain_numbers(html, language) > 10

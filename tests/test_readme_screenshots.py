"""The README's pictures show the page as it is: every picture the README (or a
page of docs/) shows from docs/screenshots/ is one a journey test takes
(tests/support/screenshots.py lists them, and the journey takes each by name),
and every picture taken is shown somewhere. A fast test: no browser."""

from __future__ import annotations

import re
import struct
from pathlib import Path

from tests.support.screenshots import FOLDER, ROOT, SCREENSHOTS

IMAGE = re.compile(r"""<img\s[^>]*src="([^"]+)"|!\[[^\]]*\]\(([^)\s]+)""")


def pages() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def shown() -> dict[Path, list[Path]]:
    """The pictures each page shows, resolved from where the page is."""
    found: dict[Path, list[Path]] = {}
    for page in pages():
        for match in IMAGE.finditer(page.read_text(encoding="utf-8")):
            src = match.group(1) or match.group(2)
            if "://" not in src:
                found.setdefault(page, []).append((page.parent / src).resolve())
    return found


def png_width(path: Path) -> int:
    header = path.read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n", f"{path.name} is not a PNG"
    return int(struct.unpack(">I", header[16:20])[0])


def test_every_picture_shown_is_taken_by_a_journey():
    shown_pictures = {picture for pictures in shown().values() for picture in pictures}
    assert shown_pictures, "the README shows the game page"
    for picture in shown_pictures:
        assert picture.exists(), f"{picture.relative_to(ROOT)} is shown but missing"
        assert picture.parent == FOLDER, f"{picture.relative_to(ROOT)}: the pictures live in docs/screenshots/"
        assert picture.name in SCREENSHOTS, f"{picture.name} is taken by no journey (tests/support/screenshots.py)"


def test_every_picture_taken_is_shown_and_has_its_journey_s_size():
    shown_names = {picture.name for pictures in shown().values() for picture in pictures}
    on_disk = {path.name for path in FOLDER.glob("*.png")}
    assert on_disk == set(SCREENSHOTS), "docs/screenshots/ holds the journeys' pictures, no others"
    for name, screenshot in SCREENSHOTS.items():
        assert name in shown_names, f"{name} is taken but shown nowhere"
        journey = (ROOT / screenshot.taken_by).read_text(encoding="utf-8")
        assert re.search(rf"""take\([^)]*"{re.escape(name)}\"""", journey), f"{screenshot.taken_by} never takes {name}"
        assert png_width(FOLDER / name) == screenshot.width, f"{name} was not taken at the journey's size"

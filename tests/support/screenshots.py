"""The README's pictures, in one list: each is taken by a journey test while it
plays, so it shows the page as it is. ``UPDATE_SCREENSHOTS=1`` writes them to
``docs/screenshots/``; otherwise they go to the test's own folder (a test run
leaves the tracked files alone, and the taking is still tested).
``tests/test_readme_screenshots.py`` checks that every picture the README (or
a page of docs/) shows is in this list, exists, and has the size taken here.

No Playwright here: the fast test reads this list without a browser."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
FOLDER = ROOT / "docs" / "screenshots"


@dataclass(frozen=True)
class Screenshot:
    taken_by: str  # the test module (relative to the repository) whose journey takes it
    width: int  # the viewport's width: the picture's width in pixels


SCREENSHOTS: dict[str, Screenshot] = {
    "game-lobby.png": Screenshot("tests/browser/test_table_journey.py", 1280),
    "game-page-desktop.png": Screenshot("tests/browser/test_table_journey.py", 1280),
    "game-page-phone.png": Screenshot("tests/browser/test_table_journey.py", 390),
    "game-finished.png": Screenshot("tests/browser/test_table_journey.py", 1280),
}


def take(page: Any, name: str, tmp_path: Path, *, full_page: bool = False) -> Path:
    """Photograph ``page`` as README picture ``name`` (one of ``SCREENSHOTS``)."""
    assert name in SCREENSHOTS, f"{name} is not in tests/support/screenshots.py"
    folder = FOLDER if os.environ.get("UPDATE_SCREENSHOTS") == "1" else tmp_path
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    page.screenshot(path=str(path), full_page=full_page, animations="disabled", caret="hide")
    return path

"""Every file or folder of the project that the README or a page of docs/ names
exists: tests are split and harnesses move (tests/support/), and a page that still
sends a reader to the old path is wrong without anyone noticing. A fast test: it
reads the pages and looks at the disk, nothing else."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# The project's own folders a page may name a path in (``games/store.py``, ``tests/support/``).
FOLDERS = [
    *("accounts", "benchmarks", "docs", "examples", "games", "locale", "manhattan_site"),
    *("notifications", "ratings", "streams", "templates", "tests", "webhooks"),
]
# What a named file ends in; anything else after a dot is a name inside a module
# (``games/store.load``), and a path ending in ``/`` is a folder.
FILE_ENDINGS = (".py", ".md", ".json", ".html", ".txt", ".js", ".css", ".po", ".mo", ".yml", ".yaml", ".toml")
PATH = re.compile(r"(?<![\w/.:-])((?:" + "|".join(FOLDERS) + r")/[\w./{},*-]*)")
# A test file named alone, as in "the tests of `test_fuzz_api.py`".
TEST_FILE = re.compile(r"(?<![\w/.-])(test_[\w{},*]+\.py)\b")


def pages() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def expand(path: str) -> list[str]:
    """``test_api_{versions,missing_things}.py`` is two paths."""
    braces = re.search(r"\{([^{}]*,[^{}]*)\}", path)
    if braces is None:
        return [path]
    alternatives = (path[: braces.start()] + alt + path[braces.end() :] for alt in braces.group(1).split(","))
    return list(itertools.chain.from_iterable(expand(alt) for alt in alternatives))


def named_paths() -> list[tuple[str, str]]:
    """(where, path) for every project path a page names: a file by its ending, or a folder."""
    found = []
    for page in pages():
        for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), start=1):
            for match in PATH.finditer(line):
                raw = match.group(1).rstrip(".,")
                if raw.endswith("/") or raw.endswith(FILE_ENDINGS):
                    where = f"{page.relative_to(ROOT)}:{number}"
                    found += [(where, path) for path in expand(raw)]
    return found


def named_test_files() -> list[tuple[str, str]]:
    found = []
    for page in pages():
        for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), start=1):
            for match in TEST_FILE.finditer(line):
                found += [(f"{page.relative_to(ROOT)}:{number}", name) for name in expand(match.group(1))]
    return found


def test_the_pages_name_paths():
    """The check below checks something: the pages name the harnesses and tests they describe."""
    paths = {path for _where, path in named_paths()}
    assert {"tests/support/fuzz.py", "tests/factories.py", "games/store.py"} <= paths


@pytest.mark.parametrize("where", ["README.md", "docs"])
def test_every_path_a_page_names_exists(where):
    missing = [
        f"{page}: {path}"
        for page, path in named_paths()
        if page.startswith(where) and not (list(ROOT.glob(path)) if "*" in path else (ROOT / path).exists())
    ]
    assert missing == []


def test_every_test_file_named_alone_exists():
    tests = {path.name for path in (ROOT / "tests").rglob("test_*.py")}
    missing = [
        f"{page}: {name}"
        for page, name in named_test_files()
        if not any(re.fullmatch(re.escape(name).replace(r"\*", r"[\w]*"), test) for test in tests)
    ]
    assert missing == []

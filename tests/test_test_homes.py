"""Tests with a home (issue 24), kept that way: every builder and harness lives in
tests/factories.py or tests/support/ (or in a Django app the tests install, a folder
with an apps.py); no module under tests/ imports a test module or a conftest (a
fixture several folders share is registered once, through ``pytest_plugins`` in
tests/conftest.py); and no module under tests/ is longer than 400 lines (a long
one is split by behaviour, one file per area)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

TESTS = Path(__file__).resolve().parent
LIMIT = 400


def _modules(tests: Path) -> list[Path]:
    return sorted(path for path in tests.rglob("*.py") if "__pycache__" not in path.parts)


def _is_test_module_or_conftest(name: str, tests: Path) -> bool:
    """Whether dotted ``name`` is a module file under ``tests`` named test_*.py or conftest.py."""
    parts = name.split(".")
    if parts[0] != tests.name or not (parts[-1].startswith("test_") or parts[-1] == "conftest"):
        return False
    return tests.parent.joinpath(*parts).with_suffix(".py").is_file()


def _imported_names(path: Path, tests: Path) -> Iterator[tuple[int, str]]:
    """(line, dotted name) of everything ``path`` imports or names in ``pytest_plugins``:
    relative imports resolved, and ``from package import module`` counted as the module."""
    package = path.relative_to(tests.parent).parent.parts
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            yield from ((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else ()
            module = ".".join([*base, *([node.module] if node.module else [])])
            yield node.lineno, module
            yield from ((node.lineno, f"{module}.{alias.name}") for alias in node.names)
        elif isinstance(node, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id == "pytest_plugins" for target in node.targets
        ):
            for constant in ast.walk(node.value):
                if isinstance(constant, ast.Constant) and isinstance(constant.value, str):
                    yield node.lineno, constant.value


def imports_of_test_modules(tests: Path) -> list[str]:
    found = []
    for path in _modules(tests):
        for line, name in _imported_names(path, tests):
            if _is_test_module_or_conftest(name, tests):
                found.append(f"{path.relative_to(tests.parent)}:{line} imports {name}")
    return found


def long_modules(tests: Path) -> list[str]:
    lengths = {path: len(path.read_text(encoding="utf-8").splitlines()) for path in _modules(tests)}
    return [f"{path.relative_to(tests.parent)}: {n} lines" for path, n in lengths.items() if n > LIMIT]


def homeless_helpers(tests: Path) -> list[str]:
    """Modules that are neither tests, conftests nor packages, outside the homes for helpers."""
    found = []
    for path in _modules(tests):
        if path.name.startswith("test_") or path.name in {"conftest.py", "__init__.py"}:
            continue
        relative = path.relative_to(tests)
        if relative.parts[0] == "support" or relative == Path("factories.py"):
            continue
        if any((folder / "apps.py").is_file() for folder in path.parents if tests in folder.parents):
            continue  # a Django app the tests install (tests/api_layer_app): its modules are the app
        found.append(str(path.relative_to(tests.parent)))
    return found


def test_no_module_imports_a_test_module_or_a_conftest():
    assert imports_of_test_modules(TESTS) == [], "move what is shared into tests/support"


def test_no_module_is_longer_than_the_limit():
    assert long_modules(TESTS) == [], f"split by behaviour: at most {LIMIT} lines a module"


def test_every_helper_lives_in_support_or_factories():
    assert homeless_helpers(TESTS) == [], "builders and harnesses live in tests/support or tests/factories.py"


def test_the_guards_find_a_house_out_of_order(tmp_path):
    tests = tmp_path / "tests"
    for folder in (tests, tests / "a", tests / "b", tests / "support", tests / "app"):
        folder.mkdir()
        (folder / "__init__.py").write_text("")
    (tests / "a" / "conftest.py").write_text("import pytest\n")
    (tests / "a" / "test_one.py").write_text("def helper():\n    return 1\n")
    (tests / "a" / "builders.py").write_text("def build():\n    return 1\n")
    (tests / "support" / "world.py").write_text("def build():\n    return 1\n")
    (tests / "app" / "apps.py").write_text("NAME = 'app'\n")
    (tests / "app" / "views.py").write_text("")
    (tests / "b" / "test_absolute.py").write_text("from tests.a.test_one import helper\n")
    (tests / "b" / "test_package.py").write_text("from tests.a import test_one\n")
    (tests / "b" / "test_conftest.py").write_text("import tests.a.conftest\n")
    (tests / "a" / "test_relative.py").write_text("from .test_one import helper\n")
    (tests / "b" / "conftest.py").write_text('pytest_plugins = ["tests.a.conftest"]\n')
    (tests / "b" / "test_fine.py").write_text("from tests.support.world import build\nfrom tests.a import builders\n")
    (tests / "b" / "test_long.py").write_text("x = 1\n" * (LIMIT + 1))
    (tests / "b" / "test_at_the_limit.py").write_text("x = 1\n" * LIMIT)

    assert imports_of_test_modules(tests) == [
        "tests/a/test_relative.py:1 imports tests.a.test_one",
        "tests/b/conftest.py:1 imports tests.a.conftest",
        "tests/b/test_absolute.py:1 imports tests.a.test_one",
        "tests/b/test_conftest.py:1 imports tests.a.conftest",
        "tests/b/test_package.py:1 imports tests.a.test_one",
    ]
    assert long_modules(tests) == [f"tests/b/test_long.py: {LIMIT + 1} lines"]
    assert homeless_helpers(tests) == ["tests/a/builders.py"]

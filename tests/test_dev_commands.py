"""The development commands: ``serve --addr`` points the emails' links at that
address; the browser test says how to get Chromium when it is missing;
``test --fast`` leaves out the slow tests."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parent.parent


def load_dev():
    spec = importlib.util.spec_from_file_location("dev_commands", ROOT / "dev.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_serve_addr_sets_the_site_url_of_the_emails(monkeypatch):
    dev = load_dev()
    seen: list[dict[str, str]] = []
    monkeypatch.delenv("SITE_URL", raising=False)
    monkeypatch.setattr(dev, "ensure_venv", lambda: None)
    monkeypatch.setattr(dev, "run", lambda *cmd, env=None: seen.append(dict(env or {})))
    monkeypatch.setattr(
        dev.subprocess, "Popen", lambda *a, **k: SimpleNamespace(terminate=lambda: None, wait=lambda timeout: 0)
    )
    dev.serve(SimpleNamespace(addr="192.0.2.10:8080"))
    assert seen
    assert all(env["SITE_URL"] == "http://192.0.2.10:8080" for env in seen)


def test_the_browser_tests_explain_a_missing_chromium(monkeypatch, tmp_path):
    """Without Chromium the browser tests are skipped with the install hint; under CI they fail."""
    import pytest

    from tests.support import browser as chromium

    monkeypatch.setattr(chromium, "CHROMIUM", str(tmp_path / "chromium"))
    monkeypatch.setenv("CI", "false")
    with pytest.raises(pytest.skip.Exception, match=r"apt-get install chromium"):
        chromium.require_chromium()
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="under CI the browser tests must run"):
        chromium.require_chromium()


def test_the_accessibility_test_says_how_to_get_axe_core(monkeypatch, tmp_path):
    """Without node_modules/axe-core the scan is skipped with the npm hint; under CI it fails."""
    import pytest

    from tests.support import browser as chromium

    monkeypatch.setattr(chromium, "AXE", tmp_path / "axe.min.js")
    monkeypatch.setenv("CI", "false")
    with pytest.raises(pytest.skip.Exception, match=r"npm install.*apt-get install npm"):
        chromium.axe_violations(page=None)
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="under CI the browser tests must run"):
        chromium.axe_violations(page=None)


def test_the_test_command_installs_axe_core_with_npm_or_says_npm_is_missing(monkeypatch, tmp_path, capsys):
    dev = load_dev()
    ran: list[tuple[str, ...]] = []
    monkeypatch.setattr(dev, "ROOT", tmp_path)
    monkeypatch.setattr(dev, "run", lambda *cmd, env=None: ran.append(tuple(map(str, cmd))))
    monkeypatch.setattr(dev.shutil, "which", lambda name: "/usr/bin/npm")
    dev.ensure_node_packages()
    assert ran == [("/usr/bin/npm", "install", "--no-audit", "--no-fund")]
    monkeypatch.setattr(dev.shutil, "which", lambda name: None)
    dev.ensure_node_packages()
    assert "npm is missing" in capsys.readouterr().out
    assert len(ran) == 1


def test_fast_leaves_out_the_slow_tests_on_both_databases_and_the_whole_suite_keeps_them(monkeypatch):
    dev = load_dev()
    ran: list[tuple[str, ...]] = []
    monkeypatch.setattr(dev, "ensure_venv", lambda: None)
    monkeypatch.setattr(dev, "ensure_node_packages", lambda: None)
    monkeypatch.setattr(dev, "run", lambda *cmd, env=None: ran.append(tuple(map(str, cmd))))
    dev.test(SimpleNamespace(fast=True, no_lint=True, postgres=True), ["-k", "r14"])
    assert len(ran) == 2, ran  # SQLite, then PostgreSQL
    for command in ran:
        assert "not slow" in command, command
        assert command[command.index("not slow") - 1] == "-m", command
        assert command[-2:] == ("-k", "r14"), "the extra arguments still reach pytest"
    ran.clear()
    dev.test(SimpleNamespace(fast=False, no_lint=True, postgres=False), [])
    assert len(ran) == 1
    assert "not slow" not in ran[0], "the whole suite runs the slow tests too"

"""Prints every setting a settings module defines, and the environment variables it reads.

Run in a subprocess with a chosen environment (tests/settings/test_settings_split.py):
``python tests/support/settings_snapshot.py manhattan_site.settings``. The output is JSON: the
settings (upper-case names) in a canonical form, the names of the environment variables
read by manhattan_site's code, and what Sentry would be started with. Paths under the
project folder and a development secret key are written as placeholders, so the output
is the same in every checkout.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
import types
from collections.abc import Iterator, MutableMapping
from pathlib import Path, PurePath
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
SITE = str(ROOT / "manhattan_site")


class RecordingEnviron(MutableMapping[str, str]):
    """os.environ, noting each name that manhattan_site's own code asks for (not Celery's or Django's)."""

    def __init__(self, real: MutableMapping[str, str]) -> None:
        self.real = real
        self.read: set[str] = set()

    def _note(self, name: str) -> None:
        caller = sys._getframe(2)
        while caller.f_back is not None and caller.f_code.co_filename.endswith(("os.py", "<frozen os>")):
            caller = caller.f_back  # os.getenv and friends: who called them
        if caller.f_code.co_filename.startswith(SITE):
            self.read.add(name)

    def __getitem__(self, name: str) -> str:
        self._note(name)
        return self.real[name]

    def get(self, name: str, default: Any = None) -> Any:
        self._note(name)
        return self.real.get(name, default)

    def __contains__(self, name: object) -> bool:
        self._note(str(name))
        return name in self.real

    def __setitem__(self, name: str, value: str) -> None:
        self.real[name] = value

    def __delitem__(self, name: str) -> None:
        del self.real[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self.real)

    def __len__(self) -> int:
        return len(self.real)


def canonical(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(key): canonical(item) for key, item in value.items()}
    if isinstance(value, tuple):
        return {"tuple": [canonical(item) for item in value]}
    if isinstance(value, list):
        return [canonical(item) for item in value]
    if isinstance(value, PurePath):
        return {"path": str(value)}
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, type):
        return {"class": f"{value.__module__}.{value.__qualname__}"}
    return {"object": f"{type(value).__module__}.{type(value).__qualname__}"}


def fake_sentry() -> dict[str, Any]:
    """sentry-sdk is not installed by default: a stand-in that keeps what init got."""
    started: dict[str, Any] = {}
    sdk = types.ModuleType("sentry_sdk")
    sdk.init = lambda **kwargs: started.update(kwargs)  # type: ignore[attr-defined]
    integrations = types.ModuleType("sentry_sdk.integrations")
    for name, cls in (("celery", "CeleryIntegration"), ("django", "DjangoIntegration")):
        module = types.ModuleType(f"sentry_sdk.integrations.{name}")
        setattr(module, cls, type(cls, (), {"__module__": f"sentry_sdk.integrations.{name}"}))
        sys.modules[module.__name__] = module
    sys.modules.update({"sentry_sdk": sdk, "sentry_sdk.integrations": integrations})
    return started


def snapshot(module_name: str) -> dict[str, Any]:
    # Run as a script, this file's folder comes first on the path, where its
    # neighbours (secrets/, redis.py) would stand in for the standard library's
    # and Redis's modules: the project's folder takes its place.
    sys.path[:] = [str(ROOT), *(entry for entry in sys.path if Path(entry).resolve() != HERE)]
    started = fake_sentry()
    recorder = RecordingEnviron(os.environ)
    os.environ = recorder  # type: ignore[assignment]  # noqa: B003 -- it wraps, not clears, the environment
    module = importlib.import_module(module_name)
    names = [name for name in dir(module) if name.isupper() and not name.startswith("_")]  # _private: helpers
    settings = {name: canonical(getattr(module, name)) for name in names}
    return {"settings": settings, "env_read": sorted(recorder.read), "sentry": canonical(started)}


def main() -> None:
    result = snapshot(sys.argv[1])
    text = json.dumps(result, sort_keys=True, indent=1, ensure_ascii=False)
    secret = result["settings"]["SECRET_KEY"]
    if "SECRET_KEY" not in os.environ:  # the development key: whatever var/ holds in this checkout
        text = text.replace(secret, "<development SECRET_KEY>").replace(secret[:24], "<development SECRET_KEY[:24]>")
    pid = os.getpid()  # the test settings' database names hold it
    text = text.replace(f"test-db-{pid}.", "test-db-<pid>.").replace(f"test_manhattan_{pid}", "test_manhattan_<pid>")
    print(text.replace(str(ROOT), "<ROOT>"))


if __name__ == "__main__":
    main()

"""Fixtures for the notification tests: a broker that records what is published."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest
from celery import current_app
from kombu.exceptions import OperationalError

from notifications import outbox


@dataclass
class Broker:
    """What the outbox published: one list of notification ids per delivery task."""

    published: list[list[int]] = field(default_factory=list)
    is_down: bool = False

    def send_task(self, name: str, args: list[Any], **kwargs: Any) -> None:
        if self.is_down:
            raise OperationalError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")
        assert name == outbox.DELIVER_TASK
        self.published.append(list(args[0]))


@pytest.fixture
def broker(monkeypatch: pytest.MonkeyPatch) -> Broker:
    recorder = Broker()
    monkeypatch.setattr(current_app, "send_task", recorder.send_task)
    return recorder

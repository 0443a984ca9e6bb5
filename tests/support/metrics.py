"""Read ``/metrics`` as a scraper would: through the view, with the token."""

from __future__ import annotations

from typing import Any

from django.test import Client

TOKEN = "s3cret-token"


def scrape(settings: Any) -> str:
    settings.METRICS_TOKEN = TOKEN
    response = Client().get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    assert response.status_code == 200
    return response.content.decode()


def value(text: str, prefix: str) -> float:
    """The sum of the samples whose line starts with ``prefix`` (0 if none)."""
    return sum(float(line.split()[-1]) for line in text.splitlines() if line.startswith(prefix))

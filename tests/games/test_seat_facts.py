"""The facts other apps read with the writer's table (``games.seat_facts``):
registered once, under a name that cannot hide a seat's own attribute."""

from __future__ import annotations

import pytest
from django.db.models import Exists, OuterRef

from accounts.models import ApiToken
from games import seat_facts
from games.seat_facts import SeatFact
from webhooks.receivers import HAS_ENDPOINT


def _fact(name: str) -> SeatFact:
    return SeatFact(name, Exists(ApiToken.objects.filter(user=OuterRef("user"))))


@pytest.mark.parametrize("name", ["user", "index", "is_filled", "game__public", "not a name", ""])
def test_a_fact_may_not_be_named_as_a_seats_own_attribute_or_a_lookup(name: str) -> None:
    with pytest.raises(ValueError, match="cannot name a seat fact"):
        seat_facts.register(_fact(name))
    assert name not in seat_facts.as_annotations()


def test_a_name_is_registered_once() -> None:
    """The webhooks app registered its fact when it started; again is harmless, another under its name is not."""
    seat_facts.register(HAS_ENDPOINT)
    assert seat_facts.as_annotations()[HAS_ENDPOINT.name] is HAS_ENDPOINT.exists
    with pytest.raises(ValueError, match="registered already"):
        seat_facts.register(_fact(HAS_ENDPOINT.name))
    assert seat_facts.as_annotations()[HAS_ENDPOINT.name] is HAS_ENDPOINT.exists

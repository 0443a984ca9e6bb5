"""Yes/no facts about each seat's player that an app building on games reads
with the writer's table, in the same statement.

A move's receivers sometimes need one fact kept in their own tables ("does
this player have an enabled webhook endpoint?"); asking it in a statement of
their own costs every move a round trip, even when the answer is no, as it
usually is. ``games`` cannot import those apps, so they register the fact here
when they start (``AppConfig.ready``) as an ``Exists`` over the seat (its
player is ``OuterRef("user")``), and ``store.load(lock=True)`` annotates the
seats with every registered fact in its one read of the table.

Why it is safe: the fact is read in the writer's transaction, by the statement
that takes the game's lock, and never kept between requests (no process
caches it, so many processes agree). A seat read any other way (no lock, or
built by hand) has no answer: ``SeatFact.of`` says ``None``, and the
receiver must ask its own tables as it did before. Readers (``GET``) pay
nothing: only the locked read carries the facts.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Exists

from games.models import Seat


@dataclass(frozen=True)
class SeatFact:
    """A fact named ``name`` (the seat's attribute it is read into), true when ``exists`` finds a row."""

    name: str
    exists: Exists

    def of(self, seat: Seat) -> bool | None:
        """The fact for ``seat``'s player as the writer's read found it; ``None`` if it was not read."""
        value = getattr(seat, self.name, None)
        return None if value is None else bool(value)


_facts: dict[str, SeatFact] = {}


def register(fact: SeatFact) -> None:
    """Read ``fact`` with every writer's table from now on. Its name must be a
    plain identifier that is no attribute of a seat (a field, a property)."""
    if not fact.name.isidentifier() or "__" in fact.name or hasattr(Seat, fact.name):
        raise ValueError(f"{fact.name!r} cannot name a seat fact: a plain name that is no attribute of Seat.")
    known = _facts.get(fact.name)
    if known is not None and known is not fact:
        raise ValueError(f"The seat fact {fact.name!r} is registered already.")
    _facts[fact.name] = fact


def as_annotations() -> dict[str, Exists]:
    """The registered facts, as ``QuerySet.annotate`` takes them."""
    return {name: fact.exists for name, fact in _facts.items()}

"""Games have names people can say ("Harbour 27"), shown wherever a game is
named: lists, page titles, email subjects. The creator may choose one;
otherwise one is made up here from the island's places and a number."""

from __future__ import annotations

import secrets

MAX_LENGTH = 60

# Places of Manhattan: proper names, the same in every language.
PLACES = (
    "Harbour",
    "Broadway",
    "Bowery",
    "Chelsea",
    "Tribeca",
    "Midtown",
    "Hudson",
    "Battery",
    "Astor",
    "Empire",
    "Flatiron",
    "Gramercy",
    "Harlem",
    "Inwood",
    "Lenox",
    "Madison",
    "Nolita",
    "Soho",
    "Stuyvesant",
    "Union",
    "Wall",
    "Yorkville",
)


def generated_name(number: int | None = None) -> str:
    """A place and a number from 1 to 99; ``number`` picks both (for a stable
    name derived from something else), else they are drawn at random."""
    if number is None:
        number = secrets.randbelow(len(PLACES) * 99)
    place, count = divmod(number % (len(PLACES) * 99), 99)
    return f"{PLACES[place]} {count + 1}"


def clean_name(name: str) -> str:
    """The creator's name with its whitespace tidied, at most ``MAX_LENGTH`` characters."""
    return " ".join(name.split())[:MAX_LENGTH]

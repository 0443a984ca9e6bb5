"""Moved to tests/support/pages.py; kept so that browser tests written against
the old place still import. New tests import tests.support.pages."""

from tests.support.pages import (  # noqa: F401
    Worker,
    build_by_touching,
    choose_a_card_and_a_lot,
    play_turn,
    select_by_form,
    wait_for,
    worker,
)

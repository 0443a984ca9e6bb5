"""The page's notation field: digits other than ASCII and control characters
are refused with the reason (a 400), never a server error."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "notation", ["card ² city 3 size 2", "card ④ city 3 size 2", "card ٥ city 3 size 2", "card\x00 5"]
)
def test_odd_characters_in_the_notation_are_refused_not_a_server_error(placing_game, alice, browser, notation):
    client = browser(alice, raise_request_exception=False)
    response = client.post(
        f"/games/{placing_game.public_id}/play/",
        {"intent": "place", "version": placing_game.version, "notation": notation},
    )
    assert response.status_code == 400
    assert 'data-testid="refusal"' in response.content.decode()

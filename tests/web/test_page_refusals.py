"""A refusal met on a game page reads as its code's registry entry words it for
a page (``ErrorCode.page_text``, declared beside the code in its app's
``problem_codes.py``), in the reader's language: for every code a page can show,
through the page's own URL, in English and in one of the site's other languages."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from django.test import Client
from django.utils import translation
from django.utils.html import escape

from accounts.models import User
from games import services
from games.models import Game
from games.services import operators
from manhattan_site.api.codes import all_codes
from tests.factories import resign, two_player_game
from tests.support.translation_catalogues import po_file

pytestmark = pytest.mark.django_db

MOVE = {"intent": "place", "notation": "card 1 city 1 size 1"}


@dataclass(frozen=True)
class People:
    alice: User
    bob: User
    stranger: User


@dataclass(frozen=True)
class Attempt:
    """Who posts what to which page of the game."""

    user: User
    page: str  # the path under /games/<id>/, or under /games/ when there is no game yet
    data: dict[str, Any]


# How the game is set up (None: not yet, the new-game page), and who posts what to which page.
Scene = Callable[[People], tuple[Game | None, Attempt]]


def _lobby(people: People, public: bool = False) -> Game:
    game = services.create_game(
        creator=people.alice,
        options={"players": 2},
        seats=[services.SeatSpec("me"), services.SeatSpec("invite", email=people.bob.email)],
    )
    if public:
        Game.objects.filter(pk=game.pk).update(public=True)
    return game


def _move(game: Game, user: User, **extra: Any) -> tuple[Game, Attempt]:
    game.refresh_from_db()
    return game, Attempt(user, "play/", {**MOVE, "version": game.version, **extra})


def _finished(people: People) -> Game:
    game = two_player_game(people.alice, people.bob, public=True)
    resign(game, people.bob)
    return game


def _new_game(people: People, *invitees: str) -> tuple[None, Attempt]:
    """Alice asks the new-game page for a game with these invitees in seats 2, 3, ..."""
    data: dict[str, Any] = {"players": str(len(invitees) + 1), "timeout": "168"}
    for seat, email in enumerate(invitees, start=2):
        data |= {f"seat_{seat}": "invite", f"email_{seat}": email}
    return None, Attempt(people.alice, "new/", data)


def _abandoned(people: People) -> Game:
    game = two_player_game(people.alice, people.bob)
    operators.abandon_game(game=game, operator=people.alice)
    return game


# code -> its scene, and the status when the page answers itself (None: it redirects to a page)
SCENES: dict[str, tuple[Scene, int | None]] = {
    # the move form (a refused move is shown on the page itself, with the code's status)
    "not_a_player": (lambda p: _move(two_player_game(p.alice, p.bob, public=True), p.stranger), 403),
    "game_lobby": (lambda p: _move(_lobby(p), p.alice), 409),
    "game_finished": (lambda p: _move(_finished(p), p.alice), 409),
    "game_abandoned": (lambda p: _move(_abandoned(p), p.alice), 409),
    "undo_forbidden": (lambda p: _move(two_player_game(p.alice, p.bob), p.alice, notation="undo oops"), 403),
    # the new-game form (shown again with the refusal)
    "creator_invited": (lambda p: _new_game(p, "Alice@Example.com"), 400),
    "duplicate_invitee": (lambda p: _new_game(p, "bob@example.com", "BOB@example.com"), 400),
    # the lobby's buttons (a message on the page redirected to)
    "game_started": (lambda p: (two_player_game(p.alice, p.bob), Attempt(p.alice, "join/", {})), None),
    "already_seated": (lambda p: (_lobby(p), Attempt(p.alice, "join/", {})), None),
    "no_seat": (lambda p: (_lobby(p, public=True), Attempt(p.stranger, "join/", {})), None),
    "not_invited": (lambda p: (_lobby(p), Attempt(p.alice, "decline/", {})), None),
    "not_creator": (lambda p: (_lobby(p), Attempt(p.bob, "start/", {})), None),
    "seats_open": (lambda p: (_lobby(p), Attempt(p.alice, "start/", {})), None),
    "game_not_finished": (lambda p: (two_player_game(p.alice, p.bob), Attempt(p.alice, "rematch/", {})), None),
    # the table talk
    "message_empty": (lambda p: (two_player_game(p.alice, p.bob), Attempt(p.alice, "messages/", {"text": " "})), None),
    "message_too_long": (
        lambda p: (two_player_game(p.alice, p.bob), Attempt(p.alice, "messages/", {"text": "x" * 501})),
        None,
    ),
    "too_many_messages": (
        lambda p: (two_player_game(p.alice, p.bob), Attempt(p.alice, "messages/", {"text": "hello"})),
        None,
    ),
}
OTHER_LANGUAGES = ["de", "nl", "fr", "ko"]
CASES = [
    pytest.param(code, language, id=f"{code}-{language}")
    for number, code in enumerate(SCENES)
    for language in ("en", OTHER_LANGUAGES[number % len(OTHER_LANGUAGES)])
]
# What the page fills in (``%(name)s``) from the error's details.
DETAILS: dict[str, dict[str, Any]] = {
    "message_too_long": {"max_length": 500},
    "duplicate_invitee": {"email": "bob@example.com"},
}


def expected_text(code: str, language: str) -> str:
    """The code's page text in ``language``, read from the catalogue itself (so a
    missing translation fails here, not quietly as English)."""
    entry = all_codes()[code]
    assert entry.page_text, f"{code}: a page shows it, so its registry entry needs a page_text"
    with translation.override("en"):
        english = str(entry.page_text)
    if language == "en":
        text = english
    else:
        found = po_file(language).find(english)
        assert found is not None, f"{code}: no {language} entry for {english!r}"
        assert found.translated(), f"{code}: no {language} translation of {english!r}"
        text = found.msgstr
    return text % DETAILS[code] if code in DETAILS else text


@pytest.mark.parametrize(("code", "language"), CASES)
def test_a_refusal_on_a_page_reads_as_its_registry_entry(code, language, make_user, settings):
    settings.TALK_MESSAGES_PER_MINUTE = 0  # any message is one too many (only the rate scene gets that far)
    people = People(make_user("alice@example.com"), make_user("bob@example.com"), make_user("eve@example.com"))
    scene, status = SCENES[code]
    game, attempt = scene(people)
    User.objects.filter(pk=attempt.user.pk).update(language=language)
    client = Client()
    client.force_login(attempt.user)
    url = f"/games/{game.public_id}/{attempt.page}" if game is not None else f"/games/{attempt.page}"
    response = client.post(url, attempt.data, follow=status is None)
    html = response.content.decode()
    if status is not None:
        assert response.status_code == status
    else:
        assert response.redirect_chain, "a button's refusal redirects to a page"
        assert response.status_code == 200
    assert escape(expected_text(code, language)) in html, code


def test_every_page_text_is_translated():
    worded = {code: entry for code, entry in all_codes().items() if entry.page_text}
    assert set(worded) == set(SCENES), "every code worded for a page has a scene above that shows it"
    for code in worded:
        for language in OTHER_LANGUAGES:
            assert expected_text(code, language) != expected_text(code, "en"), (code, language)

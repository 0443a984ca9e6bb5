"""``/games/<id>/review/?move=K``: the finished game's K-th marked move on the board, as a
fragment of HTML that the page's step-through script puts under the review.

Asked like the page itself: the visibility middleware answers the unknown game's 404 to
whoever may not see the game; to a viewer, a game without a finished review (or a step it
does not have) sends the game's page instead: the game is there, only the step is not. Without
JavaScript the marked moves are links to the history (``?at=N``) instead.

The spectators' page (``games:watch``) asks with ``watch=1`` (and a private game's ``key``):
no sign-in is needed, as for that page, and its links lead back to it. A review exists only
for a finished game, whose record is public, and each step is the public position.
"""

from __future__ import annotations

from urllib.parse import urlencode

from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_safe

from games import engine, store
from games.errors import GameError
from games.models import Game, GameReview
from games.presentation import board, vocabulary
from games.presentation.review import marked_moves
from games.presentation.review_steps import step_board
from games.services.review import review_of


def _page_url(game: Game, request: HttpRequest, at: int | None = None) -> str:
    """The page the step belongs to: the spectators' (with the key it was given) or the game's."""
    query: dict[str, str | int] = {"at": at} if at is not None else {}
    if request.GET.get("watch") == "1":
        key = request.GET.get("key")
        if key:
            query["key"] = key
        path = reverse("games:watch", args=[game.public_id])
    else:
        if at is not None and request.GET.get("board") == "south":
            query["board"] = "south"
        path = reverse("games:detail", args=[game.public_id])
    return path + (f"?{urlencode(query)}" if query else "")


@require_safe
def review_step(request: HttpRequest, game_id: str) -> HttpResponse:
    try:
        game = store.get(game_id)
    except GameError as error:
        raise Http404(_("There is no game with this id.")) from error
    review = review_of(game)
    if review is None or review.status != GameReview.Status.DONE:
        return HttpResponseRedirect(_page_url(game, request))
    user = request.user if request.user.is_authenticated else None  # spectators need no sign-in
    seats = list(game.seats.all())
    moves = marked_moves(review.moves, vocabulary.seat_names(seats, user))
    raw = request.GET.get("move", "")
    number = int(raw) if raw.isascii() and raw.isdigit() and len(raw) <= 4 else 0
    if not 1 <= number <= len(moves):
        return HttpResponseRedirect(_page_url(game, request))
    move = moves[number - 1]
    state = store.state_of(game, upto=move["at"])
    assert state is not None  # a finished game has a log
    view = engine.spectator_view(state)  # the public position: never a hand
    my_seat = next((seat for seat in seats if user is not None and seat.user_id == user.pk), None)
    south = request.GET.get("board") == "south"
    side = board.SOUTH if south or my_seat is None else view.sides[my_seat.index]
    context = {
        "game": game,
        "move": move,
        "number": number,
        "count": len(moves),
        "board": step_board(view, move, side=side),
        "position_url": _page_url(game, request, move["at"]),
    }
    return render(request, "games/_review_step.html", context)

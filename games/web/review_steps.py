"""``/games/<id>/review/?move=K``: the finished game's K-th marked move on the board, as a
fragment of HTML that the page's step-through script puts under the review.

Asked like the page itself: the visibility middleware answers the unknown game's 404 to
whoever may not see the game; to a viewer, a game without a finished review (or a step it
does not have) sends the game's page instead: the game is there, only the step is not. Without
JavaScript the marked moves are links to the history (``?at=N``) instead.
"""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_safe

from accounts.auth_helpers import request_user
from games import engine, store
from games.errors import GameError
from games.models import GameReview
from games.presentation import board, vocabulary
from games.presentation.review import marked_moves
from games.presentation.review_steps import step_board
from games.services.review import review_of


@login_required
@require_safe
def review_step(request: HttpRequest, game_id: str) -> HttpResponse:
    try:
        game = store.get(game_id)
    except GameError as error:
        raise Http404(_("There is no game with this id.")) from error
    review = review_of(game)
    if review is None or review.status != GameReview.Status.DONE:
        return redirect("games:detail", game_id=game.public_id)
    user = request_user(request)
    seats = list(game.seats.all())
    moves = marked_moves(review.moves, vocabulary.seat_names(seats, user))
    raw = request.GET.get("move", "")
    number = int(raw) if raw.isascii() and raw.isdigit() and len(raw) <= 4 else 0
    if not 1 <= number <= len(moves):
        return redirect("games:detail", game_id=game.public_id)
    move = moves[number - 1]
    state = store.state_of(game, upto=move["at"])
    assert state is not None  # a finished game has a log
    view = engine.spectator_view(state)  # the public position: never a hand
    my_seat = next((seat for seat in seats if seat.user_id == user.pk), None)
    south = request.GET.get("board") == "south"
    side = board.SOUTH if south or my_seat is None else view.sides[my_seat.index]
    context = {
        "game": game,
        "move": move,
        "number": number,
        "count": len(moves),
        "board": step_board(view, move, side=side),
        "south": south,
    }
    return render(request, "games/_review_step.html", context)

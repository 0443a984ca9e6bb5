"""Table talk on the game page: the messages a player sees, writing one,
muting and unmuting another player. Forms post and redirect back, so it all
works without JavaScript."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts.auth_helpers import request_user
from accounts.models import User
from games import store
from games.errors import GameError
from games.models import Game, Seat
from games.talk import services as talk
from games.talk.models import MAX_LENGTH
from manhattan_site.api.codes import page_text_for

SHOWN = 50  # the latest messages on the page


def talk_context(game: Game, user: User, my_seat: Seat | None, names: dict[int, str]) -> dict[str, Any]:
    """What the table-talk panel shows ``user``: nothing unless they play here."""
    if my_seat is None:
        return {}
    latest = list(talk.visible_to(game, user).order_by("-created", "-id")[:SHOWN])[::-1]
    muted = talk.muted_by(user)
    others = [seat for seat in game.seats.all() if seat.user_id not in (None, user.pk)]
    return {
        "talk": {
            "messages": [{"message": m, "name": names.get(m.seat, m.author.public_name)} for m in latest],
            "max_length": MAX_LENGTH,
            "open": game.status != Game.Status.ABANDONED,
            "others": [
                {"index": seat.index, "name": names.get(seat.index, ""), "muted": seat.user_id in muted}
                for seat in others
            ],
        }
    }


def _back(game_id: str) -> HttpResponseRedirect:
    return HttpResponseRedirect(reverse("games:detail", args=[game_id]) + "#talk")


@login_required
@require_POST
def post_message(request: HttpRequest, game_id: str) -> HttpResponse:
    try:
        talk.post_message(game_id, request_user(request), request.POST.get("text", ""), via="web")
    except GameError as error:
        if error.code == "game_not_found":
            raise Http404(_("There is no game with this id.")) from error
        messages.error(request, page_text_for(error))
    return _back(game_id)


@login_required
@require_POST
def mute(request: HttpRequest, game_id: str, index: int) -> HttpResponse:
    """Mute (or, with ``undo``, unmute) the person in seat ``index``."""
    user = request_user(request)
    try:
        loaded = store.load(game_id, fold=False)
    except GameError as error:
        raise Http404(_("There is no game with this id.")) from error
    seat = loaded.seat_at(index)
    if loaded.seat_of(user) is None or seat is None or seat.user is None or seat.user_id == user.pk:
        raise Http404(_("Nobody you could mute sits there."))
    if request.POST.get("undo"):
        talk.unmute(user, seat.user)
        messages.success(request, _("You see their messages again."))
    else:
        talk.mute(user, seat.user)
        messages.success(request, _("Muted: you no longer see their messages, in any game."))
    return _back(game_id)

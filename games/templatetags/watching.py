"""The watch link of a game, for its players to share."""

from __future__ import annotations

from urllib.parse import urlencode

from django import template
from django.urls import reverse

from games.models import Game
from games.services.watching import watch_key

register = template.Library()


@register.simple_tag
def watch_url(game: Game) -> str:
    """The spectators' page; a private game's carries its key."""
    url = reverse("games:watch", args=[game.public_id])
    return url if game.public else f"{url}?{urlencode({'key': watch_key(game)})}"

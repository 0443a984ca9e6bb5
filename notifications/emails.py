"""Emails as templates: each kind is three templates under ``emails/``
(``<kind>-subject.txt``, ``<kind>-body.txt``, ``<kind>-body.html``), rendered
in the recipient's language with a context built here from the game as the
recipient's seat saw it when the email was written.
"""

from __future__ import annotations

import unicodedata
from typing import Any

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import translation

from accounts import links
from games import engine, store
from games.engine import COLOUR_NAMES
from games.models import Game, Seat

from .models import UNSUBSCRIBABLE, Kind, Notification
from .reply_address import reply_address

TEXT_SYMBOL = {"red": "R", "blue": "B", "green": "G", "yellow": "Y"}


def text_board(view: dict[str, Any]) -> str:
    """The board in plain text: six cities of 3×3 lots, each lot as height and owner (e.g. ``3R``)."""
    lines: list[str] = []
    for top in (0, 3):
        names = [translation.gettext("City %(number)s") % {"number": c + 1} for c in range(top, top + 3)]
        lines.append("   ".join(_ljust(name, 11) for name in names).rstrip())
        for row in range(3):
            cells = []
            for city in range(top, top + 3):
                lots = view["board"][city][row * 3 : row * 3 + 3]
                # Each lot is 3 wide ("  .", " 4R", "12B") so that tall buildings keep the columns aligned.
                cells.append(" ".join(f"{b['height']}{TEXT_SYMBOL[b['owner']]}".rjust(3) if b else "  ." for b in lots))
            lines.append("   ".join(f"{cell:<11}" for cell in cells).rstrip())
        lines.append("")
    return "\n".join(lines).rstrip()


def _ljust(text: str, width: int) -> str:
    """``text`` padded to ``width`` columns of a fixed-width font, where a wide (e.g. Korean) character takes two."""
    columns = sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)
    return text + " " * max(width - columns, 0)


def _legal_summary(legal: dict[str, Any]) -> list[dict[str, Any]]:
    """Per card: the cities (and lot) it can build in, for "what you can do"."""
    summary = []
    for entry in legal["placements"]:
        by_city: dict[int, dict[str, Any]] = {}
        for option in entry["options"]:
            city = by_city.setdefault(option["city"], {"city": option["city"], "lot": option["lot"], "sizes": set()})
            city["sizes"].add(option["size"])
        summary.append(
            {
                "card": entry["card"],
                "cities": [
                    dict(c, sizes=sorted(c["sizes"])) for c in sorted(by_city.values(), key=lambda c: c["city"])
                ],
            }
        )
    return summary


def email_context(notification: Notification) -> dict[str, Any]:
    context: dict[str, Any] = {
        "kind": notification.kind,
        "notification": notification,
        "site_url": settings.SITE_URL,
        **notification.context,
    }
    user = notification.user
    game = notification.game
    if notification.kind == Kind.LOGIN:
        if user is None:
            from accounts.models import User

            user = User(email=notification.email)
        context["link"] = _login_link(notification)
        return context
    if user is not None:
        context["user"] = user
        if notification.kind in UNSUBSCRIBABLE:
            context["unsubscribe_link"] = links.unsubscribe_url(user, notification.kind)
    if notification.kind == Kind.DIGEST:
        context["games_link"] = links.absolute(reverse("games:list"))
    if game is None:
        return context
    context["game"] = game
    if notification.kind == Kind.INVITATION:
        context["link"] = links.invite_url(notification.email, str(game.public_id), notification.seat or 0)
        context["players"] = game.players
        return context
    assert user is not None
    context["link"] = links.game_url(user, str(game.public_id))
    context["seats"] = _seats(game)
    seq = notification.context.get("seq") or game.version
    state = store.state_of(game, upto=seq)
    if state is not None and notification.seat is not None:
        view = engine.player_view(state, notification.seat)
        data = view.to_json()
        context["view"] = data
        context["text_board"] = text_board(data)
        context["my_colours"] = [COLOUR_NAMES[c] for c in state.colours[notification.seat]]
        context["my_turn"] = state.to_act == notification.seat
        context["scores"] = [
            {"seat": p["seat"], "colours": p["colours"], "score": p["score"], "me": p["seat"] == notification.seat}
            for p in data["players"]
        ]
        if context["my_turn"]:
            legal = engine.legal_actions(view).to_json()
            context["legal"] = legal
            context["legal_summary"] = _legal_summary(legal)
        if state.is_finished:
            context["winners"] = list(state.winners)
    return context


def _seats(game: Game) -> list[Seat]:
    """The game's seats with their players, read once for the whole email (both
    parts name the other players in several places). Only what the emails show
    is read, into unsaved instances: cheaper than loading the full rows."""
    from accounts.models import User

    rows = Seat.objects.filter(game=game).order_by("index")
    return [
        Seat(index=index, bot=bot, user=User(pk=user_id, email=email, display_name=name) if user_id else None)
        for index, bot, user_id, email, name in rows.values_list(
            "index", "bot", "user_id", "user__email", "user__display_name"
        )
    ]


def _login_link(notification: Notification) -> str:
    from accounts.models import User

    user = notification.user or User.objects.filter(email__iexact=notification.email).first()
    if user is None:  # send_login_link makes the account first; a row without one is stale
        raise ValueError(f"no account for a sign-in link to {notification.email}")
    return links.login_url(user, notification.context.get("next", ""))


def _language(notification: Notification) -> str:
    """The recipient's language, or the site's for someone without an account or a choice."""
    user = notification.user
    return (user.language if user is not None else "") or settings.LANGUAGE_CODE


def build_message(notification: Notification) -> EmailMultiAlternatives:
    """The email for ``notification``, with text and HTML parts and its headers."""
    with translation.override(_language(notification)):
        context = email_context(notification)
        name = f"emails/{notification.kind}"
        subject = " ".join(render_to_string(f"{name}-subject.txt", context).split())
        text = render_to_string(f"{name}-body.txt", context)
        html = render_to_string(f"{name}-body.html", context)
    headers = {"Message-ID": notification.message_id, "Auto-Submitted": "auto-generated"}
    if "unsubscribe_link" in context:
        headers["List-Unsubscribe"] = f"<{context['unsubscribe_link']}>"
        headers["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    reply_to = None
    if notification.kind in (
        Kind.YOUR_TURN,
        Kind.REMINDER,
        Kind.GAME_STARTED,
        Kind.MOVE_REFUSED,
        Kind.TIMEOUT,
    ) and context.get("my_turn"):
        reply_to = [reply_address(notification)]
    message = EmailMultiAlternatives(
        subject=subject,
        body=text,
        from_email=settings.DEFAULT_FROM_EMAIL,
        to=[notification.email],
        headers=headers,
        reply_to=reply_to,
    )
    message.attach_alternative(html, "text/html")
    return message

"""Emails as templates: each kind is three templates under ``emails/``
(``<kind>-subject.txt``, or for an email about a game ``<kind>-headline.txt``,
``<kind>-body.txt``, ``<kind>-body.html``), rendered
in the recipient's language. The game part of both bodies is one template
each (``emails/_game.txt``, ``emails/_game.html``) that loops over what
``games.presentation`` makes of the game as the recipient's seat saw it when
the email was written.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.template.loader import render_to_string
from django.utils import translation

from accounts import links
from accounts.models import User
from games import engine, store
from games.models import Game
from games.presentation import board, log, refusals, table, vocabulary
from games.talk import services as talk

from . import mail_ids
from .models import UNSUBSCRIBABLE, Kind, Notification
from .reply_address import address_for, reply_address

# Kinds whose email carries what the other players wrote at the table since
# the recipient's previous such email (table talk sends no mail of its own).
TALK_CARRIED = (Kind.YOUR_TURN, Kind.GAME_OVER)

# Kinds whose email invites a reply with a move (when it is the recipient's turn).
REPLY_INVITED = (Kind.YOUR_TURN, Kind.REMINDER, Kind.GAME_STARTED, Kind.MOVE_REFUSED, Kind.TIMEOUT)

# Kinds whose email invites a reply to the table even when it offers no move: a reply
# is table talk, and a move in it is answered, never played (``replies``).
TALK_INVITED = (Kind.GAME_STARTED, Kind.ROUND_SCORED, Kind.GAME_OVER)


def email_context(notification: Notification) -> dict[str, Any]:
    context: dict[str, Any] = {
        "kind": notification.kind,
        "notification": notification,
        "site_url": settings.SITE_URL,
        **notification.context,
    }
    if isinstance(context.get("expires"), str):
        context["expires"] = datetime.fromisoformat(context["expires"])
    if isinstance(context.get("timeout_at"), str):
        context["timeout_at"] = datetime.fromisoformat(context["timeout_at"])
    error = context.get("error")
    if notification.kind == Kind.MOVE_REFUSED and isinstance(error, dict) and "reason" in context:
        # Said in the player's language from the engine's template, its rule once.
        context["reason"] = refusals.explained(
            context["reason"],
            rule=error.get("rule") or "",
            message_id=error.get("message_id") or "",
            params=error.get("params"),
        )
    user, game = notification.user, notification.game
    if notification.kind == Kind.LOGIN:
        context["link"] = _login_link(notification)
        return context
    if user is not None:
        context["user"] = user
        # Signed like every other link: it signs the player in and lands on the page.
        context["preferences_link"] = links.page_url(user, "preferences")
        if notification.kind in UNSUBSCRIBABLE:
            context["unsubscribe_link"] = links.unsubscribe_url(user, notification.kind)
    if notification.kind == Kind.DIGEST and user is not None:
        context["games_link"] = links.page_url(user, "games")
        ids = [str(game_id) for game_id in context.get("games", [])]
        titles = game_names(list(Game.objects.filter(public_id__in=ids)), user)
        replies = context.get("replies") or {}
        context["game_links"] = [
            {
                "id": game_id,
                "name": titles.get(game_id, game_id[:8]),
                "link": links.game_url(user, game_id),
                "reply_address": address_for(*replies[game_id]) if game_id in replies else "",
            }
            for game_id in ids
        ]
    if game is None:
        return context
    context["game"] = game
    context["game_name"] = game_names([game], user)[str(game.public_id)]
    if notification.kind == Kind.INVITATION:
        context["link"] = links.invite_url(notification.email, str(game.public_id), notification.seat or 0)
        if user is None:  # no account to unsubscribe: one click stops invitations to the address
            context["unsubscribe_link"] = links.no_invitations_url(notification.email)
            context["no_invitations"] = True
        context["players"] = game.players
        return context
    assert user is not None
    context["link"] = links.game_url(user, str(game.public_id))
    if notification.kind == Kind.GAME_OVER and notification.context.get("review"):
        # The signed link lands on the game's page, at its review (accounts.views.link_view).
        context["review_link"] = context["link"] + "?show=review"
    if notification.kind in TALK_CARRIED:
        context["table_talk"] = _table_talk(notification, user, game)
    if notification.seat is not None:
        context.update(_game_part(game, notification.seat, notification.context.get("seq") or game.version))
        if notification.kind == Kind.TIMEOUT and "from_seq" in notification.context:
            context["bot_moves"] = _bot_moves(game, notification.seat, notification.context)
    # A reply reaches the table: said where the email offers no move (the move's hint says it otherwise).
    # (A game-started email on the player's turn offers the move instead.)
    offers_move = notification.kind in REPLY_INVITED and context.get("my_turn")
    context["talk_reply"] = notification.kind in TALK_INVITED and not offers_move
    return context


def _told_apart(title: str, public_id: str) -> str:
    """A game's name with the start of its id (as in its page's address)."""
    return f"{title} · {public_id[:6]}"


def game_names(games: list[Game], user: User | None) -> dict[str, str]:
    """The games' names as emails and the digest say them (by public id):
    with the start of the id when ``user`` plays another game of the same
    name (finished ones too), so two are never confused. One query."""
    names = {game.name for game in games if game.name}  # a made-up name is made from the id: never another's
    played: set[tuple[int, str]] = set()
    if user is not None and names:
        played = set(Game.objects.filter(seats__user=user, name__in=names).values_list("pk", "name"))

    def apart(game: Game) -> bool:
        return bool(game.name) and any(name == game.name and pk != game.pk for pk, name in played)

    return {
        str(game.public_id): _told_apart(game.title, str(game.public_id)) if apart(game) else game.title
        for game in games
    }


def _table_talk(notification: Notification, user: User, game: Game) -> list[dict[str, str]]:
    """ "Ivy wrote: …": the messages of the others since the previous email that carried them."""
    if not talk.anyone_wrote(game, to=user, until=notification.created):
        return []  # most turn emails: one query, and no more
    previous = (
        Notification.objects.filter(user=user, game=game, kind__in=TALK_CARRIED, created__lt=notification.created)
        .order_by("-created")
        .values_list("created", flat=True)
        .first()
    )
    names = vocabulary.seat_names(game.seats.all(), user)
    return [
        {"name": names.get(message.seat, message.author.public_name), "text": message.text}
        for message in talk.written_since(game, user, previous, until=notification.created)
    ]


def _bot_moves(game: Game, seat: int, data: dict[str, Any]) -> list[str]:
    """What the timeout bot played for ``seat`` (and what followed), as ``seat`` may see it."""
    first, last = int(data["from_seq"]), int(data["seq"])
    events = engine.redact_events(store.event_payloads(game, after=first - 1, upto=last), seat)
    seats = list(game.seats.select_related("user"))
    # Named as the game page's log names them ("Hans (you)"): the sentences are in the third
    # person, so a bare "you" made "du hat Karte 7 gespielt" in German.
    names = vocabulary.seat_names(seats, next((s.user for s in seats if s.index == seat), None))
    return [line for event in events for line in log.describe_event(event, names)]


def _game_part(game: Game, seat: int, seq: int) -> dict[str, Any]:
    """The game as ``seat`` saw it after event ``seq``, for ``emails/_game.*``."""
    state = store.state_of(game, upto=seq)
    if state is None:
        return {}
    view = engine.player_view(state, seat)
    names = vocabulary.seat_names(game.seats.select_related("user"))
    drawing = board.drawing(view)
    part: dict[str, Any] = {
        "view": view.to_json(),
        "board": drawing,
        "text_board": board.text_board(drawing.cities),
        "hand": table.hand_cards(view),
        "hand_line": ", ".join(str(card + 1) for card in view.hand or ()),
        "supplies": [row for row in table.supply_rows(view, names) if row.mine],
        "players": table.player_rows(view, names),
        "my_colours": [vocabulary.colour_label(c) for c in state.colours[seat]],
        "my_turn": state.to_act == seat,
        "waiting_for": names.get(state.to_act, "") if state.to_act is not None else "",
        "round_points": _round_points(view),
    }
    if view.selecting_colour is not None:
        part["selecting_label"] = vocabulary.colour_label(view.selecting_colour)
    if part["my_turn"]:
        actions = engine.legal_actions(view)
        legal = actions.to_json()
        part["legal"] = legal
        part["options"] = table.card_options(legal)
        part["example_move"] = _example_move(actions, len(state.colours[seat]) > 1)
    if state.is_finished:
        part["i_won"] = seat in state.winners
        part["winner_names"] = [str(translation.gettext("you")) if w == seat else names[w] for w in state.winners]
    return part


def _example_move(legal: engine.LegalActions, two_colours: bool) -> str:
    """A legal move, written in the notation's words of the language being
    rendered (which the reader of the reply reads too)."""
    action: engine.Action | None = None
    if legal.selection is not None:
        choice = legal.selection
        pieces = [size for size in (1, 2, 3, 4) for _ in range(choice.reserve[size - 1])][: choice.count]
        action = engine.SelectPieces(pieces=tuple(pieces))
    elif legal.placements:
        first = legal.placements[0]
        colour = first.colour if two_colours else None
        action = engine.PlacePiece(card=first.card, city=first.city, size=first.size, colour=colour)
    return engine.format_action(action, language=translation.get_language() or "en") if action else ""


def _round_points(view: engine.PlayerView) -> list[dict[str, Any]]:
    """What each colour earned in the last round scored."""
    if not view.round_scores:
        return []
    return [
        {"label": vocabulary.colour_label(colour), "hex": vocabulary.HEX[engine.COLOUR_NAMES[colour]], "points": n}
        for colour, n in view.round_scores[-1].items()
    ]


def _login_link(notification: Notification) -> str:
    user = notification.user or User.objects.filter(email__iexact=notification.email).first()
    if user is None:  # the account is made with the request; a row without one is stale
        raise ValueError(f"no account for a sign-in link to {notification.email}")
    return links.login_url(user, notification.context.get("next", ""))


def _language(notification: Notification) -> str:
    """The recipient's language; for an invitation to someone without an account
    or a choice, the inviter's (a German player invites a friend in German);
    else the site's."""
    user = notification.user
    if user is not None and user.language:
        return str(user.language)
    if notification.kind == Kind.INVITATION and notification.game is not None:
        return str(notification.game.creator.language) or settings.LANGUAGE_CODE
    return str(settings.LANGUAGE_CODE)


def build_message(notification: Notification) -> EmailMultiAlternatives:
    """The email for ``notification``, with text and HTML parts and its headers."""
    with translation.override(_language(notification)):
        context = email_context(notification)
        name = f"emails/{notification.kind}"
        if notification.game is not None:
            # One subject per game, so every client shows one conversation; what
            # the email is about is its first line and its preheader.
            context["headline"] = " ".join(render_to_string(f"{name}-headline.txt", context).split())
            subject = " ".join(render_to_string("emails/game-subject.txt", context).split())
        else:
            # A game kind's row whose game is gone says its kind in the subject.
            subject = " ".join(render_to_string([f"{name}-subject.txt", f"{name}-headline.txt"], context).split())
        text = render_to_string(f"{name}-body.txt", context)
        html = render_to_string(f"{name}-body.html", context)
    headers = {"Message-ID": notification.message_id, "Auto-Submitted": "auto-generated"}
    if notification.game is not None:  # one conversation per game in the player's mail client
        root = mail_ids.game_thread(str(notification.game.public_id))
        headers["In-Reply-To"] = root
        headers["References"] = root
    if "unsubscribe_link" in context:
        headers["List-Unsubscribe"] = f"<{context['unsubscribe_link']}>"
        headers["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    # The timeout email always has one: a reply gives the seat back (replies.handle_inbound);
    # an email offering no move has one as well: what is written reaches the table.
    offers_move = notification.kind in REPLY_INVITED and (context.get("my_turn") or notification.kind == Kind.TIMEOUT)
    reply_to = [reply_address(notification)] if offers_move or context.get("talk_reply") else None
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

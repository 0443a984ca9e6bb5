"""The game parts of an email, built in Python: what to do, the hand, the
pieces, the scores and the board, in both parts (HTML and text).

They were template partials included once per card, lot, colour and player
(about 140 includes per email, most of its rendering time). The output is
what those partials gave, character for character (except that the board has
one lot per line, which keeps every line of the HTML part short, so that it is
sent as 8bit instead of quoted-printable); the messages are the same msgids,
so the catalogues translate them as before.

As in the templates: in the HTML part every value is escaped, and so is a
message translated from a variable (a colour); a message from a literal
(``{% translate "..." %}``, ``{% blocktranslate %}``) is not. In the text
part nothing is escaped, except where the template switched autoescaping on
(the card options, the pieces line).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache
from html import escape as html_escape
from itertools import groupby
from typing import Any

from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language, gettext, ngettext


def escape(value: object) -> str:
    """``django.utils.html.escape`` without its lazy-string wrapper (a few hundred calls an email)."""
    return html_escape(str(value))


@lru_cache(maxsize=32)
def _translator(language: str | None) -> Callable[[str], str]:
    cache: dict[str, str] = {}

    def translate(message: str) -> str:
        try:
            return cache[message]
        except KeyError:
            text = cache[message] = gettext(message)
            return text

    return translate


def _messages() -> Callable[[str], str]:
    """``gettext`` in the active language, each message looked up once (an
    email asks for a hundred). Bound to ``_`` where it is used, so that
    ``makemessages`` finds the messages."""
    return _translator(get_language())


# The colours of the HTML part (also in emails/_hex.txt).
HEX = {"red": "#d64541", "blue": "#3a6fd8", "green": "#2e9e5b", "yellow": "#e6b422"}
OTHER_HEX = "#999999"
INK = {"yellow": "#222222"}
WHITE_INK = "#ffffff"


def colour_name(colour: str) -> str:
    """The colour's name in the active language (emails/_colour.txt)."""
    _ = _messages()
    if colour == "red":
        return _("red")
    if colour == "blue":
        return _("blue")
    if colour == "green":
        return _("green")
    if colour == "yellow":
        return _("yellow")
    return colour


def colour_names(colours: Sequence[str]) -> str:
    """emails/_colours.txt."""
    return ", ".join(colour_name(c) for c in colours)


def seat_name(seats: Sequence[Any], index: int, quote: Callable[[str], str] = str) -> str:
    """Who sits at ``index``: the player's name, "<bot> bot" or "an empty seat" (emails/_seat_name.txt).
    The name and the bot's kind pass through ``quote``: raw for the text part,
    ``escape`` for the HTML part (the messages around them are not escaped)."""
    _ = _messages()
    out = []
    for seat in seats:
        if seat.index != index:
            continue
        if seat.user:
            out.append(quote(seat.user.public_name))
        elif seat.bot:
            out.append(_("%(bot)s bot") % {"bot": quote(seat.bot)})
        else:
            out.append(_("an empty seat"))
    return "".join(out)


def _html_seat_name(seats: Sequence[Any], index: int) -> str:
    return seat_name(seats, index, escape)


def _html_colour_name(colour: str) -> str:
    return colour_name(colour) if colour in HEX else escape(colour)


# --- cards ------------------------------------------------------------------------------------

_CARD_SQUARE = (
    '<td width="11" height="11" bgcolor="{colour}" style="width:11px;height:11px;background-color:{colour};'
    'font-size:1px;line-height:1px;">&nbsp;</td>'
)


@lru_cache(maxsize=64)
def _card_html(card: int, language: str | None) -> str:
    _ = _messages()
    title = _("Card %(card)s") % {"card": escape(card)}
    out = [
        '<table role="presentation" cellpadding="0" cellspacing="1" border="0" bgcolor="#8a8a8a"'
        f' title="{title}" style="background-color:#8a8a8a;border-collapse:separate;">\n'
    ]
    for position in range(1, 10):
        if position % 3 == 1:
            out.append("<tr>")
        out.append(_CARD_SQUARE.format(colour="#222222" if position == card else "#ffffff"))
        if position % 3 == 0:
            out.append("</tr>\n")
    out.append("</table>\n")
    return "".join(out)


def card_html(card: int) -> str:
    """The small picture of a card: 3×3 squares, its own marked (emails/_card.html)."""
    return _card_html(card, get_language())


# --- what to do ---------------------------------------------------------------------------------


def option_text(entry: dict[str, Any]) -> str:
    """Where a card can build, grouped by the sizes that fit (emails/_option.txt); the same in both parts."""
    _ = _messages()
    groups = []
    for sizes, cities in groupby(sorted(entry["cities"], key=lambda c: c["sizes"]), key=lambda c: c["sizes"]):
        places = ", ".join(
            _("city %(city)s (lot %(lot)s)") % {"city": escape(c["city"]), "lot": escape(c["lot"])} for c in cities
        )
        joined = escape(", ".join(str(s) for s in sizes))
        label = ngettext("size %(sizes)s", "sizes %(sizes)s", len(sizes)) % {"sizes": joined, "n": len(sizes)}
        groups.append(f"{places} — {label}")
    return "; ".join(groups)


def _waiting_message(seat: Any, html: bool) -> str:
    _ = _messages()
    value = escape if html else str
    if seat.user:
        return _("Nothing to do for now: waiting for %(name)s to move.") % {"name": value(seat.user.public_name)}
    return _("Nothing to do for now: waiting for the %(bot)s bot to move.") % {"bot": value(seat.bot)}


def _selection_message(legal: dict[str, Any], html: bool) -> str:
    _ = _messages()
    colour = _(legal["selection"]["colour"])
    count = legal["selection"]["count"]
    message = _("Your move: choose %(count)s pieces of %(colour)s for this round from your reserve.")
    if html:
        return message % {"count": escape(count), "colour": escape(colour)}
    return message % {"count": count, "colour": colour}


def actions_html(context: dict[str, Any]) -> SafeString:
    """The box saying what the player can do now (emails/_actions.html)."""
    _ = _messages()
    view, legal, summary = context["view"], context.get("legal"), context.get("legal_summary")
    out = [
        '<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0"'
        ' style="width:100%;margin:0 0 8px 0;">\n<tr>\n<td bgcolor="#f7f4ec" style="background-color:#f7f4ec;'
        "border-left:4px solid #1f6f50;padding:10px 14px;font-family:Arial,Helvetica,sans-serif;font-size:15px;"
        'line-height:22px;">\n'
    ]
    if context.get("my_turn") and legal and legal.get("selection"):
        out.append(f'<p style="margin:0;"><strong>{_selection_message(legal, html=True)}</strong></p>\n')
    elif context.get("my_turn") and summary:
        heading = _("Your move: play one card from your hand and place one piece. You can play:")
        out.append(f'<p style="margin:0 0 8px 0;"><strong>{heading}</strong></p>\n')
        out.append('<table role="presentation" cellpadding="0" cellspacing="0" border="0">\n')
        for entry in summary:
            card = entry["card"]
            label = _("Card %(card)s:") % {"card": escape(card)}
            out.append(
                f'<tr>\n<td valign="top" style="padding:0 10px 8px 0;">{card_html(card)}</td>\n'
                '<td valign="top" style="padding:0 0 8px 0;font-size:14px;line-height:20px;">'
                f"<strong>{label}</strong> {option_text(entry)}</td>\n</tr>\n"
            )
        out.append("</table>\n")
        if len(context.get("my_colours") or ()) > 1:
            two = _("You play two colours: add the colour to your move when both could place that piece.")
            out.append(f'<p style="margin:0;font-size:13px;color:#555555;">{two}</p>\n')
    elif view["phase"] == "finished":
        out.append(f'<p style="margin:0;">{_("The game is over.")}</p>\n')
    elif view["to_act"] is not None:
        for seat in context["seats"]:
            if seat.index == view["to_act"]:
                out.append(f'<p style="margin:0;">{_waiting_message(seat, html=True)}</p>\n')
    else:
        out.append(f'<p style="margin:0;">{_("Nothing to do for now.")}</p>\n')
    out.append("</td>\n</tr>\n</table>\n")
    return mark_safe("".join(out))  # every value is escaped above


def actions_text(context: dict[str, Any]) -> str:
    """What the player can do now, in the text part (emails/_actions.txt)."""
    _ = _messages()
    view, legal, summary = context["view"], context.get("legal"), context.get("legal_summary")
    if context.get("my_turn") and legal and legal.get("selection"):
        return _selection_message(legal, html=False)
    if context.get("my_turn") and summary:
        out = [_("Your move: play one card from your hand and place one piece. You can play:")]
        for entry in summary:
            out.append(f"\n- {_('Card %(card)s:') % {'card': entry['card']}} {option_text(entry)}")
        if len(context.get("my_colours") or ()) > 1:
            out.append("\n" + _("You play two colours: add the colour to your move when both could place that piece."))
        return "".join(out)
    if view["phase"] == "finished":
        return _("The game is over.")
    if view["to_act"] is not None:
        return "".join(_waiting_message(seat, html=False) for seat in context["seats"] if seat.index == view["to_act"])
    return _("Nothing to do for now.")


# --- hand, pieces, scores -------------------------------------------------------------------------


def hand_html(context: dict[str, Any]) -> SafeString:
    """The player's cards as small pictures with their numbers (emails/_hand.html)."""
    _ = _messages()
    out = [
        f'<p style="margin:16px 0 6px 0;font-weight:bold;">{_("Your hand")}</p>\n'
        '<table role="presentation" cellpadding="0" cellspacing="0" border="0">\n<tr>\n'
    ]
    for card in context["view"]["hand"] or ():
        out.append(
            '<td align="center" valign="top" style="padding:0 12px 0 0;font-family:Arial,Helvetica,sans-serif;">\n'
            f"{card_html(card)}\n"
            f'<div style="font-size:14px;line-height:18px;font-weight:bold;padding-top:3px;">{escape(card)}</div>\n'
            "</td>\n"
        )
    note = _("A card's number is its marked square, counted row by row like a phone keypad, as you hold the card.")
    out.append(
        f'</tr>\n</table>\n<p style="margin:4px 0 0 0;font-size:12px;line-height:16px;color:#777777;">{note}</p>\n'
    )
    return mark_safe("".join(out))  # every value is escaped above


def _swatch(colour: str) -> str:
    return (
        f'<span style="display:inline-block;width:12px;height:12px;background-color:{HEX.get(colour, OTHER_HEX)};'
        'border:1px solid #555555;">&nbsp;</span>'
    )


def supply_html(context: dict[str, Any]) -> SafeString:
    """This round's pieces and the reserve of each of the player's colours (emails/_supply.html)."""
    _ = _messages()
    sizes = "".join(
        '<td align="center" style="border-bottom:1px solid #dddddd;color:#555555;">'
        f"{_('size %(size)s') % {'size': size}}</td>\n"
        for size in "1234"
    )
    out = [
        f'<p style="margin:16px 0 6px 0;font-weight:bold;">{_("Your pieces")}</p>\n'
        '<table role="presentation" cellpadding="4" cellspacing="0" border="0" style="border-collapse:collapse;'
        'font-family:Arial,Helvetica,sans-serif;font-size:14px;line-height:18px;">\n<tr>\n'
        '<td style="border-bottom:1px solid #dddddd;">&nbsp;</td>\n'
        f'<td style="border-bottom:1px solid #dddddd;color:#555555;">&nbsp;</td>\n{sizes}</tr>\n'
    ]
    mine = context.get("my_colours") or ()
    this_round, reserve = _("this round"), _("reserve")
    for name, pieces in context["view"]["colours"].items():
        if name not in mine:
            continue
        lost = ""
        if pieces["lost"]:
            lost = (
                '<br><span style="font-size:12px;color:#777777;">'
                f"{_('lost: %(lost)s') % {'lost': escape(pieces['lost'])}}</span>"
            )
        selected = "".join(
            f'<td align="center" style="font-weight:bold;">{escape(n)}</td>\n' for n in pieces["selection"].values()
        )
        kept = "".join(
            f'<td align="center" style="border-bottom:1px solid #dddddd;">{escape(n)}</td>\n'
            for n in pieces["reserve"].values()
        )
        out.append(
            '<tr>\n<td rowspan="2" valign="top" style="border-bottom:1px solid #dddddd;">'
            f"{_swatch(name)} <strong>{_html_colour_name(name)}</strong>{lost}</td>\n"
            f'<td style="color:#555555;">{this_round}</td>\n{selected}</tr>\n<tr>\n'
            f'<td style="border-bottom:1px solid #dddddd;color:#555555;">{reserve}</td>\n{kept}</tr>\n'
        )
    out.append("</table>\n")
    return mark_safe("".join(out))  # every value is escaped above


def pieces_text(context: dict[str, Any]) -> str:
    """One line per colour of the player, after "Your pieces, by size ...:" (in emails/_game.txt)."""
    _ = _messages()
    out = []
    mine = context.get("my_colours") or ()
    for name, pieces in context["view"]["colours"].items():
        if name not in mine:
            continue
        # The template wrote this line with autoescaping on.
        line = _("%(colour)s: this round %(selected)s; reserve %(reserve)s") % {
            "colour": escape(_(name)),
            "selected": escape(", ".join(str(n) for n in pieces["selection"].values())),
            "reserve": escape(", ".join(str(n) for n in pieces["reserve"].values())),
        }
        out.append(f"\n- {line}")
        if pieces["lost"]:
            out.append(" " + _("(lost: %(lost)s)") % {"lost": pieces["lost"]})
    return "".join(out)


def scores_html(context: dict[str, Any]) -> SafeString:
    """The players, their colours and scores, the recipient's row in bold (emails/_scores.html)."""
    _ = _messages()
    out = [
        f'<p style="margin:16px 0 6px 0;font-weight:bold;">{_("Scores")}</p>\n'
        '<table role="presentation" cellpadding="4" cellspacing="0" border="0" style="border-collapse:collapse;'
        'font-family:Arial,Helvetica,sans-serif;font-size:14px;line-height:18px;">\n'
    ]
    seats = context["seats"]
    for player in context["scores"]:
        swatches = "".join(f"{_swatch(c)} " for c in player["colours"])
        me = player["me"]
        who = _("you") if me else _html_seat_name(seats, player["seat"])
        colours = ", ".join(_html_colour_name(c) for c in player["colours"])
        out.append(
            f'<tr>\n<td style="border-bottom:1px solid #eeeeee;">{swatches}</td>\n'
            f'<td style="border-bottom:1px solid #eeeeee;{"font-weight:bold;" if me else ""}">{who} ({colours})</td>\n'
            f'<td align="right" style="border-bottom:1px solid #eeeeee;font-weight:bold;">{escape(player["score"])}'
            "</td>\n</tr>\n"
        )
    out.append("</table>\n")
    return mark_safe("".join(out))  # every value is escaped above


def scores_text(context: dict[str, Any]) -> str:
    """One line per player after "Scores:" (in emails/_game.txt)."""
    _ = _messages()
    seats = context["seats"]
    return "".join(
        f"\n- {_('you') if p['me'] else seat_name(seats, p['seat'])} ({colour_names(p['colours'])}): {p['score']}"
        for p in context["scores"]
    )


# --- the board ------------------------------------------------------------------------------------

_BOARD_START = (
    '<table role="presentation" cellpadding="0" cellspacing="0" border="0" style="border-collapse:collapse;">\n'
)
_CITY_START = (
    '<td valign="top" style="padding:0 10px 12px 0;font-family:Arial,Helvetica,sans-serif;">\n'
    '<div style="font-size:12px;line-height:16px;color:#555555;padding:0 0 3px 0;">{name}</div>\n'
    '<table role="presentation" cellpadding="0" cellspacing="2" border="0" bgcolor="#d8d2c4"'
    ' style="background-color:#d8d2c4;border-collapse:separate;">\n'
)
_LOT = (
    '<td width="34" height="34" align="center" valign="middle" bgcolor="{hex}" title="{title}"'
    ' style="width:34px;height:34px;background-color:{hex};color:{ink};text-align:center;vertical-align:middle;'
    'font-family:Arial,Helvetica,sans-serif;"><div style="font-size:15px;line-height:16px;font-weight:bold;">'
    '{height}</div><div style="font-size:8px;line-height:9px;">{storeys}</div></td>'
)
_EMPTY_LOT = (
    '<td width="34" height="34" bgcolor="#fbfaf6" style="width:34px;height:34px;background-color:#fbfaf6;'
    'font-size:1px;line-height:1px;">&nbsp;</td>'
)


def board_html(view: dict[str, Any]) -> SafeString:
    """The board as tables with inline styles: six cities of 3×3 lots in two
    rows of three; each building in its owner's colour with its height, the
    storeys of each colour below it, and a title naming city, lot and height.
    One lot per line (the HTML part's lines stay short)."""
    _ = _messages()
    city_name = _("City %(number)s")
    lot_title = _("City %(number)s, lot %(lot)s: %(height)s storeys")
    out = [_BOARD_START]
    for c, city in enumerate(view["board"]):
        number = c + 1
        if c % 3 == 0:
            out.append("<tr>\n")
        out.append(_CITY_START.format(name=city_name % {"number": number}))
        for lot, building in enumerate(city):
            if lot % 3 == 0:
                out.append("<tr>")
            if building:
                owner = building["owner"]
                height = building["height"]
                out.append(
                    _LOT.format(
                        hex=HEX.get(owner, OTHER_HEX),
                        ink=INK.get(owner, WHITE_INK),
                        title=lot_title % {"number": number, "lot": lot + 1, "height": height},
                        height=height,
                        storeys=" ".join(f"{escape(name[:1].upper())}{n}" for name, n in building["storeys"].items()),
                    )
                )
            else:
                out.append(_EMPTY_LOT)
            out.append("</tr>\n" if lot % 3 == 2 else "\n")
        out.append("</table>\n</td>\n")
        if c % 3 == 2:
            out.append("</tr>\n")
    out.append("</table>")
    return mark_safe("".join(out))  # every value is escaped above

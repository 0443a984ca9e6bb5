"""The board as an SVG drawing, from a (secret-free) player view.

Six cities of 3×3 lots, seen from the south; each building shows its height,
its owner's colour and each colour's storeys. Used by the admin and the play
pages.
"""

from __future__ import annotations

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from games.engine import COLOUR_NAMES, PlayerView

FILL = {"red": "#d64541", "blue": "#3a6fd8", "green": "#2e9e5b", "yellow": "#e6b422"}
LABEL = {
    "red": gettext_lazy("red"),
    "blue": gettext_lazy("blue"),
    "green": gettext_lazy("green"),
    "yellow": gettext_lazy("yellow"),
}
LOT = 38
GAP = 4
CITY = 3 * LOT + 2 * GAP
CITY_GAP = 18


def board_svg(view: PlayerView, *, highlight: set[tuple[int, int]] | None = None) -> SafeString:
    """An inline SVG of the board; ``highlight`` marks (city, lot) pairs (0-based)."""
    highlight = highlight or set()
    width = 3 * CITY + 4 * CITY_GAP
    height = 2 * CITY + 3 * CITY_GAP + 16
    label = escape(_("Manhattan board"))
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="{label}" class="board" style="max-width:100%;height:auto">',
        f'<rect width="{width}" height="{height}" fill="#f4f1ea"/>',
    ]
    for city in range(6):
        cx = CITY_GAP + (city % 3) * (CITY + CITY_GAP)
        cy = CITY_GAP + 12 + (city // 3) * (CITY + CITY_GAP)
        name = escape(_("City %(number)s") % {"number": city + 1})
        parts.append(f'<text x="{cx}" y="{cy - 4}" font-size="11" font-family="sans-serif" fill="#555">{name}</text>')
        for lot in range(9):
            row, col = divmod(lot, 3)
            x, y = cx + col * (LOT + GAP), cy + row * (LOT + GAP)
            building = view.board[city * 9 + lot]
            stroke = ' stroke="#111" stroke-width="3"' if (city, lot) in highlight else ' stroke="#bbb"'
            where = {"number": city + 1, "lot": lot + 1}
            if building is None:
                empty = _("City %(number)s, lot %(lot)s: empty") % where
                parts.append(
                    f'<rect x="{x}" y="{y}" width="{LOT}" height="{LOT}" fill="#fff"{stroke}>'
                    f"<title>{escape(empty)}</title></rect>"
                )
                continue
            owner = COLOUR_NAMES[building.owner]
            storeys = ", ".join(f"{LABEL[COLOUR_NAMES[c]]} {n}" for c, n in enumerate(building.storeys) if n)
            title = _("City %(number)s, lot %(lot)s: %(height)s storeys, owner %(owner)s (%(storeys)s)") % {
                **where,
                "height": building.height,
                "owner": LABEL[owner],
                "storeys": storeys,
            }
            parts.append(
                f'<rect x="{x}" y="{y}" width="{LOT}" height="{LOT}" fill="{FILL[owner]}"{stroke}>'
                f"<title>{escape(title)}</title></rect>"
            )
            parts.append(
                f'<text x="{x + LOT / 2}" y="{y + 17}" text-anchor="middle" font-size="15" font-weight="bold" '
                f'font-family="sans-serif" fill="#fff">{building.height}</text>'
            )
            # One small bar per colour with storeys here, so takeovers can be read off.
            bar_x = x + 3
            for colour, count in enumerate(building.storeys):
                if count:
                    parts.append(
                        f'<rect x="{bar_x}" y="{y + LOT - 11}" width="{count * 3}" height="7" '
                        f'fill="{FILL[COLOUR_NAMES[colour]]}" stroke="#fff" stroke-width="1"/>'
                    )
                    bar_x += count * 3 + 2
    south = escape(_("south side"))
    parts.append(
        f'<text x="{width / 2}" y="{height - 4}" text-anchor="middle" font-size="10" font-family="sans-serif" '
        f'fill="#777">{south}</text>'
    )
    parts.append("</svg>")
    return mark_safe("".join(parts))

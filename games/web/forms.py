"""Forms of the play pages. Inputs are rendered by hand in the templates (with
stable ids, names and ``data-testid``s); these classes only read and check them.

A move is either chosen with the controls (numbers of pieces per size to
select; card, piece, colour and city to place) or written in the engine's
notation, which takes precedence when given.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from games.engine import COLOUR_NAMES, Action, NotationError, PlacePiece, Resign, SelectPieces, parse_action
from games.presentation.refusals import refusal_text

MAX_NOTATION = 500


class MoveForm(forms.Form):
    """Selecting pieces (``intent=select``) or placing one (``intent=place``)."""

    intent = forms.ChoiceField(choices=[("select", "select"), ("place", "place")])
    version = forms.IntegerField(min_value=0)
    notation = forms.CharField(
        max_length=MAX_NOTATION, required=False, label=gettext_lazy("Or write the move"), strip=True
    )
    size_1 = forms.IntegerField(min_value=0, max_value=24, required=False)
    size_2 = forms.IntegerField(min_value=0, max_value=24, required=False)
    size_3 = forms.IntegerField(min_value=0, max_value=24, required=False)
    size_4 = forms.IntegerField(min_value=0, max_value=24, required=False)
    card = forms.IntegerField(min_value=1, max_value=9, required=False)
    city = forms.IntegerField(min_value=1, max_value=6, required=False)
    size = forms.IntegerField(min_value=1, max_value=4, required=False)
    colour = forms.ChoiceField(choices=[("", "")] + [(c, c) for c in COLOUR_NAMES], required=False)
    # The page's key for this move: the same form sent twice plays once.
    idempotency_key = forms.CharField(max_length=64, required=False)

    def __init__(self, *args: Any, count: int | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.count = count
        self.action: Action | None = None
        self.pointer = ""

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if self.errors:
            return data
        notation = data.get("notation") or ""
        if notation:
            try:
                action = parse_action(notation)
            except NotationError as error:
                self.pointer = error.pointer()
                reason = refusal_text(error.message, message_id=error.message_id, params=error.params)
                self.add_error("notation", _("This move could not be read: %(reason)s") % {"reason": reason})
                return data
            if isinstance(action, Resign):
                self.add_error("notation", _("To resign, use the Resign button."))
                return data
            self.action = action
        elif data.get("intent") == "select":
            self.action = self._selection(data)
        else:
            self.action = self._placement(data)
        return data

    def _selection(self, data: dict[str, Any]) -> SelectPieces | None:
        pieces = tuple(size for size in (1, 2, 3, 4) for _n in range(data.get(f"size_{size}") or 0))
        if self.count is not None and len(pieces) != self.count:
            self.add_error(
                None,
                _("Choose exactly %(count)s pieces; you chose %(total)s.")
                % {"count": self.count, "total": len(pieces)},
            )
            return None
        return SelectPieces(pieces=pieces)

    def _placement(self, data: dict[str, Any]) -> PlacePiece | None:
        card, city, size = data.get("card"), data.get("city"), data.get("size")
        if card is None or city is None or size is None:
            self.add_error(None, _("Choose a card, a piece and a city, or write the move in the text field."))
            return None
        colour = data.get("colour") or ""
        return PlacePiece(
            card=card - 1,
            city=city - 1,
            size=size,
            colour=COLOUR_NAMES.index(colour) if colour else None,
        )


class ResignForm(forms.Form):
    version = forms.IntegerField(min_value=0)
    confirm = forms.BooleanField(required=True)

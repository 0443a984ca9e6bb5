"""HTML mail as the text a person reads in it, with quoted history marked.

Replies from webmail and phones often have only an HTML part. It is read as
a person sees it: ``<style>``, ``<script>`` and the head are dropped, entities
decoded, block elements and ``<br>`` end lines, and whitespace collapses as a
browser collapses it. Quoted history is marked the way plain-text mail marks
it, so one reader handles both: the lines inside a ``<blockquote>`` (Gmail,
Apple Mail, Thunderbird, Yandex, Mail.ru, Windows Mail) start with ``> ``,
and the Outlook family's unquoted history (``divRplyFwdMsg`` of Outlook on the
web and Hotmail, ``OutlookMessageHeader``, old Hotmail's ``stopSpelling`` rule)
begins with an ``-----Original Message-----`` line, as Outlook's plain text does.

Only what a reader sees counts: elements hidden by their style
(``display:none``, ``visibility:hidden``, a zero font size, ``mso-hide:all``,
no height or width with the overflow hidden, full transparency) or by the
``hidden`` attribute are dropped with everything in them, as preheaders are.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

ORIGINAL_MESSAGE = "-----Original Message-----"
_SKIPPED = frozenset({"style", "script", "head", "title", "template", "noscript", "xml"})
_BLOCKS = frozenset(
    {
        "address", "article", "aside", "blockquote", "center", "dd", "div", "dl", "dt", "fieldset",
        "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "li", "main",
        "nav", "ol", "p", "pre", "section", "table", "tbody", "thead", "tfoot", "tr", "ul",
    }
)  # fmt: skip
_VOID = frozenset({"br", "hr", "img", "meta", "link", "input", "wbr", "col", "area", "base", "source"})
_HISTORY_IDS = frozenset({"divrplyfwdmsg", "stopspelling", "appendonsend"})
_HISTORY_CLASSES = frozenset({"outlookmessageheader"})
# Declarations that hide an element from the reader (the value of a style attribute, lower-cased, spaces removed).
_HIDING = re.compile(
    r"(?:^|;)(?:display:none|visibility:hidden|visibility:collapse|mso-hide:all|opacity:0(?:\.0*)?(?:;|$|!)"
    r"|font-size:0(?:\.0*)?(?:px|pt|em|rem|%)?(?:;|$|!)|(?:max-)?(?:height|width):0(?:px|pt|em|%)?(?:;|$|!).*overflow:hidden"
    r"|overflow:hidden.*(?:max-)?(?:height|width):0(?:px|pt|em|%)?(?:;|$|!))"
)
_SPACE = re.compile(r"[ \t\r\n\f\v\xa0\u200b\u2028\u2029]+")


class _Reader(HTMLParser):
    def __init__(self, *, with_hidden: bool = False) -> None:
        super().__init__(convert_charrefs=True)
        self.with_hidden = with_hidden
        self.lines: list[str] = []
        self.line: list[str] = []
        self.depth = 0  # blockquotes open
        self.skipping: list[str] = []  # the skipped elements open
        self.pre = 0

    def _flush(self, *, blank_ok: bool = False) -> None:
        text = "".join(self.line)
        text = text.rstrip() if self.pre else _SPACE.sub(" ", text).strip()
        if text or blank_ok:
            self.lines.append(("> " * self.depth) + text if text else ">" * self.depth)
        self.line = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.skipping:
            if tag not in _VOID:
                self.skipping.append(tag)
            return
        if tag in _SKIPPED:
            self.skipping.append(tag)
            return
        values = {name: (value or "").lower() for name, value in attrs}
        if not self.with_hidden and _hidden(values):
            if tag not in _VOID:
                self.skipping.append(tag)
            return
        if values.get("id", "") in _HISTORY_IDS or _HISTORY_CLASSES & set(values.get("class", "").split()):
            self._flush()
            self.lines.append(ORIGINAL_MESSAGE)
            return
        if tag == "br":
            self._flush(blank_ok=True)
        elif tag in ("td", "th"):
            self.line.append(" ")
        elif tag in _BLOCKS:
            self._flush()
            if tag == "blockquote":
                self.depth += 1
            elif tag == "pre":
                self.pre += 1

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag: str) -> None:
        if self.skipping:
            # Elements left open inside (a <p> without its </p>) close with their parent.
            if tag in self.skipping:
                del self.skipping[len(self.skipping) - 1 - self.skipping[::-1].index(tag) :]
            return
        if tag in _BLOCKS:
            self._flush()
            if tag == "blockquote" and self.depth:
                self.depth -= 1
            elif tag == "pre" and self.pre:
                self.pre -= 1

    def handle_data(self, data: str) -> None:
        if self.skipping:
            return
        if self.pre:
            for number, piece in enumerate(data.split("\n")):
                if number:
                    self._flush(blank_ok=True)
                self.line.append(piece)
        else:
            self.line.append(data)


def _hidden(attributes: dict[str, str]) -> bool:
    """Whether an element's attributes hide it (and all in it) from the reader."""
    if "hidden" in attributes:
        return True
    style = attributes.get("style", "")
    return bool(style) and _HIDING.search(re.sub(r"\s+", "", style)) is not None


def html_to_text(markup: str, *, with_hidden: bool = False) -> str:
    """The text of ``markup`` as a reader sees it, quoted history marked with
    ``> `` (``with_hidden``: and the hidden text too, to compare)."""
    reader = _Reader(with_hidden=with_hidden)
    reader.feed(markup)
    reader.close()
    reader._flush()
    return "\n".join(reader.lines)

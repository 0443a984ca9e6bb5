"""The move in a reply, however the player's mail client wrote the reply.

The reply's text is its plain-text part, or what a person reads in its HTML
part when it has no plain text (``html_text``). The quoted history is found
with ``mail-parser-reply``, which knows the headers common clients write above
it in many languages ("On … wrote:", "Am … schrieb …:", "Op … schreef:",
"Le … a écrit :", Korean, Outlook's "From:/Sent:" blocks in each language,
"-----Original Message-----"), and by ``>`` at the start of a quoted line.

The move is the first line of the player's own text: above the history
(top-posting), or — when nothing is written above it — the first line below
a ``>``-quoted history (bottom-posting). History that is not marked with
``>`` (Outlook's) is never read: it is the email we sent, with its examples.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from email.message import Message
from functools import cache

from mailparser_reply import EmailReplyParser
from mailparser_reply.constants import GENERIC_MAIL_SEPARATOR
from mailparser_reply.parser import EmailMessage as LibraryMessage

from games.engine.notation_words import COLOURS, PARTS, VERBS, word_key

from . import signatures
from .html_text import html_to_text
from .screening import clean

# The languages of the site; mail-parser-reply reads each one's reply headers (and English's).
LANGUAGES = ["en", "de", "nl", "fr", "ko"]
MAX_LINE = 500
# Reading is bounded: a reply is read up to its first MAX_READ characters (the
# player writes above the quote, or right below the quote of our email, which
# is far shorter), and its own text up to MAX_OWN_LINES lines.
MAX_READ = 100_000
MAX_OWN_LINES = 200
MAX_HTML = 2_000_000  # characters of an HTML part read (its quote is cut off, the reply is above it)
_ORIGINAL = re.compile(GENERIC_MAIL_SEPARATOR, re.IGNORECASE | re.MULTILINE)


def _decode(part: Message) -> str:
    payload = part.get_payload(decode=True)
    if not isinstance(payload, bytes):
        return str(part.get_payload() or "")
    try:
        return payload.decode(part.get_content_charset() or "utf-8", errors="replace")
    except LookupError:  # a charset Python does not know, e.g. "unknown-8bit"
        return payload.decode("utf-8", errors="replace")


def _is_attachment(part: Message) -> bool:
    return bool(part.get_filename()) or (part.get("Content-Disposition", "").lower().startswith("attachment"))


def reply_text(message: Message) -> str:
    """The text of the reply: its plain-text part, else its HTML part as read."""
    plain = html = None
    for part in message.walk():
        if part.is_multipart() or _is_attachment(part):
            continue
        kind = part.get_content_type()
        if kind == "text/plain" and plain is None:
            plain = _decode(part)
        elif kind == "text/html" and html is None:
            html = _decode(part)
    if html is not None:
        html = html[:MAX_HTML]
    if plain is not None and plain.strip():
        if html is not None and _hidden_in(html, move_line(plain)):
            return clean(html_to_text(html))  # the plain part says what is hidden in the HTML: what is seen wins
        return clean(plain)
    if html is not None:
        return clean(html_to_text(html))
    return ""


def _hidden_in(markup: str, line: str) -> bool:
    """Whether ``line`` is in ``markup`` only where a reader does not see it."""
    words = " ".join(line.split())
    if not words:
        return False
    visible = " ".join(html_to_text(markup).split())
    return words not in visible and words in " ".join(html_to_text(markup, with_hidden=True).split())


def _quoted(line: str) -> bool:
    return line.lstrip().startswith(">")


@cache
def _header_regex() -> re.Pattern[str]:
    """mail-parser-reply's pattern of reply headers in the site's languages (built once)."""
    pattern: re.Pattern[str] = LibraryMessage(text="", languages=list(LANGUAGES)).HEADER_REGEX
    return pattern


def _history_header_lines(text: str) -> tuple[set[int], int | None]:
    """The lines of "On … wrote:" headers (above a quote), and the first line of
    unquoted history (an Outlook-style header block), as line numbers."""
    # Quoted lines are history whatever they say: the pattern (slow, for all its
    # languages) reads them as a bare ">", so a long quote costs next to nothing.
    lines = [">" if _quoted(line) else line for line in text.split("\n")]
    searched = "\n".join(lines)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)

    def line_of(offset: int) -> int:
        return bisect_right(starts, offset) - 1  # a binary search: reading stays linear in the text

    attributions: set[int] = set()
    history: int | None = None
    for match in _header_regex().finditer(searched):
        found = match.group(0)
        if not found.strip():
            continue
        first = line_of(match.start() + len(found) - len(found.lstrip()))
        last = line_of(match.start() + len(found.rstrip()) - 1)
        if _ORIGINAL.search(found) or (last > first and not _ends_above_quote(lines, last)):
            # Outlook's block ("From: … Sent: …"), or "-----Original Message-----"
            history = first if history is None else min(history, first)
        else:  # "On … wrote:", on one line or wrapped over several just above the quote
            attributions.update(range(first, last + 1))
    return attributions, history


def _ends_above_quote(lines: list[str], number: int) -> bool:
    """Whether line ``number`` ends with ':' and the next non-blank line is quoted."""
    if not lines[number].rstrip().endswith(":"):
        return False
    following = next((line for line in lines[number + 1 : number + 4] if line.strip()), "")
    return _quoted(following)


def own_lines(text: str) -> list[str]:
    """The player's own lines in ``text`` (a reply's text): the first block of
    lines that are neither quoted nor history, from its first non-blank line."""
    text = text[:MAX_READ]
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    attributions, history = _history_header_lines("\n".join(lines))
    next_text = _next_nonblank(lines)
    attributions |= _wrapped_attributions(lines, next_text)
    own: list[str] = []
    for number, line in enumerate(lines):
        if history is not None and number >= history:
            break  # unquoted history: the email we sent, never the player's text
        stripped = line.strip()
        if signatures.separator(stripped):
            break
        if number in attributions or _quoted(line) or (stripped and _is_attribution(lines, next_text, number)):
            if own:
                break  # the player's block ends where the quote begins
            continue
        if signatures.device_line(stripped):
            if own:
                break  # "Sent from my iPhone": the player's text ends above it
            continue
        if stripped or own:
            own.append(stripped[:MAX_LINE])
            if len(own) >= MAX_OWN_LINES:
                break
    while own and not own[-1]:
        own.pop()
    return own


def move_line(text: str) -> str:
    """The line of ``text`` (a reply's text) that holds the move, or ""."""
    own = own_lines(text)
    return own[0] if own else ""


def move_and_note(message: Message) -> tuple[str, str]:
    """The first line of the player's own text in ``message`` (the move, if
    it is one) and the lines after it without the signature (a note for the
    table), each "" when absent."""
    own = own_lines(reply_text(message))
    if not own:
        return "", ""
    written = EmailReplyParser(languages=LANGUAGES).read("\n".join(own)).replies
    body = written[0].body.split("\n") if written else own
    if not body or body[0].strip() != own[0]:
        body = own  # the library read the first line as a signature: keep what was written
    return own[0], "\n".join(body[1:]).strip()


_WORD = re.compile(r"[^\W\d_]+")


def mentions_the_notation(line: str) -> bool:
    """Whether ``line`` tries to be a move: it has a digit of any script, or a
    word of the notation in any language ("place", "Karte", "rouge")."""
    if any(char.isdigit() for char in line):
        return True
    return any((key := word_key(word)) in PARTS or key in VERBS or key in COLOURS for word in _WORD.findall(line))


def _next_nonblank(lines: list[str]) -> list[int | None]:
    """For each line, the number of the next non-blank line after it (None at the end): found in one pass."""
    following: list[int | None] = [None] * len(lines)
    upcoming: int | None = None
    for number in range(len(lines) - 1, -1, -1):
        following[number] = upcoming
        if lines[number].strip():
            upcoming = number
    return following


_ADDRESS_TAIL = re.compile(r"^<?[^\s<>]+@[^\s<>]+>")


def _wrapped_attributions(lines: list[str], next_text: list[int | None]) -> set[int]:
    """The lines of "On … wrote:" headers that Gmail wraps in its plain text
    ("… schreef Manhattan by mail <" / "play@…>:"), found by their shape: the
    last line ends with ':' just above the quote, and each line above it
    belongs to it while it leaves an address open or the next one closes it."""
    found: set[int] = set()
    for number, line in enumerate(lines):
        if not line.strip() or _quoted(line) or not _is_attribution(lines, next_text, number):
            continue
        first = number
        while first > 0 and number - first < 3:
            above, below = lines[first - 1].strip(), lines[first].strip()
            if not above or _quoted(above):
                break
            opens = above.endswith("<") or above.count("<") > above.count(">")
            tail = "@" in above and ">" in above and "<" not in below and len(below) <= 30
            if not (opens or _ADDRESS_TAIL.match(below) or tail):
                break
            first -= 1
        found.update(range(first, number + 1))
    return found


def _is_attribution(lines: list[str], next_text: list[int | None], number: int) -> bool:
    """A line ending with ':' whose next non-blank line is quoted: the header of a quote."""
    if not lines[number].rstrip().endswith(":"):
        return False
    following = next_text[number]
    return following is not None and _quoted(lines[following])

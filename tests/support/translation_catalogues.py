"""Reading the translation catalogues under ``locale/`` with polib, and the
pieces of a message that a translation must keep."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import polib
from django.conf import settings

# Every language the site offers, except English, the language of the source strings.
LANGUAGES = [code for code, _name in settings.LANGUAGES if code != settings.LANGUAGE_CODE]
# The plural forms gettext knows for the languages offered now (a new language adds its own).
NPLURALS = {"de": 2, "nl": 2, "fr": 2, "ko": 1}

# %(name)s and friends (python-format), and the bare %s / %d kind.
PLACEHOLDER = re.compile(r"%(?:\([^)]*\))?[#0\- +]*(?:\d+|\*)?(?:\.\d+)?[diouxXeEfFgGcrsa%]")
TAG = re.compile(r"</?[A-Za-z][^>]*>")
ENTITY = re.compile(r"&(?:[A-Za-z]+|#\d+|#x[0-9A-Fa-f]+);")
# The move notation is read in English words: an example inside a message stays as it is.
NOTATION = re.compile(r"\b(?:card \d+ city \d+ size \d+(?: [a-z]+)?|select(?: [1-4]){2,}|select [1-4]{2,})\b")


def locale_dir(language: str) -> Path:
    return Path(settings.LOCALE_PATHS[0]) / language / "LC_MESSAGES"


@cache
def po_file(language: str) -> polib.POFile:
    return polib.pofile(str(locale_dir(language) / "django.po"))


@cache
def mo_file(language: str) -> polib.MOFile:
    return polib.mofile(str(locale_dir(language) / "django.mo"))


def nplurals(catalogue: polib._BaseFile) -> int:
    match = re.match(r"\s*nplurals\s*=\s*(\d+)\s*;", catalogue.metadata.get("Plural-Forms", ""))
    assert match, "the header has no Plural-Forms"
    return int(match.group(1))


def live_entries(catalogue: polib._BaseFile) -> list[polib._BaseEntry]:
    return [e for e in catalogue if not e.obsolete and e.msgid]


def placeholders(text: str) -> list[str]:
    return sorted(PLACEHOLDER.findall(text))


def markup(text: str) -> list[str]:
    return sorted(TAG.findall(text) + ENTITY.findall(text))


def notation(text: str) -> list[str]:
    return sorted(NOTATION.findall(text))


def forms_of(entry: polib._BaseEntry) -> list[tuple[str, str]]:
    """(source, translation) pairs: the singular, or each plural form against its source."""
    if not entry.msgid_plural:
        return [(entry.msgid, entry.msgstr)]
    forms = entry.msgstr_plural
    if len(forms) == 1:  # one form for every number (Korean): it stands for the plural
        return [(entry.msgid_plural, forms[next(iter(forms))])]
    return [(entry.msgid if int(i) == 0 else entry.msgid_plural, text) for i, text in sorted(forms.items())]

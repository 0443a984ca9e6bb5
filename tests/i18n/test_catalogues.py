"""The committed catalogues are complete, keep what a translation must keep,
and the compiled ``.mo`` files say the same as the ``.po`` files."""

from __future__ import annotations

import pytest
from django.conf import settings

from accounts.models import User
from tests.support.translation_catalogues import (
    LANGUAGES,
    NPLURALS,
    forms_of,
    live_entries,
    locale_dir,
    markup,
    mo_file,
    notation,
    nplurals,
    placeholders,
    po_file,
)


def test_every_offered_language_has_a_catalogue():
    assert {"de", "nl", "fr", "ko"} <= set(LANGUAGES)
    # The preference a player picks from is the list the site offers.
    assert [code for code, _name in User._meta.get_field("language").choices] == [
        code for code, _ in settings.LANGUAGES
    ]
    for language in LANGUAGES:
        assert (locale_dir(language) / "django.po").is_file(), language
        assert (locale_dir(language) / "django.mo").is_file(), f"{language}: run compilemessages"


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_header_is_filled_in(language):
    po = po_file(language)
    assert not po.metadata_is_fuzzy, "the '#, fuzzy' flag of the header is left"
    assert po.metadata["Language"] == language
    assert po.metadata["Content-Type"] == "text/plain; charset=UTF-8"
    assert nplurals(po) == NPLURALS.get(language, nplurals(po))


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_message_is_translated(language):
    po = po_file(language)
    assert len(live_entries(po)) > 300
    assert [e.msgid for e in po.untranslated_entries()] == []
    assert [e.msgid for e in po.fuzzy_entries()] == []
    for entry in live_entries(po):
        if entry.msgid_plural:
            assert len(entry.msgstr_plural) == nplurals(po), entry.msgid
            assert all(text.strip() for text in entry.msgstr_plural.values()), entry.msgid
        else:
            assert entry.msgstr.strip(), entry.msgid


@pytest.mark.parametrize("language", LANGUAGES)
def test_translations_keep_placeholders_markup_and_notation(language):
    problems = []
    for entry in live_entries(po_file(language)):
        for source, text in forms_of(entry):
            if placeholders(text) != placeholders(source):
                problems.append(("placeholders", source, text))
            if markup(text) != markup(source):
                problems.append(("markup", source, text))
            if notation(source) and notation(text) != notation(source):
                problems.append(("notation", source, text))
    assert problems == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_compiled_catalogue_is_up_to_date(language):
    """The .mo file is what Django reads: it must be compiled from the current .po."""
    po, mo = po_file(language), mo_file(language)
    expected = {}
    for entry in po.translated_entries():
        if entry.msgid_plural:
            forms = tuple(text for _i, text in sorted((int(i), t) for i, t in entry.msgstr_plural.items()))
            expected[(entry.msgctxt, entry.msgid, entry.msgid_plural)] = forms
        else:
            expected[(entry.msgctxt, entry.msgid, "")] = (entry.msgstr,)
    compiled = {}
    for entry in mo:
        if not entry.msgid:
            continue
        if entry.msgid_plural:
            forms = tuple(text for _i, text in sorted((int(i), t) for i, t in entry.msgstr_plural.items()))
            compiled[(entry.msgctxt, entry.msgid, entry.msgid_plural)] = forms
        else:
            compiled[(entry.msgctxt, entry.msgid, "")] = (entry.msgstr,)
    stale = {key for key in expected.keys() | compiled.keys() if expected.get(key) != compiled.get(key)}
    assert sorted(stale, key=str) == [], "run: python manage.py compilemessages --ignore=.venv"
    assert mo.metadata.get("Plural-Forms") == po.metadata["Plural-Forms"]

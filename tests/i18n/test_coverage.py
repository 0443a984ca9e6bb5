"""The catalogues hold every message the templates and the code mark for
translation, as ``makemessages`` would gather them (without GNU gettext, which
CI may not have: tests/support/marked_messages.py gathers them in Python)."""

from __future__ import annotations

import pytest

from tests.support.marked_messages import python_messages, template_messages
from tests.support.translation_catalogues import LANGUAGES, live_entries, po_file


def test_the_templates_are_read():
    messages = template_messages()
    # A plain {% translate %}, a blocktranslate with a variable, and one with a plural.
    assert ("Manhattan by mail", "") in messages
    assert ("Round %(round)s of %(rounds)s", "") in messages
    assert ("%(counter)s storey", "%(counter)s storeys") in messages
    assert len(messages) > 200


def test_the_python_sources_are_read():
    messages = python_messages()
    assert ("Your email address", "") in messages
    assert ("red", "") in messages
    assert (
        "The game is over. The winner is %(names)s.",
        "The game is over. The winners are %(names)s.",
    ) in messages


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("source", ["templates", "python"])
def test_the_catalogue_covers_every_marked_message(language, source):
    messages = template_messages() if source == "templates" else python_messages()
    catalogue = {(e.msgid, e.msgid_plural or ""): e for e in live_entries(po_file(language))}
    missing = sorted(
        f"{msgid!r} ({', '.join(sorted(where))})"
        for (msgid, plural), where in messages.items()
        if (msgid, plural) not in catalogue or not catalogue[(msgid, plural)].translated()
    )
    assert missing == [], "run makemessages, translate, then compilemessages (see README.md, 'Languages')"

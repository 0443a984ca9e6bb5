"""The engine's refusals are written once (games/engine/messages.py) and translated once:
each template is the message id of exactly one translated entry in every catalogue, and
the site renders it from there in all five languages (games/presentation/refusals.py)."""

from __future__ import annotations

import string
from functools import cache

import pytest
from django.conf import settings
from django.utils import translation

from games.engine.messages import NOTATION_MESSAGES, RULE_MESSAGES
from games.presentation import refusals
from tests.support.marked_messages import python_messages
from tests.support.translation_catalogues import LANGUAGES, live_entries, po_file

marked_in_python = cache(python_messages)  # reads every source file: once for all ids

ENGINE_TEMPLATES = {message_id: template for message_id, (_code, _rule, template) in RULE_MESSAGES.items()}
ENGINE_TEMPLATES.update(NOTATION_MESSAGES)
# A value for every param a template names; colours and parts are the engine's English words.
SAMPLE_PARAMS = {"colour": "red", "other_colour": "blue", "owner": "green", "part": "card", "names": "x, y"}


def fields(template: str) -> set[str]:
    return {name for _text, name, _spec, _conv in string.Formatter().parse(template) if name}


def params_for(template: str) -> dict[str, str]:
    return {name: SAMPLE_PARAMS.get(name, "7") for name in fields(template)}


def test_every_message_id_of_the_engine_is_rendered_by_the_site():
    assert len(RULE_MESSAGES) + len(NOTATION_MESSAGES) == len(ENGINE_TEMPLATES)  # no id in both catalogues
    assert refusals.TEMPLATES == ENGINE_TEMPLATES


@pytest.mark.parametrize("message_id", sorted(ENGINE_TEMPLATES))
def test_the_template_is_written_once(message_id):
    # Marked for the catalogues in the engine and nowhere else: no second copy to drift.
    assert marked_in_python()[(ENGINE_TEMPLATES[message_id], "")] == {"games/engine/messages.py"}


@pytest.mark.parametrize("language", LANGUAGES)
def test_each_template_has_exactly_one_translation_keeping_its_params(language):
    entries = live_entries(po_file(language))
    problems = []
    for message_id, template in sorted(ENGINE_TEMPLATES.items()):
        found = [entry for entry in entries if entry.msgid == template and not entry.msgctxt]
        if len(found) != 1 or not found[0].translated():
            problems.append(f"{message_id}: {len(found)} entries, translated: {[e.translated() for e in found]}")
        elif fields(found[0].msgstr) != fields(template):
            problems.append(f"{message_id}: params {fields(found[0].msgstr)} against {fields(template)}")
    assert problems == []


@pytest.mark.parametrize("language", [code for code, _name in settings.LANGUAGES])
def test_every_refusal_is_rendered_in_each_language(language):
    for message_id, template in ENGINE_TEMPLATES.items():
        params = params_for(template)
        english = template.format(**params)
        with translation.override(language):
            text = refusals.refusal_text(english, message_id=message_id, params=params)
        if language == settings.LANGUAGE_CODE:
            assert text == english, message_id
        else:
            translated = po_file(language).find(template).msgstr
            assert text != english, message_id  # not the engine's English fallback
            for name, value in params.items():
                if name not in ("colour", "other_colour", "owner", "part"):  # those are translated words
                    assert value in text, (message_id, name)
            assert text.startswith(translated.split("{")[0]), message_id

"""The catalogue of refusals (games/engine/messages.py) and its table in
docs/engine.md: every RuleError and NotationError is a template filled in
from params, which a site can translate and render with the rule in front once."""

from __future__ import annotations

import re
import string
from pathlib import Path

import pytest

from games.engine import PlacePiece, SelectPieces
from games.engine.errors import refuse, unreadable
from games.engine.messages import NOTATION_MESSAGES, RULE_MESSAGES
from games.engine.rotation import CARD_TO_LOT
from tests.support.engine_positions import BLUE, S, board_with, new_game, placement_position, rule_error, tower

DOC = (Path(__file__).resolve().parents[2] / "docs" / "engine.md").read_text()


def fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


@pytest.mark.parametrize("message_id", list(RULE_MESSAGES))
def test_every_rule_message_is_in_the_docs_with_its_code_rule_and_template(message_id):
    code, rule, template = RULE_MESSAGES[message_id]
    row = f"| `{message_id}` | `{code}` | {rule or '—'} | {', '.join(sorted(fields(template))) or '—'} | {template} |"
    assert row in DOC


@pytest.mark.parametrize("message_id", list(NOTATION_MESSAGES))
def test_every_notation_message_is_in_the_docs(message_id):
    template = NOTATION_MESSAGES[message_id]
    assert f"| `{message_id}` | {', '.join(sorted(fields(template))) or '—'} | {template} |" in DOC


@pytest.mark.parametrize("message_id", list(RULE_MESSAGES))
def test_templates_never_start_with_their_rule(message_id):
    code, rule, template = RULE_MESSAGES[message_id]
    assert not re.match(r"R\d+:", template), "the rule goes in front once, from error.rule"
    params = {name: 7 for name in fields(template)}
    error = refuse(message_id, **params)
    assert error.message == (f"{rule}: " if rule else "") + template.format(**params)
    assert error.message.count(f"{rule}:") <= 1
    assert (error.code, error.rule, error.params, error.message_id) == (code, rule, params, message_id)


def test_params_carry_the_values_of_the_message():
    state = placement_position(
        4, to_act=0, hands={0: [0, 1, 2, 3]}, board=board_with({(0, CARD_TO_LOT[S][0]): tower((BLUE, 3))})
    )
    takeover = rule_error(state, 0, PlacePiece(0, 0, 2))
    assert takeover.params == {"need": 3, "owner": "blue", "mine": 2}
    assert takeover.message_id == "takeover_too_small"
    not_held = rule_error(state, 0, PlacePiece(8, 0, 1))
    assert not_held.params == {"card": 9, "hand": "1, 2, 3, 4"}
    count = rule_error(new_game(4).state, 0, SelectPieces((1, 1, 2)))
    assert count.params == {"k": 6, "chosen": 3}
    assert count.as_dict()["params"] == {"k": 6, "chosen": 3}


def test_notation_errors_know_their_token_and_column():
    error = unreadable("unknown_word", text="k5 purple", position=3, token="purple")
    assert error.params == {"token": "purple", "column": 4}
    assert error.message == NOTATION_MESSAGES["unknown_word"].format(token="purple", column=4)

"""What the API fuzzer (tests/support/fuzz.py) draws as valid data is valid by the
API's rules, including those the OpenAPI schema cannot state, so a refusal it
reports is the server's mistake and not the generator's."""

from __future__ import annotations

from typing import Any

import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis import GenerationMode

from tests.support.fuzz import SCHEMATHESIS_CONFIG

# A body of one free string, as the schema gives POST /api/v1/webhooks its description.
ONE_STRING = {
    "openapi": "3.0.3",
    "info": {"title": "one string", "version": "1"},
    "paths": {
        "/notes": {
            "post": {
                "requestBody": {
                    "required": True,
                    "content": {
                        "application/json": {
                            "schema": {
                                "type": "object",
                                "properties": {"text": {"type": "string", "maxLength": 200}},
                                "required": ["text"],
                                "additionalProperties": False,
                            }
                        }
                    },
                },
                "responses": {"201": {"description": "noted"}},
            }
        }
    },
}


def test_valid_data_holds_no_nul_which_every_string_refuses():
    """NUL anywhere in a body is a 400 malformed_request (docs/api.md); drawn as valid
    data it showed as "POST /api/v1/webhooks refuses valid data"."""
    config = schemathesis.Config.from_dict(SCHEMATHESIS_CONFIG)
    operation = schemathesis.openapi.from_dict(ONE_STRING, config=config)["/notes"]["POST"]
    drawn: list[str] = []

    @settings(max_examples=500, database=None, derandomize=True, deadline=None, suppress_health_check=list(HealthCheck))
    @given(operation.as_strategy(GenerationMode.POSITIVE))
    def draw(case: Any) -> None:
        drawn.append(case.body["text"])

    draw()
    assert len(drawn) == 500
    assert [text for text in drawn if "\x00" in text] == []

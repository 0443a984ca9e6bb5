"""The problem codes games answers with: the services' refusals and the engine's.

Declared for the API layer's registry (``manhattan_site.api.codes``), which
reads ``CODES`` from this module of every installed app. The engine's refusals are
described from the engine's own message catalogue, so a new rule message needs
no entry here; a new engine code answers 422 unless it is listed below.
"""

from __future__ import annotations

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from games.engine.messages import NOTATION_MESSAGES, RULE_MESSAGES
from manhattan_site.api.codes import ErrorCode

SERVICE_CODES: dict[str, tuple[int, Promise]] = {
    "already_seated": (409, _("You already sit in this game.")),
    "bad_after": (400, _("The 'after' query parameter must be a whole number.")),
    "bad_idempotency_key": (400, _("The Idempotency-Key header must be 1 to 200 printable ASCII characters.")),
    "bad_if_match": (400, _("If-Match must hold one quoted version, as the ETag gives it.")),
    "bad_notation": (422, _("The move notation could not be read; 'pointer' shows where.")),
    "bad_option": (422, _("A game option is not valid; 'detail' says which and why.")),
    "bad_pace": (422, _("The pace is one of fast, normal and slow.")),
    # Answered by the game page's presence beacon (games/web/presence.py).
    "bad_page_id": (400, _("The game page's presence id must be up to 64 letters, digits or dashes.")),
    "bad_reminders": (422, _("The reminder policy is not valid (hours out of range).")),
    "bad_seats": (422, _("The seats do not fit the game: their number or kinds are wrong.")),
    "unknown_bot": (
        422,
        _("A bot seat names a bot or bot level the server does not have; 'choices' lists those it has."),
    ),
    "corrupt_log": (409, _("The game's log no longer folds; an operator has been told. Nothing was changed.")),
    "game_abandoned": (409, _("An operator abandoned this game; it takes no more actions.")),
    "game_active": (409, _("The game has started; this is only possible before.")),
    "game_lobby": (409, _("The game has not started yet.")),
    "game_not_finished": (
        409,
        _("The game is not finished yet: only a finished game has a record or a rematch."),
    ),
    "game_not_found": (404, _("There is no game with this id, or it is not a UUID.")),
    "game_started": (409, _("The game has started; seats cannot change any more.")),
    "idempotency_key_reused": (422, _("This Idempotency-Key was used with another request body.")),
    "no_seat": (403, _("There is no such seat, or nobody sits in it.")),
    "no_such_event": (404, _("The game has no event with this number yet.")),
    "not_a_player": (403, _("Only the players of the game may do this.")),
    "not_creator": (403, _("Only the game's creator may do this.")),
    "not_invited": (403, _("This seat waits for someone else.")),
    "precondition_failed": (
        412,
        _("If-Match names a version the game has moved past; see 'current_version'."),
    ),
    "reason_required": (422, _("An operator's undo needs a reason.")),
    "review_not_available": (
        409,
        _(
            "There is no review of this game: it is not finished, or this server does not "
            "review such games (GAME_REVIEW), or its review failed."
        ),
    ),
    "seats_open": (409, _("Seats are still open; fill or remove them first.")),
    "stale_version": (
        409,
        _("The action was made against a version the game has moved past; see 'current_version'."),
    ),
    "version_required": (428, _("Say which version the action was made against: If-Match or 'expected_version'.")),
    "versions_disagree": (422, _("If-Match and 'expected_version' name different versions.")),
}
# The engine's codes that are not a plain refusal of the action (422).
ENGINE_STATUSES = {"game_finished": 409, "undo_forbidden": 403}
RULES_REFUSE = _("The rules refuse this action.")
ENGINE_REFUSES = _("The engine refuses this action.")


def _engine_codes() -> list[ErrorCode]:
    """The engine's refusals, one entry per code, with every rule and message it covers."""
    grouped: dict[str, tuple[set[str], list[str]]] = {}
    for code, rule, template in RULE_MESSAGES.values():
        rules, examples = grouped.setdefault(code, (set(), []))
        if rule:
            rules.add(rule)
        examples.append(template)
    entries = []
    for code, (rules, examples) in grouped.items():
        status, description = SERVICE_CODES.get(code, (ENGINE_STATUSES.get(code, 422), None))
        entries.append(
            ErrorCode(
                code,
                status,
                description or (RULES_REFUSE if rules else ENGINE_REFUSES),
                rules=tuple(sorted(rules, key=lambda r: int(r[1:]))),
                examples=tuple(examples),
            )
        )
    return entries


def _service_codes() -> list[ErrorCode]:
    engine = {code for code, _rule, _template in RULE_MESSAGES.values()}
    return [
        ErrorCode(
            code,
            status,
            description,
            examples=tuple(NOTATION_MESSAGES.values()) if code == "bad_notation" else (),
        )
        for code, (status, description) in SERVICE_CODES.items()
        if code not in engine
    ]


CODES = [*_engine_codes(), *_service_codes()]

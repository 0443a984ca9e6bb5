"""Every problem ``code`` the API answers with, described for client developers.

A problem's ``type`` is ``/api/v1/problems/<code>``; that URL shows the
entry below (HTML for a browser, JSON for a client). The engine's refusals
are described from the engine's own message catalogue, so a new rule message
needs no entry here.
"""

from __future__ import annotations

from dataclasses import dataclass

from games.engine.messages import NOTATION_MESSAGES, RULE_MESSAGES

from .problems import DRF_CODES, status_for


@dataclass(frozen=True)
class ProblemKind:
    code: str
    status: int
    description: str
    rules: tuple[str, ...] = ()
    examples: tuple[str, ...] = ()


SERVICE_CODES = {
    "already_seated": "You already sit in this game.",
    "bad_after": "The 'after' query parameter must be a whole number.",
    "bad_filter": "A list filter has a value the list does not know (see the parameter's enum).",
    "bad_idempotency_key": "The Idempotency-Key header must be 1 to 200 printable ASCII characters.",
    "bad_if_match": "If-Match must hold one quoted version, as the ETag gives it.",
    "bad_option": "A game option is not valid; 'detail' says which and why.",
    "bad_pace": "The pace is one of fast, normal and slow.",
    "bad_page_id": "The game page's presence id must be up to 64 letters, digits or dashes.",
    "bad_reminders": "The reminder policy is not valid (hours out of range).",
    "bad_seats": "The seats do not fit the game: their number or kinds are wrong.",
    "unknown_bot": "A bot seat names a bot or bot level the server does not have; 'choices' lists those it has.",
    "corrupt_log": "The game's log no longer folds; an operator has been told. Nothing was changed.",
    "game_abandoned": "An operator abandoned this game; it takes no more actions.",
    "game_active": "The game has started; this is only possible before.",
    "game_lobby": "The game has not started yet.",
    "game_not_finished": "The game is not finished yet: only a finished game has a record or a rematch.",
    "game_not_found": "There is no game with this id, or it is not a UUID.",
    "game_started": "The game has started; seats cannot change any more.",
    "idempotency_key_reused": "This Idempotency-Key was used with another request body.",
    "message_empty": "A table message needs some text (control characters do not count).",
    "message_too_long": "A table message has at most 'max_length' characters.",
    "mute_self": "You cannot mute yourself.",
    "no_seat": "There is no such seat, or nobody sits in it.",
    "no_such_event": "The game has no event with this number yet.",
    "not_a_player": "Only the players of the game may do this.",
    "not_creator": "Only the game's creator may do this.",
    "not_invited": "This seat waits for someone else.",
    "not_your_profile": "Only a player changes their own profile.",
    "opponent_not_found": "There is no player with the 'opponent' id, or their profile is hidden.",
    "player_not_found": "There is no player with this id, or their profile is hidden from you.",
    "precondition_failed": "If-Match names a version the game has moved past; see 'current_version'.",
    "reason_required": "An operator's undo needs a reason.",
    "review_not_available": "There is no review of this game: it is not finished, or this server does not "
    "review such games (GAME_REVIEW), or its review failed.",
    "seats_open": "Seats are still open; fill or remove them first.",
    "stale_version": "The action was made against a version the game has moved past; see 'current_version'.",
    "unknown_field": "The body has a field this endpoint does not take; 'field' names it.",
    "bad_last_event_id": "Last-Event-ID (or 'after') is not a cursor this stream gave out.",
    "insufficient_scope": "The token lacks the scope this endpoint needs (games:read, games:play, webhooks:manage).",
    "staff_not_bot": "An operator's account cannot be a bot account.",
    "fresh_sign_in_required": "Closing the account needs a browser session from a fresh sign-in link, not a token.",
    "body_not_allowed": "This request takes no body.",
    "streams_need_asgi": "Event streams are served by the ASGI server only; this server speaks WSGI.",
    "too_many_streams": "You have as many open event streams as allowed; close one first.",
    "versions_disagree": "If-Match and 'expected_version' name different versions.",
    "webhook_limit_reached": "You have as many webhook endpoints as allowed.",
    "webhook_not_found": "You have no webhook endpoint with this id.",
    "webhook_url_refused": "The webhook URL may not be called (see 'reason'): https only, no private addresses.",
    "too_many_messages": "You wrote too many table messages; wait 'Retry-After' seconds.",
    "version_required": "Say which version the action was made against: If-Match or 'expected_version'.",
    "database_unavailable": "The database was briefly unavailable; nothing was stored. Retry.",
    "body_too_large": "The request body is too large.",
    "malformed_request": "The body is not valid JSON.",
    "authentication_failed": "The token or session is not valid.",
    "not_authenticated": "Sign in or send 'Authorization: Bearer <token>'.",
    "forbidden": "You may not do this.",
    "not_found": "There is no such resource or endpoint.",
    "token_not_found": "You have no API token with this id.",
    "method_not_allowed": "This endpoint does not take this method.",
    "not_acceptable": "The API answers in JSON only.",
    "unsupported_media_type": "Send JSON ('Content-Type: application/json').",
    "throttled": "Too many requests; wait 'Retry-After' seconds.",
    "invalid": "The request is not valid; 'errors' names each field and what is wrong with it.",
    "bad_notation": "The move notation could not be read; 'pointer' shows where.",
}


def _engine_kinds() -> dict[str, ProblemKind]:
    """The engine's refusals, one entry per code, with every rule and message it covers."""
    grouped: dict[str, tuple[set[str], list[str]]] = {}
    for code, rule, template in RULE_MESSAGES.values():
        rules, examples = grouped.setdefault(code, (set(), []))
        if rule:
            rules.add(rule)
        examples.append(template)
    return {
        code: ProblemKind(
            code,
            status_for(code),
            "The rules refuse this action." if rules else "The engine refuses this action.",
            tuple(sorted(rules, key=lambda r: int(r[1:]))),
            tuple(examples),
        )
        for code, (rules, examples) in grouped.items()
    }


def all_kinds() -> dict[str, ProblemKind]:
    kinds = _engine_kinds()
    for code, description in SERVICE_CODES.items():
        engine_kind = kinds.get(code)
        examples = tuple(NOTATION_MESSAGES.values()) if code == "bad_notation" else ()
        kinds[code] = ProblemKind(
            code,
            _STATUS_OF_DRF.get(code) or status_for(code),
            description,
            engine_kind.rules if engine_kind else (),
            engine_kind.examples if engine_kind else examples,
        )
    return dict(sorted(kinds.items()))


# DRF's own errors carry their status; every other code's is in STATUS_BY_CODE.
_STATUS_OF_DRF = {code: int(getattr(error, "status_code", 400)) for error, code in DRF_CODES.items()}

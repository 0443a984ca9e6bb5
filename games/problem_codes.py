"""The problem codes games answers with: the services' refusals and the engine's.

Declared for the API layer's registry (``manhattan_site.api.codes``), which
reads ``CODES`` from this module of every installed app. The engine's refusals are
described from the engine's own message catalogue, so a new rule message needs
no entry here; a new engine code answers 422 unless it is listed below.
A code the web pages show has its ``page_text`` (what a player reads there) in
its entry, so a page keeps no wording table of its own.
"""

from __future__ import annotations

from dataclasses import replace

from django.utils.translation import gettext_lazy as _

from games.engine.messages import NOTATION_MESSAGES, RULE_MESSAGES
from manhattan_site.api.codes import ErrorCode

DECLARED: list[ErrorCode] = [
    ErrorCode(
        "already_seated",
        409,
        _("You already sit in this game."),
        page_text=_("You already have a seat in this game."),
    ),
    ErrorCode("bad_after", 400, _("The 'after' query parameter must be a whole number.")),
    ErrorCode("bad_idempotency_key", 400, _("The Idempotency-Key header must be 1 to 200 printable ASCII characters.")),
    ErrorCode("bad_if_match", 400, _("If-Match must hold one quoted version, as the ETag gives it.")),
    ErrorCode("bad_notation", 422, _("The move notation could not be read; 'pointer' shows where.")),
    ErrorCode("bad_option", 422, _("A game option is not valid; 'detail' says which and why.")),
    ErrorCode("bad_pace", 422, _("The pace is one of fast, normal and slow.")),
    # Answered by the game page's presence beacon (games/web/presence.py).
    ErrorCode("bad_page_id", 400, _("The game page's presence id must be up to 64 letters, digits or dashes.")),
    ErrorCode("bad_reminders", 422, _("The reminder policy is not valid (hours out of range).")),
    # The seats of a new game: one code for each way they can fail it.
    ErrorCode("bad_seats", 422, _("The number of seats is not the game's number of players.")),
    ErrorCode("creator_seated_twice", 422, _("The creator takes at most one seat (of kind 'me').")),
    ErrorCode(
        "creator_invited",
        422,
        _("The creator invited their own address; the creator's seat is of kind 'me'."),
        page_text=_("You cannot invite yourself: the first seat is yours."),
    ),
    ErrorCode(
        "duplicate_invitee",
        422,
        _("One address is invited to two seats ('email' says which); each invitee gets one seat."),
        page_text=_("%(email)s is invited to two seats; each invitee gets one seat."),
    ),
    ErrorCode("no_mail_domain", 422, _("An invitee's address has no mail domain (an IP address is not one).")),
    ErrorCode(
        "unknown_bot",
        422,
        _("A bot seat names a bot or bot level the server does not have; 'choices' lists those it has."),
    ),
    ErrorCode("corrupt_log", 409, _("The game's log no longer folds; an operator has been told. Nothing was changed.")),
    ErrorCode(
        "game_abandoned",
        409,
        _("An operator abandoned this game; it takes no more actions."),
        page_text=_("This game was abandoned."),
    ),
    ErrorCode("game_active", 409, _("The game has started; this is only possible before.")),
    ErrorCode("game_lobby", 409, _("The game has not started yet."), page_text=_("This game has not started yet.")),
    ErrorCode(
        "game_not_finished",
        409,
        _("The game is not finished yet: only a finished game has a record or a rematch."),
        page_text=_("A rematch is offered once the game is finished."),
    ),
    ErrorCode("game_not_found", 404, _("There is no game with this id, or it is not a UUID.")),
    ErrorCode(
        "game_started",
        409,
        _("The game has started; seats cannot change any more."),
        page_text=_("This game has already started."),
    ),
    ErrorCode("idempotency_key_reused", 422, _("This Idempotency-Key was used with another request body.")),
    ErrorCode(
        "no_seat",
        403,
        _("There is no such seat, or nobody sits in it."),
        page_text=_("There is no seat for you in this game."),
    ),
    ErrorCode("no_such_event", 404, _("The game has no event with this number yet.")),
    ErrorCode(
        "not_a_player",
        403,
        _("Only the players of the game may do this."),
        page_text=_("You have no seat in this game."),
    ),
    ErrorCode(
        "not_creator",
        403,
        _("Only the game's creator may do this."),
        page_text=_("Only the game's creator can start it."),
    ),
    ErrorCode(
        "not_invited",
        403,
        _("This seat waits for someone else."),
        page_text=_("You have no invitation to this game."),
    ),
    ErrorCode(
        "precondition_failed",
        412,
        _("If-Match names a version the game has moved past; see 'current_version'."),
    ),
    ErrorCode("reason_required", 422, _("An operator's undo needs a reason.")),
    ErrorCode(
        "review_not_available",
        409,
        _(
            "There is no review of this game: it is not finished, or this server does not "
            "review such games (GAME_REVIEW), or its review failed."
        ),
    ),
    ErrorCode(
        "seats_open",
        409,
        _("Seats are still open; fill or remove them first."),
        page_text=_("Every seat must be taken before the game starts."),
    ),
    ErrorCode(
        "stale_version",
        409,
        _("The action was made against a version the game has moved past; see 'current_version'."),
    ),
    ErrorCode(
        "version_required",
        428,
        _("Say which version the action was made against: If-Match or 'expected_version'."),
    ),
    ErrorCode("versions_disagree", 422, _("If-Match and 'expected_version' name different versions.")),
]
RULES_REFUSE = _("The rules refuse this action.")
ENGINE_REFUSES = _("The engine refuses this action.")
# The engine's codes that are not a plain refusal of the action (422), or that a page shows.
DECLARED += [
    ErrorCode("game_finished", 409, RULES_REFUSE, page_text=_("This game is over.")),
    ErrorCode("undo_forbidden", 403, ENGINE_REFUSES, page_text=_("Only an operator can undo a placement.")),
]


def _engine_codes(declared: dict[str, ErrorCode]) -> list[ErrorCode]:
    """The engine's refusals, one entry per code, with every rule and message it covers."""
    grouped: dict[str, tuple[set[str], list[str]]] = {}
    for code, rule, template in RULE_MESSAGES.values():
        rules, examples = grouped.setdefault(code, (set(), []))
        if rule:
            rules.add(rule)
        examples.append(template)
    return [
        replace(
            declared.get(code) or ErrorCode(code, 422, RULES_REFUSE if rules else ENGINE_REFUSES),
            rules=tuple(sorted(rules, key=lambda r: int(r[1:]))),
            examples=tuple(examples),
        )
        for code, (rules, examples) in grouped.items()
    ]


def _codes() -> list[ErrorCode]:
    declared = {entry.code: entry for entry in DECLARED}
    engine = _engine_codes(declared)
    services = [
        replace(entry, examples=tuple(NOTATION_MESSAGES.values())) if entry.code == "bad_notation" else entry
        for entry in DECLARED
        if entry.code not in {kind.code for kind in engine}
    ]
    return [*engine, *services]


CODES = _codes()

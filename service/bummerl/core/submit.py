"""SubmitAction's checks, in their one order (docs/DESIGN.md §3).

:meth:`~bummerl.core.matches.MatchService.submit_action` runs :func:`check_submit` on the version
this process holds when the action was chosen at it (a refusal there is decided again on a fresh
read, so that nothing is refused on a version another replica moved on from), else on a version
just read; the answer of a call past the token check follows from it in the same order on both,
after the seat's rate limit. :func:`check_retry` answers an action chosen at an older version.
Pure: no I/O.
"""

from __future__ import annotations

from bummerl.rules import IllegalActionError, MatchState
from bummerl.rules import MatchOverError as RulesMatchOverError

from .auth import authorize_seat
from .cache import Loaded
from .errors import (
    InvalidArgumentError,
    MatchOverError,
    NotYourTurnError,
    PermissionDeniedError,
    StaleVersionError,
    TimeoutLostError,
    UnauthenticatedError,
)
from .log import LogEntry, OutcomeKind

TOKEN_ERRORS = (InvalidArgumentError, UnauthenticatedError, PermissionDeniedError)
"""The refusals of the token check (a seat not at the table, a missing or unknown token, another
seat's or the admin's token): raised before anything is counted."""


def check_submit(ld: Loaded, seat: int, token: str | None, admin_hash: str | None, expected_version: int,
                 a: int, now: int) -> MatchState | Exception:
    """SubmitAction's checks of action id ``a`` on the version ``ld``, in their one order:

    1. the seat's token (:func:`~bummerl.core.auth.authorize_seat`; one of :data:`TOKEN_ERRORS`);
    2. the version the action was chosen at: StaleVersionError(``ld.version``) for another one
       (the caller answers with :func:`check_retry`);
    3. the end of the match: MatchOverError;
    4. the turn: NotYourTurnError;
    5. the clock at ``now`` (ms since the epoch): TimeoutLostError (the caller commits the
       timeout first);
    6. the action's legality: the engine's IllegalActionError.

    Returns the match after the action (a copy: ``ld`` is not changed) when every check passes,
    else the error of the first that fails, not raised."""
    try:
        authorize_seat(ld.meta, seat, token, admin_hash)
    except TOKEN_ERRORS as e:
        return e
    if expected_version != ld.version:
        return StaleVersionError(ld.version)
    before = ld.state
    if before.over:
        return MatchOverError("the match is over")
    if before.to_act != seat:
        return NotYourTurnError(f"it is not seat {seat}'s turn (seat {before.to_act} is to act)")
    if ld.clocks is not None and ld.clocks.expired(now):
        return TimeoutLostError(f"seat {seat} ran out of time: the deadline passed "
                                f"{now - ld.clocks.deadline_ms} ms before this action arrived")
    after = before.copy()
    try:
        after.apply(a)
    except IllegalActionError as e:
        return e
    except RulesMatchOverError:
        return MatchOverError("the match is over")
    return after


def check_retry(ld: Loaded, seat: int, expected_version: int, a: int) -> None:
    """For action id ``a`` of ``seat`` chosen at an older ``expected_version`` than ``ld``'s:
    passes when this very action of this seat was applied there (the answer is ``duplicate=True``);
    raises TimeoutLostError if the seat timed out there, MatchOverError once the match is over,
    else StaleVersionError(current)."""
    idx = expected_version - 1
    if 0 <= idx < len(ld.entries):
        done = LogEntry.of(ld.entries[idx])
        if done.seat == seat and done.action == a and done.outcome == OutcomeKind.NORMAL:
            return
        if done.seat == seat and done.outcome in (OutcomeKind.TIMEOUT, OutcomeKind.ABANDONED):
            raise TimeoutLostError(f"seat {seat} ran out of time at version {expected_version}; "
                                   f"the server applied the {ld.meta.get('timeout_policy')} policy")
    if ld.state.over:  # nothing to choose again: say so rather than "stale, fetch the current version"
        raise MatchOverError(f"the match is over (at version {ld.version})")
    raise StaleVersionError(ld.version)

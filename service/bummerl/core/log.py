"""The service's log of a match: one entry per commit after creation (docs/DESIGN.md §3).

Stored in the match's state blob as JSON arrays ``[seat, action, at_ms, deal, kind, think_ms,
clock_ms]``; entry ``i`` produced version ``i + 2`` (version 1 = created). Entries written before
time controls stop after ``deal`` (or ``at_ms``); :meth:`LogEntry.of` reads every length, and
:attr:`LogEntry.outcome` derives their kind. The stored form is unchanged: an entry is written as
the list :meth:`LogEntry.to_list` gives.

The outcome kinds (:class:`OutcomeKind`), the service outcomes that stand in a log entry instead
of an engine action (:class:`OutcomeAction`) and the reasons a seat may give for resigning
(:class:`ResignReason`) are string enums: each member *is* its stored string (``OutcomeKind.NORMAL
== "NORMAL"``), so stored JSON, the Lua scripts, the protobuf mapping and comparisons with plain
strings read from Redis keep working.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from typing import Any, NamedTuple

from bummerl.rules import MatchEnd
from bummerl.rules.match.state import FORFEIT_DEAL


class OutcomeKind(StrEnum):
    """Outcome kind of a log entry (proto ``OutcomeKind`` without its ``OUTCOME_KIND_`` prefix)."""

    NORMAL = "NORMAL"
    """An action the seat chose."""
    TIMEOUT = "TIMEOUT"
    """The seat's deadline passed: the match's timeout policy was applied."""
    RESIGN = "RESIGN"
    """A plain resignation."""
    ILLEGAL = "ILLEGAL"
    """A resignation its bot runner reported for an illegal action."""
    DISCONNECT = "DISCONNECT"
    """A resignation its bot runner reported for a crash or a lost connection."""
    ABANDONED = "ABANDONED"
    """Nobody acted within the idle limit, or an internal abandon (a stopped ladder)."""


class OutcomeAction(StrEnum):
    """A log entry's ``action`` that is a service outcome rather than an engine action id (action
    id -1 in records)."""

    RESIGN = "resign"
    """The seat resigned (kind RESIGN, ILLEGAL, DISCONNECT or TIMEOUT: :data:`RESIGN_REASONS`)."""
    FORFEIT_MATCH = "forfeit-match"
    """The seat lost the match on time (timeout policy ``forfeit-match``)."""
    FORFEIT_DEAL = "forfeit-deal"
    """The seat lost the deal on time (timeout policy ``forfeit-deal``)."""
    ABANDON = "abandon"
    """The match ended with no winner (kind ABANDONED)."""


class ResignReason(StrEnum):
    """The reason a client may give with a resignation (a bot runner's report)."""

    PLAIN = ""
    ILLEGAL = "illegal"
    DISCONNECT = "disconnect"
    TIMEOUT = "timeout"


RESIGN = OutcomeAction.RESIGN
OUTCOME_ACTIONS = tuple(OutcomeAction)
"""Log entries that are service outcomes rather than engine actions (action id -1 in records):
``("resign", "forfeit-match", "forfeit-deal", "abandon")``."""
OUTCOME_KINDS = tuple(OutcomeKind)
"""Outcome kind of each log entry (proto ``OutcomeKind``): ``("NORMAL", "TIMEOUT", "RESIGN",
"ILLEGAL", "DISCONNECT", "ABANDONED")``."""
RESIGN_REASONS: dict[str, tuple[MatchEnd, OutcomeKind]] = {
    ResignReason.PLAIN: (MatchEnd.RESIGNED, OutcomeKind.RESIGN),
    ResignReason.ILLEGAL: (MatchEnd.ILLEGAL, OutcomeKind.ILLEGAL),
    ResignReason.DISCONNECT: (MatchEnd.DISCONNECT, OutcomeKind.DISCONNECT),
    ResignReason.TIMEOUT: (MatchEnd.TIMEOUT, OutcomeKind.TIMEOUT),
}
"""Resign reasons a client may give -> (match end reason, record kind)."""


class LogEntry(NamedTuple):
    """One commit of a match.

    Attributes:
        seat: the seat that acted (or was charged with the outcome).
        action: an engine action id, or a service outcome of :data:`OUTCOME_ACTIONS`.
        at_ms: when it was committed, ms since the epoch.
        deal: the deal number it belongs to (-1 in the oldest entries).
        kind: the outcome kind of :data:`OUTCOME_KINDS`; "" in entries written before time controls
            (read :attr:`outcome`).
        think_ms: ms from the start of the seat's turn to the commit; -1 without a time control.
        clock_ms: the seat's main time after it (for a timeout: the time it had for the move), ms;
            -1 without a time control.
    """

    seat: int
    action: int | str
    at_ms: int
    deal: int = -1
    kind: str = ""
    think_ms: int = -1
    clock_ms: int = -1

    @classmethod
    def of(cls, raw: Sequence[Any]) -> LogEntry:
        """An entry from its stored array (any length from 3 to 7)."""
        return raw if isinstance(raw, LogEntry) else cls(*raw)

    @property
    def outcome(self) -> str:
        """The kind, derived for old entries: RESIGN for a resignation, else NORMAL."""
        if self.kind:
            return self.kind
        return OutcomeKind.RESIGN if self.action == RESIGN else OutcomeKind.NORMAL

    def to_list(self) -> list[Any]:
        """The stored form, ``[seat, action, at_ms, deal, kind, think_ms, clock_ms]``."""
        return list(self)


def log_actions(entries: Sequence[Sequence[Any]]) -> list[list[int]]:
    """The engine's action log (``MatchState.to_dict()["actions"]``: ``[[seat, action id], ...]``)
    from the service's log entries, which hold every action once: an engine action as its id, a deal
    forfeited on time (``"forfeit-deal"``) as ``FORFEIT_DEAL``; a concession (``"resign"``,
    ``"forfeit-match"``, ``"abandon"``) is no action (the log's ``ended`` holds it)."""
    out = []
    for raw in entries:
        e = LogEntry.of(raw)
        if isinstance(e.action, int):
            out.append([e.seat, e.action])
        elif e.action == OutcomeAction.FORFEIT_DEAL:
            out.append([e.seat, FORFEIT_DEAL])
    return out

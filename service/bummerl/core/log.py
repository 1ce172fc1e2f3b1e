"""The service's log of a match: one entry per commit after creation (docs/DESIGN.md §3).

Stored in the match's state blob as JSON arrays ``[seat, action, at_ms, deal, kind, think_ms,
clock_ms]``; entry ``i`` produced version ``i + 2`` (version 1 = created). Entries written before
time controls stop after ``deal`` (or ``at_ms``); :meth:`LogEntry.of` reads every length, and
:attr:`LogEntry.outcome` derives their kind. The stored form is unchanged: an entry is written as
the list :meth:`LogEntry.to_list` gives.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from bummerl.rules.match.state import FORFEIT_DEAL

RESIGN = "resign"
OUTCOME_ACTIONS = ("resign", "forfeit-match", "forfeit-deal", "abandon")
"""Log entries that are service outcomes rather than engine actions (action id -1 in records)."""
OUTCOME_KINDS = ("NORMAL", "TIMEOUT", "RESIGN", "ILLEGAL", "DISCONNECT", "ABANDONED")
"""Outcome kind of each log entry (proto ``OutcomeKind``)."""


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
        return "RESIGN" if self.action == RESIGN else "NORMAL"

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
        elif e.action == "forfeit-deal":
            out.append([e.seat, FORFEIT_DEAL])
    return out

"""The stored form of a match: its state blob, its meta and its event payloads (docs/DESIGN.md §3).

Stored per match (``bm:{<id>}:state``): the state blob is JSON
``{"snapshot": MatchState.snapshot(log_actions=False), "entries": [[seat, action, ts_ms, deal_number,
kind, think_ms, clock_ms], ...] (:class:`~bummerl.core.log.LogEntry`), "clocks": {...} | null,
"deadline_ms": int}`` where entry ``i`` produced version ``i + 2`` (version 1 = created). ``action``
is an action id or a service outcome (:data:`~bummerl.core.log.OUTCOME_ACTIONS`: ``"resign"``,
``"forfeit-match"``, ``"forfeit-deal"``, ``"abandon"``); ``kind`` is the outcome kind
(:data:`~bummerl.core.log.OUTCOME_KINDS`: NORMAL, TIMEOUT, RESIGN, ILLEGAL, DISCONNECT, ABANDONED);
``think_ms`` the time from the start of the seat's turn to the commit and ``clock_ms`` the seat's
main time after it (for a timeout: the time it had for the move), both -1 without a time control.
The snapshot holds the log (seed, decks, first dealer, actions: the source of truth, which replays
to the same state; its actions are not stored twice: the entries hold them and
:func:`~bummerl.core.log.log_actions` puts them back on load, while blobs written before still
carry them) and the state it produces, so a request restores it without replaying; a snapshot
whose ``layout`` tag is not this engine's (another deploy added a state field) is restored by
replaying the log (:meth:`MatchState.restore`). Blobs and events are encoded with orjson; events
are ``Event`` dicts (:mod:`bummerl.rules.base.views`), and those an earlier version stored as
``{"type": ...}`` are read back in that shape (:func:`bummerl.rules.base.events.upgrade_event`).

Meta: ``seat_tokens`` (SHA-256 hex of each seat token, never the token), ``seats`` (names),
``variant``, ``created_at_ms``, ``over``, ``time_control`` (:class:`~bummerl.core.clocks.TimeControl`
dict or null), ``timeout_policy`` (:class:`~bummerl.core.clocks.TimeoutPolicy`), ``idle_limit_ms``,
``commit`` and ``prev_commit`` (a fresh token per write and the one it replaced:
:mod:`bummerl.core.cache`).
"""

from __future__ import annotations

from typing import Any

import orjson

from bummerl.rules import MatchState
from bummerl.rules.base.views import Event
from bummerl.store import StoredMatch

from .cache import Loaded
from .clocks import Clocks, TimeControl
from .log import log_actions


def _json_default(obj: Any) -> Any:
    """orjson's fallback: named tuples (e.g. ``DealOutcome``) as arrays, like ``json.dumps``."""
    if isinstance(obj, tuple):
        return list(obj)
    raise TypeError(f"cannot store a {type(obj).__name__} as JSON")


def encode_blob(m: MatchState, entries: list[list[Any]], clocks: Clocks | None, deadline_ms: int) -> bytes:
    """The state blob of a version: the snapshot of ``m`` without its actions, the log ``entries``,
    the clocks (None: no time control) and the deadline (ms since the epoch, -1 = none)."""
    blob = {"snapshot": m.snapshot(log_actions=False), "entries": entries,
            "clocks": clocks.to_dict() if clocks else None, "deadline_ms": deadline_ms}
    return orjson.dumps(blob, default=_json_default)


def event_bytes(e: Event) -> bytes:
    """The stored payload of one public event."""
    return orjson.dumps(e, default=_json_default)


def decode(stored: StoredMatch) -> Loaded:
    """A stored version as the process holds it: the state restored from the snapshot (the
    actions put back from the entries when the blob holds them once), the clocks of its time
    control."""
    blob = orjson.loads(stored.state)
    log = blob["snapshot"].get("log")
    if isinstance(log, dict) and "actions" not in log:  # stored once, in the entries
        log["actions"] = log_actions(blob["entries"])
    tc = TimeControl.from_dict(stored.meta.get("time_control"))
    clocks = Clocks.from_dict(tc, blob["clocks"]) if tc and blob.get("clocks") else None
    return Loaded(stored.version, MatchState.restore(blob["snapshot"]), blob["entries"], stored.meta,
                  clocks, int(blob.get("deadline_ms", -1)))

"""The typed log entry (every stored length reads) and the per-process version cache."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from bummerl.core.log import LogEntry, log_actions
from bummerl.core.versions import VersionCache
from bummerl.rules.match.state import FORFEIT_DEAL


def test_entries_of_every_stored_length_read_with_their_outcome() -> None:
    old = LogEntry.of([1, "resign", 1000])  # before deal numbers and time controls
    assert (old.seat, old.action, old.at_ms, old.deal, old.outcome, old.think_ms) == (1, "resign", 1000, -1, "RESIGN", -1)
    assert LogEntry.of([0, 17, 5, 2]).outcome == "NORMAL"
    full = LogEntry.of([0, "forfeit-deal", 9, 3, "TIMEOUT", 400, 0])
    assert (full.outcome, full.think_ms, full.clock_ms) == ("TIMEOUT", 400, 0)
    assert full.to_list() == [0, "forfeit-deal", 9, 3, "TIMEOUT", 400, 0]  # the stored form is unchanged
    assert log_actions([[0, 17, 5], [1, "resign", 6], full]) == [[0, 17], [0, FORFEIT_DEAL]]


@dataclass
class _Held:
    version: int
    meta: dict[str, Any] = field(default_factory=dict)


def test_the_cache_keeps_the_newest_and_a_version_written_again_after_a_lost_write() -> None:
    cache: VersionCache[_Held] = VersionCache(size=2)
    cache.remember("m", _Held(3, {"commit": "a"}))
    cache.remember("m", _Held(2, {"commit": "b"}))  # an older load finishing late: kept out
    assert cache["m"].version == 3
    cache.remember("m", _Held(3, {"commit": "c"}))  # version 3 made again with other content
    assert cache["m"].meta["commit"] == "c"
    cache.remember("x", _Held(1))
    cache.touch("m")
    cache.remember("y", _Held(1))  # least recently used ("x") goes
    assert cache.get("x") is None and cache.get("m") is not None and len(cache) == 2
    cache.forget("m")
    assert cache.get("m") is None

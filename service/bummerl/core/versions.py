"""The per-process cache of the newest known version of each match (docs/DESIGN.md §3).

A stored version never changes (the commit is a compare-and-set on the version and on its commit
token), so a process may keep what it last committed or loaded and answer from it: a load then
asks Redis for the blob only when the match has moved on (``MatchStore.load_if_changed``), and a
SubmitAction at the version held skips the load altogether. After a Redis failover lost a write,
the same version number may be written again with other content: the commit token (meta
``commit``) tells the two apart, so :meth:`VersionCache.remember` replaces a held version by
another of the same number.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any, Generic, Protocol, TypeVar

LATEST_CACHE = 1024
"""Matches whose newest known version each process keeps (read-only: streams use it without a
read; every other load sends only the version when it is still current)."""


class Held(Protocol):
    """What the cache keeps per match: a version and the meta of that version."""

    @property
    def version(self) -> int: ...

    @property
    def meta(self) -> dict[str, Any]: ...


H = TypeVar("H", bound=Held)


class VersionCache(Generic[H]):
    """At most ``size`` matches, least recently used dropped first. Callers never mutate what they
    put in (the write path copies the state and builds new lists)."""

    def __init__(self, size: int = LATEST_CACHE) -> None:
        self.size = size
        self._latest: OrderedDict[str, H] = OrderedDict()

    def get(self, match_id: str) -> H | None:
        """The held version of a match, or None."""
        return self._latest.get(match_id)

    def touch(self, match_id: str) -> None:
        """Mark a match as just used (it is dropped last)."""
        self._latest.move_to_end(match_id)

    def forget(self, match_id: str) -> None:
        """Drop a match (it is gone from Redis)."""
        self._latest.pop(match_id, None)

    def remember(self, match_id: str, held: H) -> None:
        """Keep ``held`` if it is newer than what is held, or the same version number written again
        with another commit token (after a lost write); else keep what is held."""
        old = self._latest.get(match_id)
        if old is None or old.version < held.version or (
                old.version == held.version and old.meta.get("commit") != held.meta.get("commit")):
            self._latest[match_id] = held
        self._latest.move_to_end(match_id)
        while len(self._latest) > self.size:
            self._latest.popitem(last=False)

    def __getitem__(self, match_id: str) -> H:
        """The held version of a match; KeyError if none."""
        return self._latest[match_id]

    def __len__(self) -> int:
        return len(self._latest)

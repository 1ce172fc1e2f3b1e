"""What a server process keeps of the matches it serves, so that it reads and builds less
(docs/DESIGN.md §3): :class:`MatchCache`, which :class:`~bummerl.core.matches.MatchService` and
:class:`~bummerl.core.spectate.Spectators` ask.

**What is kept.** Per match, the newest version this process committed or read (:class:`Loaded`:
the restored state, the log entries, the meta, the clocks, the deadline) with its scratch data:
the events of the commit that made it (when this process made it), the information sets built at
it, the API layer's memo of that version, and the deal's public history views (one dict per
history entry, shared by every seat and every version of the deal, with the API layer's memo of
their encodings). Besides, the commits of this process still in flight, so that a stream woken by
one waits for it instead of reading the match.

**For how long.** The newest version of at most :data:`~bummerl.core.versions.LATEST_CACHE`
matches, the least recently used dropped first (:class:`~bummerl.core.versions.VersionCache`); a
version goes, with its scratch data, when a newer one is remembered, and a match when it is gone
from Redis (:meth:`MatchCache.forget`). The history views carry over from version to version until
the deal ends. A commit counts as in flight until its compare-and-set has answered.

**Why it is safe with any number of replicas.** A stored version never changes: every commit is
a compare-and-set on the version and on its commit token (meta ``commit``, new for each write), so
what a process holds is a copy of an immutable value, never a claim about which version is
current. Whatever depends on that asks Redis, which decides: a load sends the version held and its
token and gets the blob only when the match has moved on
(:meth:`~bummerl.store.MatchStore.load_if_changed`); a SubmitAction at the version held is committed
without a read, and the compare-and-set refuses it when another replica moved the match on (the
answer then comes from a fresh read). After a Redis failover lost a write, the same version number
may be written again with other content: the commit token tells the two apart and the held one is
replaced. Nothing here is shared between processes, so nothing needs invalidating.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, cast

from bummerl.rules import MatchState, history_views, information_set
from bummerl.rules.base.views import TIME_CONTROL_SCOPES, Clock, Event, InformationSet

from .clocks import Clocks
from .versions import LATEST_CACHE, VersionCache

COMMIT_WAIT_S = 0.05
"""Longest wait of a stream, in **seconds**, for a commit of this process in flight before it
reads the match instead (:meth:`MatchCache.settled`)."""


@dataclass
class Loaded:
    """One stored version of a match as this process holds it (never mutated once built, but for
    ``views``, ``memo`` and ``history``, which only ever gain entries). ``events``: the events of
    the commit that made this version, when this process made it (else None); ``views``: the
    information sets built at this version, by seat (only without a time control: with one, the
    clocks make each answer differ); ``memo``: :attr:`~bummerl.core.matches.Update.memo` of this
    version's updates; ``history``: the public history views of the deal shown
    (:func:`~bummerl.rules.history_views`), carried from the previous version this process held and
    extended when an information set is built, so that every seat and version of a deal shares one
    dict per history entry; ``history_memo``: :attr:`~bummerl.core.matches.Update.history_memo`,
    carried with ``history``."""

    version: int
    state: MatchState
    entries: list[list[Any]]
    meta: dict[str, Any]
    clocks: Clocks | None = None
    deadline_ms: int = -1
    events: list[Event] | None = None
    views: dict[int, InformationSet] = field(default_factory=dict)
    memo: dict[int, Any] = field(default_factory=dict)
    history: tuple[Event, ...] = ()
    history_memo: dict[int, Any] = field(default_factory=dict)


class MatchCache:
    """The newest version of each match this process holds, its commits in flight and the
    information sets built from what it holds (see the module docstring). ``now_ms``: the
    service's clock (ms since the epoch: the clocks of an information set are computed when it is
    built); ``size``: matches held. ``versions``: the :class:`VersionCache` itself."""

    def __init__(self, now_ms: Callable[[], int], size: int = LATEST_CACHE) -> None:
        self.now_ms = now_ms
        self.versions: VersionCache[Loaded] = VersionCache(size)
        self._committing: dict[str, asyncio.Future[None]] = {}

    # ------------------------------------------------------------------ versions held
    def get(self, match_id: str) -> Loaded | None:
        """The version of the match this process holds, or None."""
        return self.versions.get(match_id)

    def at_least(self, match_id: str, version: int) -> Loaded | None:
        """The held version of the match if it is ``version`` or newer (no read needed), else None."""
        held = self.versions.get(match_id)
        return held if held is not None and held.version >= version else None

    def touch(self, match_id: str) -> None:
        """The held version is still the stored one (Redis said so): mark it as just used."""
        self.versions.touch(match_id)

    def forget(self, match_id: str) -> None:
        """Drop the match (it is gone from Redis)."""
        self.versions.forget(match_id)

    def remember(self, match_id: str, ld: Loaded) -> None:
        """Hold ``ld`` as this process's newest known version of the match (:meth:`VersionCache.remember`:
        kept if newer than the held one, or the same version written again with another commit token)."""
        self.versions.remember(match_id, ld)

    def read(self, match_id: str, ld: Loaded, held: Loaded | None) -> Loaded:
        """Hold ``ld``, just read from the store while this process held ``held`` (None: nothing),
        and return it. The deal's history views grow by appending, so they carry over from
        ``held`` only when ``ld`` follows it directly (its meta ``prev_commit`` is ``held``'s
        ``commit``)."""
        if (held is not None and ld.version == held.version + 1
                and ld.meta.get("prev_commit") == held.meta.get("commit")):
            ld.history, ld.history_memo = held.history, held.history_memo
        self.remember(match_id, ld)
        return ld

    def committed(self, match_id: str, held: Loaded, version: int, state: MatchState, entries: list[list[Any]],
                  meta: dict[str, Any], clocks: Clocks | None, deadline_ms: int, events: list[Event]) -> Loaded:
        """Hold and return the version this process just committed on top of ``held``, with the
        ``events`` of that commit and ``held``'s history views (the stream of a seat then sends
        the version without reading it)."""
        new = Loaded(version, state, entries, meta, clocks, deadline_ms, events,
                     history=held.history, history_memo=held.history_memo)
        self.versions.remember(match_id, new)
        return new

    # ------------------------------------------------------------------ commits in flight
    def begin_commit(self, match_id: str) -> asyncio.Future[None]:
        """Mark a commit of the match in flight (:meth:`settled` waits for it) until
        :meth:`end_commit` with the future returned, which the committer calls in a ``finally``."""
        done = asyncio.get_running_loop().create_future()
        self._committing[match_id] = done
        return done

    def end_commit(self, match_id: str, done: asyncio.Future[None]) -> None:
        """The commit :meth:`begin_commit` marked has answered (or failed): wake who waits for it."""
        if self._committing.get(match_id) is done:
            del self._committing[match_id]
        done.set_result(None)

    async def settled(self, match_id: str, version: int) -> Loaded | None:
        """:meth:`at_least` ``version``, after waiting up to :data:`COMMIT_WAIT_S` for a commit of
        this process in flight when the held version is older (the commit that woke a stream is
        finishing here); None = read the match."""
        held = self.versions.get(match_id)
        if held is None or held.version < version:
            pending = self._committing.get(match_id)
            if pending is not None:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(asyncio.shield(pending), COMMIT_WAIT_S)
                held = self.versions.get(match_id)
        return held if held is not None and held.version >= version else None

    # ------------------------------------------------------------------ information sets
    def infoset(self, match_id: str, ld: Loaded, seat: int) -> InformationSet:
        """The seat's information set at ``ld.version``, with ``match_id``, ``version``, the clocks
        of every seat at this moment (``clocks``: proto ``Clock`` dicts, remaining ms computed at the
        time of sending) and the ``time_control``; no clocks without a time control. Without a
        time control the answer is built once per version and seat (``ld.views``) and shared by
        every caller (the SubmitAction answer, the seat's stream), who must not change it."""
        if ld.clocks is None:
            got = ld.views.get(seat)
            if got is None:
                got = ld.views[seat] = self.build_infoset(match_id, ld, seat)
            return got
        return self.build_infoset(match_id, ld, seat)

    def build_infoset(self, match_id: str, ld: Loaded, seat: int) -> InformationSet:
        """A new information set of the seat at ``ld.version`` (:meth:`infoset` without the memo)."""
        return self.stamp(information_set(ld.state, seat, self.shared_history(ld)), match_id, ld)

    @staticmethod
    def shared_history(ld: Loaded) -> tuple[Event, ...]:
        """The deal's public history views at ``ld.version`` (:func:`history_views`), kept with
        the loaded match and grown version by version, so that every seat's information set and
        the public view of every version of a deal hold the same dicts (encoded once by identity,
        ``ld.history_memo``, which starts anew with each deal)."""
        known = ld.history
        ld.history = history_views(ld.state, known)
        if known and (not ld.history or ld.history[0] is not known[0]):
            ld.history_memo = {}  # another deal: new history dicts, the old ones' encodings go
        return ld.history

    def stamp(self, d: InformationSet, match_id: str, ld: Loaded) -> InformationSet:
        """``d`` (an information set or public view of ``ld.state``) with ``match_id``, ``version``
        and, under a time control, the clocks now and the ``time_control``."""
        d["match_id"] = match_id
        d["version"] = ld.version
        if ld.clocks is not None:
            tc = ld.clocks.tc
            d["clocks"] = cast(list[Clock], ld.clocks.view(self.now_ms()))
            d["time_control"] = {"base_ms": tc.base_ms, "increment_ms": tc.increment_ms, "move_cap_ms": tc.move_cap_ms,
                                 "lag_compensation_ms": tc.lag_compensation_ms, "scope": TIME_CONTROL_SCOPES[tc.scope],
                                 "bank_ms": tc.bank_ms}
        return d

"""One follower per watched match and process (:class:`MatchFeed`, :class:`Feeds`): however many
spectators watch a match, this process waits on the match's events once, loads each new version
once and decodes each event once; every spectator of the match then waits on the feed (one
``asyncio.Event`` per new version), not on Redis. A spectator that is slow to take its frames is
never queued for: when it comes back it takes the newest version with every event since its last
frame (:meth:`MatchFeed.events_between`), so the feed holds no per-spectator backlog. The frames
themselves are built (once per version and frame kind) by :mod:`bummerl.core.spectate`.
"""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import orjson

from bummerl.rules.base.events import upgrade_event
from bummerl.rules.base.views import Event

from .cache import Loaded

log = logging.getLogger(__name__)

Load = Callable[[str], Awaitable[Loaded]]
"""``MatchService._load``: the newest stored version of a match."""
EventsSince = Callable[[str, int], Awaitable[list[tuple[int, bytes]]]]
"""``MatchStore.events_since``: stored ``(version, payload)`` after a version, oldest first."""
WaitEvents = Callable[[str, int, int], Awaitable[list[tuple[int, bytes]]]]
"""``StreamHub.wait_events``: the events after a version, waiting up to a timeout (ms)."""
Held = Callable[[str, int], Awaitable[Loaded | None]]
"""``MatchCache.settled``: the version this process holds, if at least the given one (after a
commit of this process in flight finished)."""


FRAME_VERSIONS = 4
"""Loaded versions whose frames a feed keeps (a spectator still sending an older version's frame,
its update spread, finds it built)."""


class MatchFeed:
    """What this process knows of one watched match: :attr:`ld` (the newest version loaded),
    every public event of versions 1 .. :attr:`seen` (decoded once), and :attr:`frames`, a scratch
    dict for the frames built at the newest :data:`FRAME_VERSIONS` loaded versions (keyed by the
    loaded version first; older ones go when a newer version arrives) so that spectators who get
    the same frame share one object and its encodings."""

    def __init__(self, match_id: str, ld: Loaded) -> None:
        self.match_id = match_id
        self.ld = ld
        self.seen = 0
        self.frames: dict[Any, Any] = {}
        self.watchers = 0
        self.error: BaseException | None = None
        self.task: asyncio.Task[None] | None = None
        self._versions: list[int] = []
        self._events: list[Event] = []
        self._changed = asyncio.Event()
        self.ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def add_events(self, got: list[tuple[int, bytes]]) -> None:
        """Decode and keep the stored events of versions after :attr:`seen` (a version without a
        public event has one empty payload, :data:`bummerl.store.keys.NO_EVENT`: nothing to keep)."""
        spec = self.ld.state.rules.spec
        sizes = [spec.hand_size] * spec.num_players
        top = self.seen
        for v, p in got:
            if v <= self.seen:
                continue
            top = max(top, v)
            if p:
                self._versions.append(v)
                self._events.append(upgrade_event(orjson.loads(p), sizes))
        self.seen = top

    def events_between(self, after: int, upto: int) -> list[Event]:
        """The events of versions ``after`` < v <= ``upto``, oldest first (a new list)."""
        return self._events[bisect.bisect_right(self._versions, after):bisect.bisect_right(self._versions, upto)]

    def publish(self, ld: Loaded) -> None:
        """A newer version: keep it, drop the frames of versions :data:`FRAME_VERSIONS` older,
        wake every waiting spectator."""
        self.ld = ld
        self.frames = {k: f for k, f in self.frames.items() if k[0] > ld.version - FRAME_VERSIONS}
        self._wake()

    def fail(self, error: BaseException) -> None:
        """The follower stopped on ``error``: every spectator of the feed gets it."""
        self.error = error
        self._wake()

    def _wake(self) -> None:
        changed, self._changed = self._changed, asyncio.Event()
        changed.set()

    async def newer_than(self, version: int) -> Loaded:
        """The feed's newest version once it is newer than ``version`` (at once if it is).
        Raises the follower's error."""
        while self.error is None and self.ld.version <= version:
            await self._changed.wait()
        if self.error is not None:
            raise self.error
        return self.ld

    @property
    def finished(self) -> bool:
        """The match is over at :attr:`ld`: nothing newer will come."""
        return bool(self.ld.state.over)


class Feeds:
    """The feeds of the matches this process's spectators watch (:meth:`join`, :meth:`leave`).
    ``load``, ``events_since``, ``wait_events``, ``held``: the match service's reads (see the
    type aliases of this module); ``poll_ms``: longest wait on the match's events before looking
    again, ms."""

    def __init__(self, load: Load, events_since: EventsSince, wait_events: WaitEvents, held: Held,
                 poll_ms: int) -> None:
        self._load = load
        self._events_since = events_since
        self._wait_events = wait_events
        self._held = held
        self.poll_ms = poll_ms
        self._feeds: dict[str, MatchFeed] = {}

    def __len__(self) -> int:
        return len(self._feeds)

    def get(self, match_id: str) -> MatchFeed | None:
        """The feed of a watched match, if any (for tests and metrics)."""
        return self._feeds.get(match_id)

    async def join(self, match_id: str, ld: Loaded) -> MatchFeed:
        """The match's feed, counting one more spectator of it (call :meth:`leave` once, also when
        this raises nothing but the caller stops). The first spectator of a match starts it with
        ``ld`` (the version it loaded) and one read of the match's events; later ones share it.
        Raises the Redis errors of that read (the spectator is then not counted)."""
        feed = self._feeds.get(match_id)
        if feed is None or (feed.error is not None and feed.ready.done()):
            feed = self._feeds[match_id] = MatchFeed(match_id, ld)
            feed.task = asyncio.create_task(self._run(feed), name="bummerl-watch-feed")
        feed.watchers += 1
        try:
            await asyncio.shield(feed.ready)
        except BaseException:
            self.leave(feed)
            raise
        return feed

    def leave(self, feed: MatchFeed) -> None:
        """One spectator of ``feed`` is gone; the last one stops its follower."""
        feed.watchers -= 1
        if feed.watchers <= 0:
            if self._feeds.get(feed.match_id) is feed:
                del self._feeds[feed.match_id]
            if feed.task is not None and not feed.task.done():
                feed.task.cancel()

    async def _run(self, feed: MatchFeed) -> None:
        try:
            feed.add_events(await self._events_since(feed.match_id, 0))
            feed.seen = max(feed.seen, feed.ld.version)
        except asyncio.CancelledError:
            raise
        except Exception as e:  # noqa: BLE001 - handed to the spectators, who answer its status
            feed.error = e
            if self._feeds.get(feed.match_id) is feed:
                del self._feeds[feed.match_id]
            feed.ready.set_exception(e)
            feed.ready.exception()  # retrieved: spectators gone meanwhile leave no "never retrieved" log
            return
        feed.ready.set_result(None)
        try:
            await self._follow(feed)
        except asyncio.CancelledError:
            raise
        except Exception as e:  # noqa: BLE001 - handed to the spectators, who answer its status
            if self._feeds.get(feed.match_id) is feed:
                del self._feeds[feed.match_id]
            feed.fail(e)

    async def _follow(self, feed: MatchFeed) -> None:
        match_id = feed.match_id
        # the first read may already hold events of a version newer than the one loaded (a commit
        # between the load and the read, maybe the last): load it before waiting for more
        fresh = feed.seen > feed.ld.version
        while not feed.finished:
            if not fresh:
                got = await self._wait_events(match_id, feed.seen, self.poll_ms)
                if not got:
                    continue
                feed.add_events(got)
            fresh = False
            # a version this process holds (or is committing) is immutable: no read, and the
            # seats' information sets of it share its history dicts with the public view
            held = await self._held(match_id, feed.seen)
            ld = held if held is not None else await self._load(match_id)
            if ld.version > feed.seen:  # commits landed after the events we were handed: no gap
                feed.add_events([(v, p) for v, p in await self._events_since(match_id, feed.seen) if v <= ld.version])
                feed.seen = max(feed.seen, ld.version)
            if ld.version > feed.ld.version:
                feed.publish(ld)

    async def aclose(self) -> None:
        """Stop every follower (spectators still waiting keep waiting; for shutdown and tests)."""
        for feed in list(self._feeds.values()):
            if feed.task is not None:
                feed.task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await feed.task
        self._feeds.clear()

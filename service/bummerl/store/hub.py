"""One reader per process that hands the events of every commit to any number of waiting streams.

Without it every open ``StreamMatch`` holds a Redis connection in ``XREAD BLOCK``; a few hundred
streams exhaust a connection pool and shut every other request out. The :class:`StreamHub` keeps
one dedicated connection blocked on the **commit feed** (:data:`~bummerl.store.keys.FEED_KEY`), the
one stream to which ``commit.lua`` appends, with the match, an entry per commit: match id, new
version and the commit's event payloads. The reader hands each entry to the waiters of its match.

So the read is one key however many matches are followed: adding a match sends nothing, and a
commit costs the reader one entry to parse, not a re-sent command naming every followed match.
Every process reads every commit of the cluster (entries are small; the feed is trimmed to about
:data:`~bummerl.store.keys.FEED_MAXLEN`). The reader remembers the newest version it passed per
match (:data:`SEEN_MATCHES` of them), so a stream coming back for the next version (the usual
case: it just took the previous one) waits without any Redis command, while a waiter behind the
reader (it wants versions the reader already passed) or on a match the reader has not seen reads
its match's stream once. A waiter that times out reads its match's stream too, so a notification
lost to a reconnect or to the feed's trimming delays events, never drops them.
:meth:`StreamHub.wait_events` has the contract of :meth:`MatchStore.wait_events` (events of versions
``> after_version``, or ``[]`` after ``timeout_ms`` **milliseconds**), so the service can use either.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import OrderedDict
from typing import Any

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from bummerl.store import keys
from bummerl.store.redis_store import MatchStore

log = logging.getLogger(__name__)

KEEP_S = 5.0
"""Seconds the reader goes on reading the feed after its last waiter left; then it stops (a
process that nobody streams from reads nothing) and resumes from where it stopped."""

SEEN_MATCHES = 100_000
"""Matches whose newest passed version the reader remembers (least recently committed dropped)."""

_FEED_FIELDS = (b"m", b"v")


class _Waiter:
    __slots__ = ("after", "future")

    def __init__(self, after: int, future: asyncio.Future[list[tuple[int, bytes]]]) -> None:
        self.after = after
        self.future = future


class StreamHub:
    """Fan-out reader over ``store``'s client settings (one extra connection per process).

    ``block_ms``: longest single ``XREAD BLOCK`` on the feed (ms); ``batch``: most feed entries
    taken per read.
    Start with :meth:`start` (or ``async with``); :meth:`aclose` stops it and fails no waiter: a
    waiter still pending then simply times out.
    """

    def __init__(self, store: MatchStore, block_ms: int = 10_000, batch: int = 1000) -> None:
        self.store = store
        self.block_ms = block_ms
        self.batch = batch
        kwargs = dict(store.client.connection_pool.connection_kwargs)
        kwargs["socket_timeout"] = None  # XREAD BLOCK waits longer than any read timeout
        pool = aioredis.ConnectionPool(connection_class=store.client.connection_pool.connection_class, **kwargs)
        self._reader = aioredis.Redis(connection_pool=pool)
        self._waiters: dict[str, list[_Waiter]] = {}
        self._seen: OrderedDict[str, int] = OrderedDict()  # match -> newest version the reader passed
        self._position: bytes | str = "0-0"  # the feed id read up to
        self._wanted = asyncio.Event()  # set while somebody waits (or waited less than KEEP_S ago)
        self._last_waiter = 0.0  # time.monotonic() of the last waiter's arrival or departure
        self._task: asyncio.Task[None] | None = None

    @property
    def waiting(self) -> int:
        """Number of pending waiters (for tests and metrics)."""
        return sum(len(w) for w in self._waiters.values())

    async def start(self) -> StreamHub:
        """Start reading the feed from its current end (one ``XREVRANGE``; Redis errors propagate)."""
        if self._task is None:
            tail: Any = await self.store.client.xrevrange(self.store.feed_key, count=1)
            if tail:
                self._position = tail[0][0]
            self._task = asyncio.create_task(self._run(), name="bummerl-stream-hub")
        return self

    async def aclose(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
            self._task = None
        await self._reader.aclose(close_connection_pool=True)

    async def __aenter__(self) -> StreamHub:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def wait_events(self, match_id: str, after_version: int, timeout_ms: int) -> list[tuple[int, bytes]]:
        """Events of versions ``> after_version`` as ``(version, payload)``, oldest first: at once
        if there are some, else as soon as a commit appends some, else ``[]`` after
        ``timeout_ms`` milliseconds. Sends no Redis command when the reader has passed exactly
        ``after_version`` of the match (the stream that took the previous version); otherwise, and
        on timeout, reads the match's stream once (``XRANGE``). Raises ``ValueError`` for a bad
        argument, and the Redis errors of those reads."""
        if timeout_ms < 1:
            raise ValueError("timeout_ms must be >= 1")
        keys.check_match_id(match_id)
        fut: asyncio.Future[list[tuple[int, bytes]]] = asyncio.get_running_loop().create_future()
        w = _Waiter(after_version, fut)
        self._waiters.setdefault(match_id, []).append(w)  # from here on the reader hands it what it reads
        self._last_waiter = time.monotonic()
        self._wanted.set()
        try:
            seen = self._seen.get(match_id)
            if seen is None or seen > after_version:  # the reader may have passed what this waiter wants
                got = await self.store.events_since(match_id, after_version)
                if got:
                    return got
            try:
                got = await asyncio.wait_for(fut, timeout_ms / 1000)
            except TimeoutError:  # a notification may have been lost (reconnect, trimmed feed)
                got = []
            return got or await self.store.events_since(match_id, after_version)  # [] from the reader: read
        finally:
            self._last_waiter = time.monotonic()
            lst = self._waiters.get(match_id)
            if lst is not None:
                with contextlib.suppress(ValueError):
                    lst.remove(w)
                if not lst:
                    del self._waiters[match_id]

    async def _run(self) -> None:
        while True:
            try:
                if not self._waiters and time.monotonic() - self._last_waiter > KEEP_S:
                    self._wanted.clear()
                    await self._wanted.wait()  # idle: no command until somebody waits
                    await self._resume()
                await self._read_once()
            except asyncio.CancelledError:
                raise
            except (RedisError, OSError) as e:
                log.warning("stream hub: redis unavailable (%s); retrying", type(e).__name__)
                await asyncio.sleep(0.5)
            except Exception:  # noqa: BLE001 - the reader must not die
                log.exception("stream hub: unexpected error; retrying")
                await asyncio.sleep(0.5)

    async def _resume(self) -> None:
        """After idling the reader goes on from where it stopped, so it hands over what was
        committed meanwhile. If the feed was trimmed past that point, what it remembers of each
        match may be stale: it forgets it, and the waiters there now read their match's stream."""
        first: Any = await self._reader.xrange(self.store.feed_key, count=1)
        if first and keys.stream_id_pair(first[0][0]) > keys.stream_id_pair(self._position):
            self._seen.clear()
            for ws in self._waiters.values():
                for w in ws:
                    if not w.future.done():
                        w.future.set_result([])

    async def _read_once(self) -> None:
        reply: Any = await self._reader.xread({self.store.feed_key: self._position}, count=self.batch,
                                              block=self.block_ms)
        if not reply:
            return
        # RESP2 reply: [[key, entries]]; RESP3 reply: {key: [entries]}
        entries = ([e for wrapped in reply.values() for lst in wrapped for e in lst] if isinstance(reply, dict)
                   else [e for _key, lst in reply for e in lst])
        if not entries:
            return
        self._position = entries[-1][0]
        seen = self._seen
        news: dict[str, list[tuple[int, bytes]]] = {}
        for _eid, fields in entries:
            match_id = fields[b"m"].decode()
            version = int(fields[b"v"])
            if seen.get(match_id, 0) < version:
                seen[match_id] = version
            seen.move_to_end(match_id)
            if match_id in self._waiters:
                got = news.setdefault(match_id, [])
                got.extend((version, p) for k, p in fields.items() if k not in _FEED_FIELDS)
        while len(seen) > SEEN_MATCHES:
            seen.popitem(last=False)
        for match_id, got in news.items():
            for w in self._waiters.get(match_id, ()):
                if not w.future.done():
                    mine = [(v, p) for v, p in got if v > w.after]
                    if mine:
                        w.future.set_result(mine)


"""One stream reader per process that fans out match events to any number of waiting streams.

Without it every open ``StreamMatch`` holds a Redis connection in ``XREAD BLOCK``; a few hundred
streams exhaust a connection pool and shut every other request out. The :class:`StreamHub` keeps
one dedicated connection that blocks on the event streams of every match somebody waits for
(``XREAD ... STREAMS k1 k2 ...``) and hands new entries to the waiters of that match.

A waiter that asks for a match the reader is not blocked on yet wakes the reader through a small
per-process wake stream (``bm:hub:<uuid>``), which is part of every read, so the reader re-issues
its ``XREAD`` with the new key at once. A match stays in the read for :data:`KEEP_S` seconds after
its last waiter, from the last version read, so that a stream coming back for the next version (the
usual case: it just took the previous one) finds it covered and waits without any Redis command;
a waiter that is behind that position (it wants versions the reader already passed) takes the first
path (one read of what it missed, else a wake). :meth:`StreamHub.wait_events` has the contract of
:meth:`MatchStore.wait_events` (events of versions ``> after_version``, or ``[]`` after
``timeout_ms`` **milliseconds**), so the service can use either.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from typing import Any

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from bummerl.store import keys
from bummerl.store.redis_store import MatchStore, _parse_entries

log = logging.getLogger(__name__)

_WAKE_TTL_MS = 3_600_000
KEEP_S = 5.0
"""Seconds a match stays in the hub's read after its last waiter left."""


class _Waiter:
    __slots__ = ("after", "future")

    def __init__(self, after: int, future: asyncio.Future[list[tuple[int, bytes]]]) -> None:
        self.after = after
        self.future = future


class StreamHub:
    """Fan-out reader over ``store``'s client settings (one extra connection per process).

    ``block_ms``: longest single ``XREAD BLOCK`` (the reader is woken earlier for new matches).
    Start with :meth:`start` (or ``async with``); :meth:`aclose` stops it and fails no waiter: a
    waiter still pending then simply times out.
    """

    def __init__(self, store: MatchStore, block_ms: int = 10_000) -> None:
        self.store = store
        self.block_ms = block_ms
        kwargs = dict(store.client.connection_pool.connection_kwargs)
        kwargs["socket_timeout"] = None  # XREAD BLOCK waits longer than any read timeout
        pool = aioredis.ConnectionPool(connection_class=store.client.connection_pool.connection_class, **kwargs)
        self._reader = aioredis.Redis(connection_pool=pool)
        self._waiters: dict[str, list[_Waiter]] = {}
        self._reading: dict[str, int] = {}  # match -> the in-flight read covers versions > this
        self._kept: dict[str, tuple[int, float]] = {}  # match without waiters -> (position, kept until)
        self._keys: dict[str, str] = {}  # match -> its events key
        self.wake_key = keys.aux_key("hub", uuid.uuid4().hex)
        self._wake_id = "0-0"
        self._task: asyncio.Task[None] | None = None

    @property
    def waiting(self) -> int:
        """Number of pending waiters (for tests and metrics)."""
        return sum(len(w) for w in self._waiters.values())

    async def start(self) -> StreamHub:
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="bummerl-stream-hub")
        return self

    async def aclose(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
            self._task = None
        with contextlib.suppress(RedisError, OSError):
            await self.store.client.delete(self.wake_key)
        await self._reader.aclose(close_connection_pool=True)

    async def __aenter__(self) -> StreamHub:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def wait_events(self, match_id: str, after_version: int, timeout_ms: int) -> list[tuple[int, bytes]]:
        """Events of versions ``> after_version`` as ``(version, payload)``, oldest first: at once
        if there are some, else as soon as a commit appends some, else ``[]`` after
        ``timeout_ms`` milliseconds. Raises ``ValueError`` for a bad argument and Redis errors of
        the first (non-blocking) read, made unless the read in flight covers the match from
        ``after_version`` on (then the waiter sends no command at all)."""
        if timeout_ms < 1:
            raise ValueError("timeout_ms must be >= 1")
        start = self._reading.get(match_id)
        covered = start is not None and after_version >= start  # the read in flight brings what is new
        if not covered:
            got = await self.store.events_since(match_id, after_version)
            if got:
                return got
            keys.check_match_id(match_id)
        fut: asyncio.Future[list[tuple[int, bytes]]] = asyncio.get_running_loop().create_future()
        w = _Waiter(after_version, fut)
        self._waiters.setdefault(match_id, []).append(w)
        try:
            start = self._reading.get(match_id)
            if start is None or after_version < start:
                await self._wake()
            try:
                return await asyncio.wait_for(fut, timeout_ms / 1000)
            except TimeoutError:
                return []
        finally:
            lst = self._waiters.get(match_id)
            if lst is not None:
                with contextlib.suppress(ValueError):
                    lst.remove(w)
                if not lst:
                    del self._waiters[match_id]
                    start = self._reading.get(match_id)
                    if start is not None:
                        self._kept[match_id] = (start, time.monotonic() + KEEP_S)

    async def _wake(self) -> None:
        pipe = self.store.client.pipeline(transaction=False)
        pipe.xadd(self.wake_key, {b"w": b"1"}, maxlen=16, approximate=True)
        pipe.pexpire(self.wake_key, _WAKE_TTL_MS)
        await pipe.execute()

    async def _run(self) -> None:
        while True:
            try:
                await self._read_once()
            except asyncio.CancelledError:
                raise
            except (RedisError, OSError) as e:
                log.warning("stream hub: redis unavailable (%s); retrying", type(e).__name__)
                await asyncio.sleep(0.5)
            except Exception:  # noqa: BLE001 - the reader must not die
                log.exception("stream hub: unexpected error; retrying")
                await asyncio.sleep(0.5)

    def _key(self, match_id: str) -> str:
        k = self._keys.get(match_id)
        if k is None:
            k = self._keys[match_id] = keys.events_key(match_id)
        return k

    async def _read_once(self) -> None:
        now = time.monotonic()
        wanted = {m: min(w.after for w in ws) for m, ws in self._waiters.items() if ws}
        for m, (pos, until) in list(self._kept.items()):
            if m in wanted or until < now:
                del self._kept[m]
            else:
                wanted[m] = pos
        for m in [m for m in self._keys if m not in wanted]:
            del self._keys[m]
        self._reading = wanted
        streams: dict[Any, Any] = {self._key(m): f"{v}-{keys.MAX_SEQ}" for m, v in wanted.items()}
        streams[self.wake_key] = self._wake_id
        reply: Any = await self._reader.xread(streams, block=self.block_ms)
        if not reply:
            return
        items = reply.items() if isinstance(reply, dict) else [(k, [e]) for k, e in reply]
        for key, wrapped in items:
            key = key.decode() if isinstance(key, bytes) else str(key)
            entries = [e for lst in wrapped for e in lst] if isinstance(reply, dict) else wrapped[0]
            if key == self.wake_key:
                if entries:
                    last = entries[-1][0]
                    self._wake_id = last.decode() if isinstance(last, bytes) else str(last)
                continue
            match_id = key[len(keys.PREFIX) + 1 : key.rindex("}")]
            parsed = _parse_entries(entries)
            if not parsed:
                continue
            top = max(v for v, _ in parsed)
            ws = self._waiters.get(match_id)
            if not ws:  # kept without waiters: the next read starts after these
                kept = self._kept.get(match_id)
                if kept is not None:
                    self._kept[match_id] = (max(top, kept[0]), kept[1])
                continue
            remaining = []
            for w in ws:  # the woken leave at once, so the next read does not fetch their events again
                if w.future.done():
                    continue
                mine = [(v, p) for v, p in parsed if v > w.after]
                if mine:
                    w.future.set_result(mine)
                else:
                    remaining.append(w)
            if remaining:
                self._waiters[match_id] = remaining
            else:
                del self._waiters[match_id]
                self._kept[match_id] = (max(top, self._reading.get(match_id, top)), time.monotonic() + KEEP_S)

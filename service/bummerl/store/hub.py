"""One reader per process that hands the events of every commit to any number of waiting streams.

Without it every open ``StreamMatch`` holds a Redis connection in ``XREAD BLOCK``; a few hundred
streams exhaust a connection pool and shut every other request out. The :class:`StreamHub` keeps
one dedicated connection per shard blocked on the process's **inbox** on that shard
(:meth:`~bummerl.store.keys.KeyLayout.inbox_key`; a single node has one shard). A process
registers as a **follower** of a match the first time one of its streams waits on it
(``follow.lua``: the match's followers set, :meth:`~bummerl.store.keys.KeyLayout.followers_key`,
for :data:`FOLLOW_TTL_MS`, renewed while it waits); ``commit.lua`` appends each commit (match id,
new version, the commit's event payloads) to the inbox of every registered follower. The reader
hands each entry to the waiters of its match.

So a commit is read by the processes that follow its match (the seats' and the spectators'
servers, usually one or two), not by every process: the Redis work per action does not grow with
the number of servers (issue 40; before, every process read a per-shard feed of every commit).
The read is one key per shard however many matches are followed. The reader remembers the newest
version it passed per match (:data:`SEEN_MATCHES` of them), so a stream coming back for the next
version (the usual case: it just took the previous one) waits without any Redis command, while a
waiter behind the reader (it wants versions the reader already passed), on a match the reader has
not seen, or whose registration is new or renewed reads its match's stream once. A waiter that
times out reads its match's stream too, so a notification lost to a reconnect, a failover (a
registration or an inbox entry the promoted replica never got) or the inbox's trimming delays
events, never drops them; and the process then registers again. After its connection fails, a
reader registers again for every match of the shard and wakes their waiters once it reads again.
:meth:`StreamHub.wait_events` has the contract of :meth:`MatchStore.wait_events` (events of versions
``> after_version``, or ``[]`` after ``timeout_ms`` **milliseconds**), so the service can use either.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from collections import OrderedDict
from collections.abc import Awaitable
from typing import Any, TypeVar

from redis.exceptions import RedisError

import bummerl.store.keys as keys
from bummerl.store.connection import blocking_twin, close_client, ensure_ready
from bummerl.store.redis_store import MatchStore

log = logging.getLogger(__name__)

KEEP_S = 5.0
"""Seconds the reader goes on reading the inbox after its last waiter left; then it stops (a
process that nobody streams from reads nothing) and resumes from where it stopped."""

SEEN_MATCHES = 100_000
"""Matches whose newest passed version the reader remembers (least recently committed dropped)."""

FOLLOW_TTL_MS = 60_000
"""How long a registration as a match's follower lasts (**ms**, by the registering server's clock)."""

RENEW_S = FOLLOW_TTL_MS / 3000
"""Seconds after which a waiter registers again (a third of :data:`FOLLOW_TTL_MS`)."""

_FEED_FIELDS = (b"m", b"v")
_T = TypeVar("_T")


class _Waiter:
    __slots__ = ("after", "future")

    def __init__(self, after: int, future: asyncio.Future[list[tuple[int, bytes]]]) -> None:
        self.after = after
        self.future = future


class _ShardReader:
    """The reader of one shard's inbox: its position, whether anybody waits on its matches, its task."""

    __slots__ = ("broken", "inbox_key", "last_waiter", "position", "renewed", "shard", "task", "waiting", "wanted")

    def __init__(self, shard: int, inbox_key: str, position: bytes | str) -> None:
        self.shard = shard
        self.inbox_key = inbox_key
        self.position = position  # the inbox id read up to
        self.broken = False  # its connection failed: register again and wake the waiters when it reads again
        self.renewed = time.monotonic()  # when it last renewed the registrations of its waiters' matches
        self.wanted = asyncio.Event()  # set while somebody waits (or waited less than KEEP_S ago)
        self.last_waiter = time.monotonic()  # of the last waiter's arrival or departure on this shard
        self.waiting = 0  # pending waiters on matches of this shard
        self.task: asyncio.Task[None] | None = None


async def _redis(aw: Awaitable[_T]) -> _T:
    """``await aw`` (a Redis call), then raise the ``CancelledError`` the call may have swallowed:
    redis-py 8.1 sometimes returns normally when the calling task is cancelled in the middle of a
    command (a plain client's PING, cancelled at a random point: about 1 in 16 times), so a stream
    being closed (a Play call ending on a refused action) went on waiting forever. The task's count
    of cancellation requests says whether one came during the call."""
    task = asyncio.current_task()
    before = task.cancelling() if task is not None else 0
    result = await aw
    if task is not None and task.cancelling() > before:
        raise asyncio.CancelledError
    return result


def _expire(fut: asyncio.Future[list[tuple[int, bytes]]]) -> None:
    """A waiter's timeout: it wakes with no events (then reads the match's stream itself)."""
    if not fut.done():
        fut.set_result([])


class StreamHub:
    """Fan-out reader over ``store``'s client settings: one blocking connection per shard that has
    waiters (a single node has one shard; a cluster deployment S, see
    :class:`~bummerl.store.keys.KeyLayout`), reading this process's inbox there. A shard's reader
    starts with the first waiter on one of its matches and idles :data:`KEEP_S` seconds after the
    last left.

    ``block_ms``: longest single ``XREAD BLOCK`` on an inbox (ms); ``batch``: most inbox entries
    taken per read. :attr:`process` is the hub's random id (its inboxes' name).
    Start with :meth:`start` (or ``async with``); :meth:`aclose` stops it and fails no waiter: a
    waiter still pending then simply times out.
    """

    def __init__(self, store: MatchStore, block_ms: int = 10_000, batch: int = 1000) -> None:
        self.store = store
        self.block_ms = block_ms
        self.batch = batch
        self._reader: Any = blocking_twin(store.client)
        self._waiters: dict[str, list[_Waiter]] = {}
        self._seen: OrderedDict[str, int] = OrderedDict()  # match -> newest version the reader passed
        self._followed: OrderedDict[str, float] = OrderedDict()  # match -> when registered (monotonic s)
        self.process = uuid.uuid4().hex
        self._shards: dict[int, _ShardReader] = {}
        self._starting: dict[int, asyncio.Task[_ShardReader]] = {}
        self._open = False

    @property
    def waiting(self) -> int:
        """Number of pending waiters (for tests and metrics)."""
        return sum(len(w) for w in self._waiters.values())

    async def start(self) -> StreamHub:
        """Open the hub; each shard's reader starts with its first waiter, from the inbox's end then."""
        self._open = True
        return self

    async def _shard(self, shard: int) -> _ShardReader:
        """The reader of ``shard``, started on first use (one ``XREVRANGE`` for the inbox's end).
        The start runs as a task of its own that every caller awaits shielded: a caller cancelled
        meanwhile (a spectator hanging up) leaves it running for the others, who would otherwise
        get that caller's CancelledError and die without a word. Raises the start's Redis error."""
        reader = self._shards.get(shard)
        if reader is not None:
            return reader
        start = self._starting.get(shard)
        if start is None:
            start = self._starting[shard] = asyncio.create_task(self._start_shard(shard),
                                                                name=f"bummerl-stream-hub-start-{shard}")
            start.add_done_callback(lambda t: self._started(shard, t))
        return await asyncio.shield(start)

    def _started(self, shard: int, start: asyncio.Task[_ShardReader]) -> None:
        if self._starting.get(shard) is start:
            del self._starting[shard]  # done: a failed start is tried again by the next caller
        if not start.cancelled():
            start.exception()  # retrieved: a failure nobody awaited any more is not logged as lost

    async def _start_shard(self, shard: int) -> _ShardReader:
        inbox_key = self.store.layout.inbox_key(shard, self.process)
        await ensure_ready(self._reader)
        tail: Any = await self.store.client.xrevrange(inbox_key, count=1)
        reader = _ShardReader(shard, inbox_key, tail[0][0] if tail else "0-0")
        if self._open:
            reader.task = asyncio.create_task(self._run(reader), name=f"bummerl-stream-hub-{shard}")
        self._shards[shard] = reader
        return reader

    async def aclose(self) -> None:
        self._open = False
        for start in list(self._starting.values()):
            start.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await start
        for reader in self._shards.values():
            if reader.task is not None:
                reader.task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await reader.task
                reader.task = None
        self._shards.clear()
        await close_client(self._reader)

    async def __aenter__(self) -> StreamHub:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def wait_events(self, match_id: str, after_version: int, timeout_ms: int) -> list[tuple[int, bytes]]:
        """Events of versions ``> after_version`` as ``(version, payload)``, oldest first: at once
        if there are some, else as soon as a commit appends some, else ``[]`` after
        ``timeout_ms`` milliseconds. Sends no Redis command when the reader has passed exactly
        ``after_version`` of the match (the stream that took the previous version) and the
        process's registration as the match's follower is younger than :data:`RENEW_S`; otherwise
        registers (``follow.lua``) if it must, and reads the match's stream once (``XRANGE``), as
        it does on timeout. Raises ``ValueError`` for a bad argument, and the Redis errors of those
        commands."""
        if timeout_ms < 1:
            raise ValueError("timeout_ms must be >= 1")
        reader = await self._shard(self.store.layout.shard_of(match_id))
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[list[tuple[int, bytes]]] = loop.create_future()
        w = _Waiter(after_version, fut)
        timer: asyncio.TimerHandle | None = None
        self._waiters.setdefault(match_id, []).append(w)  # from here on the reader hands it what it reads
        reader.waiting += 1
        reader.last_waiter = time.monotonic()
        reader.wanted.set()
        try:
            since = self._followed.get(match_id)
            fresh = since is not None and time.monotonic() - since < RENEW_S
            if not fresh:  # commits from here on reach the inbox; those before, the stream read below
                since = time.monotonic()
                await _redis(self.store.follow(match_id, self.process, FOLLOW_TTL_MS))
                self._followed[match_id] = since
                self._followed.move_to_end(match_id)
                while len(self._followed) > SEEN_MATCHES:
                    self._followed.popitem(last=False)
            seen = self._seen.get(match_id)
            if not fresh or seen is None or seen > after_version:  # the reader may have passed what this waiter wants
                got = await _redis(self.store.events_since(match_id, after_version))
                if got:
                    return got
            # the timeout ends the wait with [] (a notification may have been lost: reconnect,
            # failover, trimmed inbox), as the reader does, so one timer and one future serve (no wait_for)
            timer = loop.call_later(timeout_ms / 1000, _expire, fut)
            got = await fut
            if got:
                return got
            got = await _redis(self.store.events_since(match_id, after_version))  # []: read the stream
            if got:  # a notification went missing (a registration lost to a failover?): register again
                self._followed.pop(match_id, None)
            return got
        finally:
            if timer is not None:
                timer.cancel()
            reader.waiting -= 1
            reader.last_waiter = time.monotonic()
            lst = self._waiters.get(match_id)
            if lst is not None:
                with contextlib.suppress(ValueError):
                    lst.remove(w)
                if not lst:
                    del self._waiters[match_id]

    async def _run(self, reader: _ShardReader) -> None:
        while True:
            try:
                if not reader.waiting and time.monotonic() - reader.last_waiter > KEEP_S:
                    reader.wanted.clear()
                    await reader.wanted.wait()  # idle: no command until somebody waits
                    await self._resume(reader)
                await self._read_once(reader)
            except asyncio.CancelledError:
                raise
            except (RedisError, OSError) as e:
                reader.broken = True
                log.warning("stream hub: redis unavailable (%s); retrying", type(e).__name__)
                await asyncio.sleep(0.5)
            except Exception:  # noqa: BLE001 - the reader must not die
                log.exception("stream hub: unexpected error; retrying")
                await asyncio.sleep(0.5)

    async def _resume(self, reader: _ShardReader) -> None:
        """After idling the reader goes on from where it stopped, so it hands over what was
        committed meanwhile. If the inbox was trimmed past that point (or expired), what it
        remembers of each match may be stale: it forgets it, and the waiters there now read their
        match's stream."""
        first: Any = await self._reader.xrange(reader.inbox_key, count=1)
        if not first or keys.stream_id_pair(first[0][0]) > keys.stream_id_pair(reader.position):
            self._forget(reader.shard, registrations=not first)

    def _forget(self, shard: int, registrations: bool) -> None:
        """Forget what the reader of ``shard`` passed (and, with ``registrations``, that the process
        follows the shard's matches: their next waiter registers again), and wake the shard's waiters
        with ``[]``: each reads its match's stream."""
        shard_of = self.store.layout.shard_of
        for match_id in [m for m in self._seen if shard_of(m) == shard]:
            del self._seen[match_id]
        if registrations:
            for match_id in [m for m in self._followed if shard_of(m) == shard]:
                del self._followed[match_id]
        for match_id, ws in self._waiters.items():
            if shard_of(match_id) == shard:
                for w in ws:
                    if not w.future.done():
                        w.future.set_result([])

    async def _renew(self, reader: _ShardReader) -> None:
        """Renew (at most once a second; 64 registrations at a time) the registrations older
        than twice :data:`RENEW_S` of the shard's matches that have waiters, so that a wait longer
        than a registration does not outlive it; a match whose streams keep coming back is renewed
        by :meth:`wait_events` first. The reader reads at least every ``block_ms``, so a
        registration is renewed before it runs out."""
        now = reader.renewed = time.monotonic()
        shard_of = self.store.layout.shard_of
        due = [m for m in self._waiters if shard_of(m) == reader.shard
               and now - self._followed.get(m, now) >= 2 * RENEW_S]
        for i in range(0, len(due), 64):  # 64 at a time: a pool's worth of connections at most
            await asyncio.gather(*(self.store.follow(m, self.process, FOLLOW_TTL_MS) for m in due[i:i + 64]))
            for m in due[i:i + 64]:
                self._followed[m] = now

    async def _xread(self, reader: _ShardReader) -> Any:
        """One ``XREAD COUNT batch BLOCK block_ms`` on the process's inbox on the shard. On a cluster it goes
        straight to the node that holds the inbox's slot (from the client's slot map, learnt again
        first after a connection error): redis-py's cluster client would otherwise ask a node
        ``COMMAND GETKEYS`` twice before every ``XREAD`` (its keys move), three round trips a read
        instead of one. A ``MOVED`` reply is still followed."""
        if not self.store.cluster:
            return await self._reader.xread({reader.inbox_key: reader.position}, count=self.batch, block=self.block_ms)
        await ensure_ready(self._reader)  # after a connection error: the slots again, before choosing the node
        node = self._reader.get_node_from_key(reader.inbox_key)
        return await self._reader.execute_command("XREAD", "COUNT", self.batch, "BLOCK", self.block_ms, "STREAMS",
                                                  reader.inbox_key, reader.position, keys=(reader.inbox_key,),
                                                  target_nodes=node)

    async def _read_once(self, reader: _ShardReader) -> None:
        if reader.broken:  # back after a connection error: registrations or entries may be lost
            await ensure_ready(self._reader)
            reader.broken = False
            self._forget(reader.shard, registrations=True)
        if time.monotonic() - reader.renewed >= min(1.0, RENEW_S / 4):
            await self._renew(reader)
        reply: Any = await self._xread(reader)
        if not reply:
            return
        # RESP2 reply: [[key, entries]]; RESP3 reply: {key: [entries]}
        entries = ([e for wrapped in reply.values() for lst in wrapped for e in lst] if isinstance(reply, dict)
                   else [e for _key, lst in reply for e in lst])
        if not entries:
            return
        reader.position = entries[-1][0]
        seen = self._seen
        news: dict[str, list[tuple[int, bytes]]] = {}
        for _eid, fields in entries:
            m = fields.get(b"m")
            if m is None:
                continue  # the entry that opened the inbox
            match_id = m.decode()
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

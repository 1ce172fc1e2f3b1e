"""Followers of Redis streams that share one blocking reader per stream key (issue 25).

Without it every ``StreamLadder`` and ``StreamAssignments`` call held a pooled Redis connection in
``XREAD BLOCK`` for 15 s at a time, so 150 anonymous ladder streams exhausted the pool and every
bot's assignment stream failed with UNAVAILABLE. A :class:`Feeds` keeps **one** reader task (one
blocking connection) per followed key in this process and hands each new entry to every follower
of that key; a follower first reads the key's history (one ``XRANGE`` on the ordinary pool) and
then the live entries, with no gap and no repeat.

Two budgets (two :class:`Feeds`, each on its own blocking pool): the public one (ladder progress,
no token needed) follows at most ``max_keys`` keys at once, beyond which a new key's follower gets
:class:`~bummerl.core.errors.ResourceExhaustedError`; the bots' one (their assignment queues, one
key per bot) is apart from it, so no number of anonymous watchers can starve a bot.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from typing import Any

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from bummerl.core.errors import ResourceExhaustedError
from bummerl.store.keys import stream_id_pair
from bummerl.store.redis_store import ensure_ready

log = logging.getLogger(__name__)

Entry = tuple[bytes, dict[bytes, bytes]]
"""A stream entry as redis-py returns it: ``(id, {field: value})``."""

QUEUE_MAX = 10_000
"""Entries a follower may fall behind by before it is dropped (its stream ends with an error)."""


class _Reader:
    __slots__ = ("followers", "ready", "task")

    def __init__(self) -> None:
        self.followers: set[asyncio.Queue[Entry | BaseException]] = set()
        self.ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.task: asyncio.Task[None] | None = None


class Feeds:
    """One blocking reader per followed key. ``client``: the ordinary client (history reads);
    ``blocking``: the client whose pool the readers hold (one connection each); ``block_ms``:
    longest single ``XREAD BLOCK``; ``max_keys``: keys followed at once (0 = no cap); ``name``:
    for messages (``"public"``, ``"bots"``)."""

    def __init__(self, client: aioredis.Redis, blocking: aioredis.Redis, *, block_ms: int = 15_000,
                 max_keys: int = 0, name: str = "") -> None:
        self.client = client
        self.blocking = blocking
        self.block_ms = block_ms
        self.max_keys = max_keys
        self.name = name
        self._readers: dict[str, _Reader] = {}

    @property
    def keys_followed(self) -> int:
        return len(self._readers)

    async def follow(self, key: str) -> AsyncIterator[Entry]:
        """Every entry of stream ``key`` from its start, then each new one as it is added. Endless;
        the caller closes it. Raises ResourceExhaustedError past ``max_keys`` or when it falls
        :data:`QUEUE_MAX` entries behind, and Redis errors of the history read."""
        reader = self._readers.get(key)
        if reader is None:
            if self.max_keys and len(self._readers) >= self.max_keys:
                raise ResourceExhaustedError(f"this server follows {self.max_keys} {self.name} streams already; "
                                             f"retry later", retry_after_ms=5_000)
            reader = self._readers[key] = _Reader()
            reader.task = asyncio.create_task(self._read(key, reader), name=f"bummerl-feed-{key}")
        queue: asyncio.Queue[Entry | BaseException] = asyncio.Queue()
        reader.followers.add(queue)
        try:
            await asyncio.shield(reader.ready)  # the reader's position is set: history covers the rest
            last = (0, 0)
            history: list[Any] = list(await self.client.xrange(key, "-", "+") or ())
            task = asyncio.current_task()
            if task is not None and task.cancelling():  # redis-py may return a reply to a cancelled task
                raise asyncio.CancelledError
            for entry in history:
                last = stream_id_pair(entry[0])
                yield entry
            while True:
                item = await queue.get()
                if isinstance(item, BaseException):
                    raise item
                if stream_id_pair(item[0]) > last:
                    yield item
        finally:
            reader.followers.discard(queue)
            if not reader.followers and self._readers.get(key) is reader:
                del self._readers[key]
                if reader.task is not None:
                    reader.task.cancel()

    async def _read(self, key: str, reader: _Reader) -> None:
        try:
            await ensure_ready(self.blocking)
            tail: Any = await self.client.xrevrange(key, count=1)
            position: bytes | str = tail[0][0] if tail else "0-0"
        except Exception as e:  # noqa: BLE001 - handed to the followers
            reader.ready.set_exception(e)
            return
        reader.ready.set_result(None)
        backoff = 0.1
        while True:
            try:
                reply: Any = await self.blocking.xread({key: position}, block=self.block_ms)
                backoff = 0.1
            except asyncio.CancelledError:
                raise
            except (RedisError, OSError) as e:
                if "MaxConnections" in type(e).__name__:
                    self._fail(reader, ResourceExhaustedError(f"no connection left for {self.name} streams; retry "
                                                              f"later", retry_after_ms=5_000))
                    return
                log.warning("%s feed %s: redis unavailable (%s); retrying in %.1f s", self.name, key,
                            type(e).__name__, backoff)
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, 5.0)
                continue
            if not reply:
                continue
            entries = ([e for w in reply.values() for lst in w for e in lst] if isinstance(reply, dict)
                       else [e for _k, lst in reply for e in lst])
            if not entries:
                continue
            position = entries[-1][0]
            for q in list(reader.followers):
                if q.qsize() + len(entries) > QUEUE_MAX:
                    q.put_nowait(ResourceExhaustedError("the stream fell too far behind; reconnect"))
                    reader.followers.discard(q)
                    continue
                for item in entries:
                    q.put_nowait(item)

    def _fail(self, reader: _Reader, exc: BaseException) -> None:
        for q in list(reader.followers):
            q.put_nowait(exc)

    async def aclose(self) -> None:
        for reader in list(self._readers.values()):
            if reader.task is not None:
                reader.task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await reader.task
        self._readers.clear()

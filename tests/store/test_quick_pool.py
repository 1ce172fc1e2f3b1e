"""QuickPool: redis-py's blocking pool with a short way in and out while a connection is free and
nobody waits; callers beyond ``max_connections`` still wait in order and time out as before."""

from __future__ import annotations

import asyncio

import pytest
import redis.asyncio as aioredis
from redis.exceptions import ConnectionError as RedisConnectionError

from bummerl.store import MatchStore
from bummerl.store.connection import QuickPool

pytestmark = pytest.mark.single_node  # QuickPool is the single-node client's pool


async def test_free_connections_are_reused_without_the_library_path(redis_url: str) -> None:
    pool = QuickPool.from_url(redis_url, max_connections=4, timeout=5)
    client = aioredis.Redis(connection_pool=pool)
    try:
        for i in range(20):
            assert await client.ping()
            await client.set(f"bm:test:quick:{i}", i)
        assert pool._quick and pool._slow == 0
        assert len(pool._in_use_connections) == 0 and len(pool._available_connections) == 1
    finally:
        await client.aclose(close_connection_pool=True)


async def test_callers_beyond_the_limit_wait_and_all_complete(redis_url: str) -> None:
    pool = QuickPool.from_url(redis_url, max_connections=2, timeout=5)
    client = aioredis.Redis(connection_pool=pool)
    try:
        got = await asyncio.gather(*(client.incr("bm:test:quick:n") for _ in range(200)))
        assert sorted(got)[-1] - sorted(got)[0] == 199
        assert len(pool._in_use_connections) == 0 and len(pool._available_connections) <= 2 and pool._slow == 0
    finally:
        await client.delete("bm:test:quick:n")
        await client.aclose(close_connection_pool=True)


async def test_a_caller_waiting_for_a_busy_pool_still_times_out(redis_url: str) -> None:
    pool = QuickPool.from_url(redis_url, max_connections=1, timeout=0.2)
    client = aioredis.Redis(connection_pool=pool)
    blocker = aioredis.Redis(connection_pool=pool)
    try:
        held = asyncio.create_task(blocker.blpop(["bm:test:quick:never"], timeout=1))
        await asyncio.sleep(0.05)
        with pytest.raises(RedisConnectionError):
            await client.ping()
        await held
        assert await client.ping()  # the connection came back
    finally:
        await client.aclose(close_connection_pool=True)


async def test_the_store_uses_it(redis_url: str) -> None:
    store = MatchStore.from_url(redis_url)
    try:
        assert isinstance(store.client.connection_pool, QuickPool) and await store.ping()
    finally:
        await store.aclose()

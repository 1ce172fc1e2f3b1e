"""Processes starting together on an empty database agree on one key layout (issue 40).

``read_layout`` writes the layout of an empty database; it once did so with two ``HSETNX`` (version,
then shards), and a process reading between the two saw ``version 2, shards 0`` and refused to start
("this Redis holds key layout 2 (shards 0)"). Here 8 callers, each on its own connection, read the
layout at once, started a few hundred microseconds apart so that every reader lands somewhere in
another's write, many times over on a fresh database; on one node and on a Valkey Cluster.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
import redis.asyncio as aioredis

from bummerl.store import EmbeddedValkey, keys
from bummerl.store.layout import read_layout

CALLERS = 8
TRIALS = 40


@pytest.fixture
def own_url() -> Iterator[str]:
    server = EmbeddedValkey()
    try:
        yield server.start()
    finally:
        server.stop()


@pytest.fixture
async def clients(own_url: str) -> AsyncIterator[list[aioredis.Redis]]:
    cs = [aioredis.from_url(own_url) for _ in range(CALLERS + 1)]
    try:
        yield cs
    finally:
        for c in cs:
            await c.aclose()


async def _read_after(client: Any, delay_s: float, shards: int) -> keys.KeyLayout:
    await asyncio.sleep(delay_s)
    return await read_layout(client, None, shards)


async def test_eight_processes_starting_at_once_on_an_empty_database_agree_on_the_layout(
        clients: list[aioredis.Redis]) -> None:
    await _race(clients, TRIALS)


async def test_the_same_on_a_valkey_cluster() -> None:
    from bummerl.store.connection import open_client
    from bummerl_bench.valkey_cluster import EmbeddedValkeyCluster

    cluster = EmbeddedValkeyCluster(masters=3, replicas_per_master=0)
    url = await asyncio.to_thread(cluster.start)
    clients: list[Any] = []
    try:
        clients = [await open_client(url) for _ in range(CALLERS + 1)]
        await _race(clients, TRIALS // 4)
    finally:
        for c in clients:
            await c.aclose()
        await asyncio.to_thread(cluster.stop)


async def _race(clients: list[Any], trials: int) -> None:
    admin, callers = clients[0], clients[1:]
    rng = random.Random(40)
    for c in clients:
        await c.ping()  # connected before the race, so that the start offsets are what races
    for trial in range(trials):
        await admin.flushdb()
        spread_s = rng.choice((0.0005, 0.001, 0.002, 0.004))
        got = await asyncio.gather(*(_read_after(c, rng.uniform(0, spread_s), shards=1 + i % 3)
                                     for i, c in enumerate(callers)), return_exceptions=True)
        errors = [repr(g) for g in got if isinstance(g, BaseException)]
        assert not errors, f"trial {trial}: {errors}"
        layouts = {g.shards for g in got if isinstance(g, keys.KeyLayout)}
        assert len(layouts) == 1, f"trial {trial}: the callers disagree: {layouts}"
        stored = await admin.hgetall(keys.LAYOUT_KEY)
        assert int(stored[b"version"]) == keys.LAYOUT_VERSION
        assert int(stored[b"shards"]) == layouts.pop()

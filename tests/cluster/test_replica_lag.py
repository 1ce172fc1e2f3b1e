"""Issue 38 on a Valkey Cluster: with ``durability = replicated`` a retried action is answered
``duplicate`` only once a replica has it.

The replica of the match's master is stopped (SIGSTOP) so that it confirms nothing: the first answer
to an action is UNAVAILABLE (NOT_REPLICATED) although the master applied it; its retry meets that
version on the master and must not answer ``duplicate=True`` while the replica still lacks it (were
the master to die now, the acknowledged action would be lost): UNAVAILABLE again. Once the replica
runs again (SIGCONT) the retry answers ``duplicate``.

Runs on the test suite's local cluster (``BUMMERL_TEST_REDIS=cluster``, tests/conftest.py; three
masters with a replica each, on this machine, so the replica's process can be stopped); skipped on
a single node.
"""

from __future__ import annotations

import asyncio
import os
import signal
import time
import uuid
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest
import redis.asyncio as aioredis

from bummerl.api.errors import status_of
from bummerl.core import MatchService
from bummerl.store import MatchStore
from bummerl.store.errors import ReplicationTimeoutError
from bummerl.store.keys import CLUSTER_SHARDS, KeyLayout

ON_CLUSTER = os.environ.get("BUMMERL_TEST_REDIS", "").strip().lower() == "cluster"

pytestmark = pytest.mark.skipif(not ON_CLUSTER, reason="needs the local Valkey Cluster (BUMMERL_TEST_REDIS=cluster)")

WAIT_MS = 300


@pytest.fixture
async def rstore(redis_client: Any) -> AsyncIterator[MatchStore]:
    layout = KeyLayout(CLUSTER_SHARDS, tag=f"t{uuid.uuid4().hex}")
    s = MatchStore(redis_client, layout=layout, durability="replicated", replica_wait_ms=WAIT_MS)
    try:
        yield s
    finally:
        for k in range(layout.shards):
            await redis_client.delete(layout.deadlines_key(k), layout.active_key(k), layout.feed_key(k),
                                      layout.shard_prefix(k) + "sync")
        await s.aclose()


async def _replica_of(host: str, port: int) -> tuple[aioredis.Redis, aioredis.Redis, int]:
    """Plain clients on the master at ``host:port`` and on its (one) replica, and the replica's pid."""
    master = aioredis.Redis(host=host, port=port)
    info: dict[str, Any] = await master.info("replication")
    link = info["slave0"]
    replica = aioredis.Redis(host=str(link["ip"]), port=int(link["port"]))
    pid = int((await replica.info("server"))["process_id"])
    return master, replica, pid


async def _caught_up(master: aioredis.Redis, timeout_s: float = 15.0) -> None:
    """Until the master's replica is online and has confirmed everything the master wrote."""
    deadline = time.monotonic() + timeout_s
    while True:
        info: dict[str, Any] = await master.info("replication")
        link = info.get("slave0") or {}
        if link.get("state") == "online" and int(link.get("offset", -1)) >= int(info["master_repl_offset"]):
            return
        assert time.monotonic() < deadline, f"the replica did not catch up: {info}"
        await asyncio.sleep(0.05)


async def test_a_retry_is_duplicate_only_once_a_replica_has_the_action(rstore: MatchStore) -> None:
    svc = MatchService(rstore)
    created = await svc.create_match("schnapsen-at", seed=7)  # every replica runs: replicated
    mid = created.match_id
    info = await svc.information_set(mid, 0, created.tokens[0])
    seat = info["deal"]["to_act"]
    info = await svc.information_set(mid, seat, created.tokens[seat])
    v, a, token = info["version"], info["legal_actions"][0]["id"], created.tokens[seat]

    node = rstore.client.get_node_from_key(rstore.layout.state_key(mid))  # the match's master
    master, replica, pid = await _replica_of(node.host, node.port)
    try:
        await _caught_up(master)
        os.kill(pid, signal.SIGSTOP)  # the replica confirms nothing from here on
        try:
            with pytest.raises(ReplicationTimeoutError) as first:
                await svc.submit_action(mid, seat, token, v, a)
            status = status_of(first.value)
            assert (status.code, status.reason) == (grpc.StatusCode.UNAVAILABLE, "NOT_REPLICATED")
            assert (await rstore.load(mid)).version == v + 1  # the master has it, the replica does not
            # the client retries: the version is there, written by this very action, but no replica
            # has it yet, so no duplicate=True (the fix of issue 38): the first answer's reason again
            for s in (svc, MatchService(rstore)):  # the version held here, and another process's fresh read
                with pytest.raises(ReplicationTimeoutError) as again:
                    await s.submit_action(mid, seat, token, v, a)
                assert status_of(again.value).reason == "NOT_REPLICATED"
                assert again.value.version == v + 1
        finally:
            os.kill(pid, signal.SIGCONT)
        await _caught_up(master)
        answer = await svc.submit_action(mid, seat, token, v, a)  # now a replica has it
        assert answer.duplicate and answer.version == v + 1
        assert (await MatchService(rstore).submit_action(mid, seat, token, v, a)).duplicate
        assert int((await replica.info("replication"))["master_repl_offset"]) > 0
    finally:
        os.kill(pid, signal.SIGCONT)  # never leave the suite's replica stopped
        await master.aclose()
        await replica.aclose()

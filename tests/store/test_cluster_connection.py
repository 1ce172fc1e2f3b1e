"""The cluster client's connections: one closed under a command by another task (the cluster
client drops a dead master's connections while it learns the new topology) fails with a
ConnectionError, which the client retries and the API answers UNAVAILABLE, not an AttributeError
(INTERNAL). Seen in ``bummerl bench failover`` with redis-py 8.1."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from redis.exceptions import ConnectionError as RedisConnectionError

from bummerl.store.connection import _ClusterConnection


class _Writer:
    def close(self) -> None:
        pass


class _ClosedUnderUs(_ClusterConnection):
    """Connected, then closed by "another task" between the connect and the write."""

    def __init__(self) -> None:
        super().__init__(host="127.0.0.1", port=1)
        self._reader = asyncio.StreamReader()
        self._writer = _Writer()  # type: ignore[assignment]  # looks connected

    async def check_health(self) -> None:
        self._reader = None
        self._writer = None  # what disconnect() leaves


async def test_a_connection_closed_under_a_send_is_a_connection_error() -> None:
    conn = _ClosedUnderUs()
    with pytest.raises(RedisConnectionError, match="closed while sending"):
        await conn.send_packed_command(b"PING\r\n")


async def test_a_connection_closed_under_a_read_is_a_connection_error() -> None:
    conn: Any = _ClosedUnderUs()
    conn._reader = None
    conn._parser = None  # the parser is gone with the connection too
    with pytest.raises(RedisConnectionError, match="closed while reading"):
        await conn.read_response()


async def test_commands_beyond_the_connection_cap_wait_for_a_free_one() -> None:
    """The cluster client's nodes refuse a command at once when their connections are all busy
    (MaxConnectionsError, UNAVAILABLE to a player); ours waits its turn as the single node's pool does."""
    from bummerl.store.connection import close_client, open_client
    from bummerl_bench.valkey_cluster import EmbeddedValkeyCluster

    with EmbeddedValkeyCluster(masters=1, replicas_per_master=0) as cluster:
        client = await open_client(cluster.url, max_connections=2)
        try:
            got = await asyncio.gather(*(client.execute_command("SET", f"k{i}", i) for i in range(60)),
                                       *(client.blpop([f"empty{i}"], 0.05) for i in range(6)))
            assert got[:60] == [True] * 60
            assert max(len(n._connections) for n in client.get_nodes()) <= 4
        finally:
            await close_client(client)

"""The cluster client's connections: one closed under a command by another task (the cluster
client drops a dead master's connections while it learns the new topology) fails with a
ConnectionError, which the client retries and the API answers UNAVAILABLE, not an AttributeError
(INTERNAL). Seen in ``bummerl bench failover`` with redis-py 8.1."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from redis.exceptions import ConnectionError as RedisConnectionError

from bummerl.store.redis_store import _ClusterConnection


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

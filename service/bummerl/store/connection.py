"""Opening and closing the Redis / Valkey clients of the store.

:func:`open_client` tells a single node from a Redis Cluster at start-up (``INFO cluster``) and
returns redis-py's ``Redis`` on a :class:`QuickPool` or its ``RedisCluster`` (nodes on
:class:`_ClusterConnection`, commands gated by :class:`_GatedCluster`); :func:`blocking_twin` makes
the client of the blocking stream reads (no socket read timeout), :func:`ensure_ready` lets a
cluster client learn its slots before concurrent use, :func:`close_client` closes either kind.
Used by :class:`~bummerl.store.redis_store.MatchStore`, the stream hub and the ladders; re-exported
by :mod:`bummerl.store.redis_store`.
"""

from __future__ import annotations

import asyncio
from typing import Any

import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster
from redis.asyncio.connection import ConnectionPool
from redis.exceptions import (
    AskError,
    ClusterDownError,
    MovedError,
    ReadOnlyError,
    SlotNotCoveredError,
    TryAgainError,
)
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

__all__ = ["QuickPool", "blocking_twin", "close_client", "ensure_ready", "open_client"]


class QuickPool(aioredis.BlockingConnectionPool):
    """redis-py's ``BlockingConnectionPool`` (a caller waits up to ``timeout`` seconds for a free
    connection) with a short way in and out while a connection is free and nobody waits: take or
    put back the connection directly, without the pool's condition, timeout and its optional
    observability counters (about a third of the client's time per command on the service's hot
    path). The connection is still checked before use (``ensure_connection``: connected, nothing
    left unread). Everything else (no free connection, callers waiting, redis-py's maintenance
    mode, a credential provider that re-authenticates released connections) takes the library's
    own path, so waiters are served in order and time out as before."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._slow = 0  # callers inside the library's path (waiting for a connection, or releasing)
        self._quick = (
            isinstance(getattr(self, "_available_connections", None), list)
            and isinstance(getattr(self, "_in_use_connections", None), set)
            and self.connection_kwargs.get("credential_provider") is None
        )

    def _may_be_quick(self) -> bool:
        return self._quick and not self._slow and not getattr(self, "_in_maintenance", False)

    async def get_connection(self, *args: Any, **kwargs: Any) -> Any:
        if self._available_connections and self._may_be_quick():
            connection = self._available_connections.pop()
            self._in_use_connections.add(connection)
            try:
                await self.ensure_connection(connection)
            except BaseException:
                await self.release(connection)
                raise
            return connection
        self._slow += 1
        try:
            return await super().get_connection(*args, **kwargs)  # type: ignore[no-untyped-call]
        finally:
            self._slow -= 1

    async def release(self, connection: Any) -> None:
        if self._may_be_quick() and connection in self._in_use_connections:
            self._in_use_connections.remove(connection)
            if getattr(connection, "should_reconnect", lambda: False)():
                await connection.disconnect()
            self._available_connections.append(connection)
            return
        self._slow += 1
        try:
            await super().release(connection)
        finally:
            self._slow -= 1


def blocking_twin(client: Any, max_connections: int | None = None) -> Any:
    """A client with ``client``'s connection settings but no socket read timeout, for blocking
    reads (``XREAD BLOCK`` waits longer than any read timeout): a new pool for a single node, a new
    ``RedisCluster`` on the same nodes for a cluster; at most ``max_connections`` connections (per
    node on a cluster; None = no cap). The caller closes it (:func:`close_client`)."""
    cap = max_connections or 2**31
    if isinstance(client, RedisCluster):
        node = client.get_default_node() or next(iter(client.nodes_manager.startup_nodes.values()))
        passed: dict[str, Any] = {k: v for k, v in client.get_connection_kwargs().items() if k in _CLUSTER_PASSED}
        twin = _cluster_client(host=node.host, port=node.port, socket_timeout=None, **passed)
        if max_connections:  # a hard cap per node: each blocking reader holds one
            twin.nodes_manager.connection_kwargs["max_connections"] = max_connections
        return twin
    kwargs = dict(client.connection_pool.connection_kwargs)
    kwargs["socket_timeout"] = None
    pool = ConnectionPool(connection_class=client.connection_pool.connection_class, max_connections=cap, **kwargs)
    return aioredis.Redis(connection_pool=pool)


_CLUSTER_PASSED = ("username", "password", "ssl", "ssl_ca_certs", "ssl_certfile", "ssl_keyfile",
                   "ssl_cert_reqs", "protocol", "socket_connect_timeout", "client_name")


async def close_client(client: Any) -> None:
    """Close a client and its pool (a cluster client closes the connections of every node)."""
    if isinstance(client, RedisCluster):
        await client.aclose()
    else:
        await client.aclose(close_connection_pool=True)


class _ClusterConnection(aioredis.Connection):
    """redis-py's connection, for the cluster client's nodes: a connection that another task closed
    under it (the cluster client drops a dead node's connections while it learns the new topology
    in a failover) fails with ``ConnectionError``, which the cluster client retries on the new
    master and the API answers UNAVAILABLE, instead of redis-py 8.1's ``AttributeError: 'NoneType'
    object has no attribute 'writelines'`` (an INTERNAL error for the caller)."""

    async def send_packed_command(self, command: Any, check_health: bool = True) -> None:
        try:
            await super().send_packed_command(command, check_health)
        except AttributeError as e:
            if self._writer is None:
                raise RedisConnectionError(f"connection to {self.host}:{self.port} closed while sending") from e
            raise

    async def read_response(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return await super().read_response(*args, **kwargs)
        except AttributeError as e:
            if self._reader is None:
                raise RedisConnectionError(f"connection to {self.host}:{self.port} closed while reading") from e
            raise


class _GatedCluster(RedisCluster):
    """redis-py's async cluster client with a wait for a free connection, as the single node's
    :class:`QuickPool` has: its nodes' connection lists fail at once with ``MaxConnectionsError``
    when full, so at most ``in_flight`` commands run at once (each node may open twice that many
    connections, which leaves room for pipelines) and a command beyond waits up to ``wait_s``
    seconds for its turn, then fails with ``ConnectionError`` (UNAVAILABLE)."""

    def __init__(self, *args: Any, in_flight: int = 0, wait_s: float = 10.0, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._in_flight = in_flight
        self._wait_s = wait_s
        self._gate: asyncio.Semaphore | None = None

    async def _enter(self) -> bool:
        """Wait for a turn at the gate (True: taken, release it); ``ConnectionError`` after ``wait_s``."""
        if not self._in_flight:
            return False
        if self._gate is None:
            self._gate = asyncio.Semaphore(self._in_flight)
        try:
            async with asyncio.timeout(self._wait_s):
                await self._gate.acquire()
        except TimeoutError:
            raise RedisConnectionError(f"no free Redis connection within {self._wait_s} s") from None
        return True

    async def execute_command(self, *args: Any, **kwargs: Any) -> Any:
        gated = await self._enter()
        try:
            return await super().execute_command(*args, **kwargs)
        finally:
            if gated:
                assert self._gate is not None
                self._gate.release()

    async def on_slot_master(self, key: str, *args: Any) -> Any:
        """``args`` (a command naming ``key``, whose slot holds every key it names) sent straight
        to the master of ``key``'s slot in the client's slot map, under the gate. redis-py's own
        way (:meth:`execute_command`) resolves the command's routing policy and its slot twice in
        Python for every command: about 20 us of CPU per command more than a single node's client
        (issue 40). A redirection, a connection problem or a slot map to be learnt again sends the
        command again the usual way, which follows ``MOVED``/``ASK``, learns the slots and
        retries: exactly what redis-py does when it retries (so a Lua compare-and-set whose reply
        was lost meets its own new version). Other errors (``NOSCRIPT``, a script's error) are
        raised as they are."""
        if not self._initialize:
            gated = await self._enter()
            try:
                node = self.get_node_from_key(key)
                if node is not None:
                    return await node.execute_command(*args)
            except _REROUTED:
                pass
            except RuntimeError as e:  # uvloop's closed transport (a node gone): a connection problem
                if "handler is closed" not in str(e):
                    raise
            finally:
                if gated:
                    assert self._gate is not None
                    self._gate.release()
        return await self.execute_command(*args)


_REROUTED = (MovedError, AskError, TryAgainError, ClusterDownError, SlotNotCoveredError, ReadOnlyError,
             RedisConnectionError, RedisTimeoutError, OSError)
"""What :meth:`_GatedCluster.on_slot_master` answers by sending the command again the usual way."""


def _cluster_client(*, url: str | None = None, max_connections: int | None = None, wait_s: float = 10.0,
                    **kwargs: Any) -> RedisCluster:
    """A cluster client (``url`` or the constructor's kwargs) whose nodes use
    :class:`_ClusterConnection`; with ``max_connections``, at most that many commands at once
    (:class:`_GatedCluster`), else no cap."""
    cap = {"max_connections": 2 * max_connections, "in_flight": max_connections, "wait_s": wait_s} \
        if max_connections else {"max_connections": 2**31}
    cluster = _GatedCluster.from_url(url, **cap, **kwargs) if url else _GatedCluster(**cap, **kwargs)
    # the nodes it learns of are built from this dict (the startup nodes only ask for the slots)
    if cluster.connection_kwargs.get("connection_class") is aioredis.Connection:
        cluster.connection_kwargs["connection_class"] = _ClusterConnection
    return cluster


async def ensure_ready(client: Any) -> None:
    """Before a client's first concurrent use: a cluster client learns the slots now (its lazy first
    ``initialize()`` replaces node objects under commands already sent on them, redis-py 8.1:
    ``AttributeError: 'NoneType' object has no attribute 'writelines'``); a single-node client needs
    nothing. Idempotent and cheap after the first call."""
    if isinstance(client, RedisCluster):
        await client.initialize()


async def open_client(url: str, max_connections: int = 128, pool_timeout_s: float = 10.0) -> Any:
    """A client (bytes responses) for the Redis/Valkey at ``url``: redis-py's ``RedisCluster`` (at
    most ``max_connections`` per node) when ``INFO cluster`` says ``cluster_enabled:1``, else a
    ``Redis`` on a :class:`QuickPool` of ``max_connections`` (waiting up to ``pool_timeout_s``
    seconds for a free one). Raises the Redis errors of the probe (one connection, closed)."""
    probe = aioredis.Redis.from_url(url)
    try:
        info: Any = await probe.info("cluster")
    finally:
        await probe.aclose()
    if str(info.get("cluster_enabled", 0)) == "1":
        cluster = _cluster_client(url=url, max_connections=max_connections, wait_s=pool_timeout_s)
        await ensure_ready(cluster)
        return cluster
    return aioredis.Redis(connection_pool=QuickPool.from_url(url, max_connections=max_connections,
                                                             timeout=pool_timeout_s))


def raise_if_cancelled() -> None:
    """Raise CancelledError if this task was asked to stop and the request got lost: redis-py
    (8.1) returns a reply normally to a task cancelled while it awaited it (seen for about half
    of the cancellations that land in a GET), so a stream whose client cancelled then would wait
    on for assignments forever, holding its per-bot slot. Call after such an await."""
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError


def is_closed_transport(exc: BaseException) -> bool:
    """Is ``exc`` the ``RuntimeError`` uvloop raises for an operation on a transport that is
    closed already (``unable to perform operation on <TCPTransport closed=True ...>; the handler is
    closed``)? redis-py lets it through as it is when a Redis node went away under a connection (a
    failover): a connection problem like its own ``ConnectionError``, so retryable."""
    return isinstance(exc, RuntimeError) and "handler is closed" in str(exc)

"""Match persistence on Redis / Valkey.

:class:`MatchStore` keeps every match in Redis (key schema: :mod:`bummerl.store.keys`)
and nothing in process memory, so any replica can serve any request.  Every
write to a match is one atomic Lua script (``EVALSHA``): ``create`` and a
compare-and-set ``commit`` on the match version that also appends the
commit's public events to the match's stream, with stream ids equal to
versions (``<version>-<i>``).

Typical request::

    m = await store.load(match_id)                          # 1 round trip
    new_state, events = apply(decode(m.state), action)      # pure, no I/O
    await store.commit(match_id, m.version, encode(new_state), events)   # 1 round trip
    # VersionConflictError(current_version) -> someone else won; reload.

Connections: ordinary commands use the ``redis.asyncio.Redis`` client given to
the store.  Blocking stream reads (:meth:`MatchStore.wait_events`, ``XREAD
BLOCK``) hold their connection for up to ``timeout_ms``, so they run on a
*separate* connection pool (one connection per concurrent waiter, created on
demand with the same connection settings but no socket read timeout) and can
never starve the pool that serves requests.  :meth:`MatchStore.aclose` closes
that pool.

Client retries are safe: a commit whose reply was lost and that redis-py
retries fails the version check and raises ``VersionConflictError`` with
``current_version == expected_version + 1`` instead of applying twice.

The clients (:func:`open_client`, :class:`QuickPool`, :func:`blocking_twin`, ...) are opened in
:mod:`bummerl.store.connection` and the key layout is read in :mod:`bummerl.store.layout`; both
are re-exported here.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from types import TracebackType
from typing import Any

import orjson
import redis.asyncio as aioredis
from redis.asyncio.cluster import PipelineCommand, RedisCluster
from redis.exceptions import AskError, ClusterDownError, MovedError, NoScriptError, RedisError, TryAgainError
from redis.exceptions import ConnectionError as RedisConnectionError

import bummerl.store.keys as keys
from bummerl.store.connection import (
    QuickPool,
    blocking_twin,
    close_client,
    ensure_ready,
    is_closed_transport,
    open_client,
)
from bummerl.store.errors import (
    MatchExistsError,
    MatchNotFoundError,
    ReplicationTimeoutError,
    StoreError,
    VersionConflictError,
)
from bummerl.store.layout import LEGACY_KEYS, read_layout, stored_layout

# QuickPool, the client functions (bummerl.store.connection) and the layout reading
# (bummerl.store.layout) are re-exported: code imports them from here.
__all__ = ["DURABILITIES", "LEGACY_KEYS", "MatchStore", "QuickPool", "StoredMatch", "blocking_twin", "close_client",
           "ensure_ready", "is_closed_transport", "open_client", "read_layout", "stored_layout"]

DURABILITIES = ("none", "replicated")
"""The values of ``durability`` (:class:`MatchStore`, ``BUMMERL_DURABILITY``)."""

_BLOCK_GRACE_S = 5.0
"""Extra seconds a blocking read may take beyond its server-side timeout before we give up."""


def _lua(name: str) -> str:
    return resources.files("bummerl.store").joinpath("lua", name).read_text(encoding="utf-8")


def _dump_json(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode("utf-8")


def _meta_args(meta: Mapping[str, Any]) -> list[bytes]:
    """``[b"m:<key>", json, ...]`` for the Lua scripts; raises TypeError/ValueError on bad meta."""
    out: list[bytes] = []
    for name, value in meta.items():
        if not isinstance(name, str) or not name:
            raise TypeError(f"meta keys must be non-empty str, got {name!r}")
        out.append(keys.META_PREFIX + name.encode("utf-8"))
        out.append(_dump_json(value))
    return out


def _parse_entries(entries: Any) -> list[tuple[int, bytes]]:
    """``[(b"<v>-<i>", {b"e": payload}), ...]`` (XRANGE/XREAD entries) -> ``[(v, payload), ...]``."""
    return [(keys.version_of_stream_id(eid), fields[keys.EVENT_FIELD]) for eid, fields in entries]


def _check_events(events: Sequence[bytes]) -> list[bytes]:
    out = list(events)
    for e in out:
        if not isinstance(e, bytes | bytearray | memoryview):
            raise TypeError(f"event payloads must be bytes, got {type(e).__name__}")
    return [bytes(e) for e in out]


@dataclass(frozen=True, slots=True)
class StoredMatch:
    """One match as stored.

    Attributes:
        match_id: the id.
        version: the version of ``state``; 1 after create, +1 per commit.
        state: the serialized match state (opaque bytes, a cache of the log).
        meta: the match's metadata (JSON values by top-level key).
    """

    match_id: str
    version: int
    state: bytes
    meta: dict[str, Any] = field(default_factory=dict)


class MatchStore:
    """Async store of matches over a ``redis.asyncio.Redis`` or ``redis.asyncio.cluster.RedisCluster``
    client.

    Args:
        client: a client with ``decode_responses=False`` (the default); raises
            ``ValueError`` otherwise.  The store does not close it unless it was
            built by :meth:`from_url` or :meth:`connect`.
        layout: where the keys are (:class:`~bummerl.store.keys.KeyLayout`: the number of
            shards and their hash-tag prefix); default one shard tagged ``s``. A deployment reads
            it from Redis (:meth:`connect`); tests give a tag of their own.
        blocking_client: client used for ``XREAD BLOCK``; default: a new pool (or cluster client)
            with ``client``'s connection settings (see module docstring).
        durability: ``"none"`` (default) acknowledges a commit when the primary has applied it;
            ``"replicated"`` also waits (``WAIT 1 <replica_wait_ms>`` on the commit's own
            connection) until one replica has it, so an acknowledged action survives a failover.
            A commit no replica confirmed in time raises :class:`ReplicationTimeoutError` (the
            commit itself stands: a retry of the action meets the new version).
        replica_wait_ms: longest wait for the replica, **milliseconds** (default 1000).

    Methods raise the errors of :mod:`bummerl.store.errors`, ``ValueError`` for
    an invalid match id or argument, and ``redis.exceptions.RedisError`` for
    connection problems.
    """

    def __init__(
        self,
        client: Any,
        *,
        layout: keys.KeyLayout | None = None,
        blocking_client: Any = None,
        durability: str = "none",
        replica_wait_ms: int = 1000,
    ) -> None:
        if client.get_encoder().decode_responses:
            raise ValueError("MatchStore needs a client with decode_responses=False")
        if durability not in DURABILITIES:
            raise ValueError(f"durability must be one of {DURABILITIES}, got {durability!r}")
        if replica_wait_ms < 1:
            raise ValueError("replica_wait_ms must be >= 1")
        self._client = client
        self.cluster = isinstance(client, RedisCluster)
        """True when the client is a Redis Cluster client."""
        self.layout = layout or keys.KeyLayout()
        self.durability = durability
        self.replica_wait_ms = int(replica_wait_ms)
        self._owns_client = False
        self._owns_blocking = blocking_client is None
        self._blocking = blocking_client if blocking_client is not None else blocking_twin(client)
        self._create_script = client.register_script(_lua("create.lua"))
        self._commit_script = client.register_script(_lua("commit.lua"))
        self._claim_script = client.register_script(_lua("claim.lua"))
        self._load_if_changed_script = client.register_script(_lua("load_if_changed.lua"))
        self._follow_script = client.register_script(_lua("follow.lua"))
        self._deadline_hints: dict[int, int] = {}  # shard -> earliest deadline this process indexed there
        self._on_slot_master: Any = getattr(client, "on_slot_master", None)  # our cluster client's short way

    @classmethod
    def from_url(
        cls, url: str, max_connections: int = 128, pool_timeout_s: float = 10.0, *,
        layout: keys.KeyLayout | None = None, **client_kwargs: Any
    ) -> MatchStore:
        """A store on a new client for a single Redis/Valkey at ``url`` (``redis://``, ``rediss://``
        or ``unix://``); for a deployment that may be a cluster use :meth:`connect`.

        The client's pool holds at most ``max_connections`` connections; a request that finds
        them all busy **waits** up to ``pool_timeout_s`` seconds for one (redis-py's
        ``BlockingConnectionPool``, as :class:`QuickPool`) instead of failing at once.
        ``client_kwargs`` go to the pool (``decode_responses`` must stay False).  :meth:`aclose` closes the client too.
        """
        pool = QuickPool.from_url(url, max_connections=max_connections, timeout=pool_timeout_s, **client_kwargs)
        store = cls(aioredis.Redis(connection_pool=pool), layout=layout)
        store._owns_client = True
        return store

    @classmethod
    async def connect(
        cls, url: str, max_connections: int = 128, pool_timeout_s: float = 10.0, *, shards: int | None = None,
        durability: str = "none", replica_wait_ms: int = 1000,
    ) -> MatchStore:
        """The store of a deployment: a single node or a Redis/Valkey Cluster, told apart at start-up
        by ``INFO cluster`` (``cluster_enabled:1``: redis-py's ``RedisCluster`` client, with
        ``max_connections`` per node), on the key layout stored in Redis (:data:`keys.LAYOUT_KEY`).

        An empty database gets layout 2 with ``shards`` shards (default 1 on a single node,
        :data:`keys.CLUSTER_SHARDS` on a cluster), written once (one script, both fields) so that every process
        agrees. Raises :class:`LayoutError` when Redis holds layout 1 data (run ``bummerl
        migrate``) or a layout with another shard count than an explicit ``shards``, and the
        Redis errors of the connection.
        """
        client = await open_client(url, max_connections, pool_timeout_s)
        on_cluster = isinstance(client, RedisCluster)
        try:
            layout = await read_layout(client, shards, keys.CLUSTER_SHARDS if on_cluster else 1)
        except BaseException:
            await client.aclose()
            raise
        store = cls(client, layout=layout, durability=durability, replica_wait_ms=replica_wait_ms)
        store._owns_client = True
        return store

    @property
    def blocking_client(self) -> Any:
        """The client for blocking reads (``XREAD BLOCK``), on its own pool."""
        return self._blocking

    async def active_count(self) -> int:
        """Matches created and not yet over, over every process on this Redis (one SCARD per shard)."""
        counts = await asyncio.gather(*(self._client.scard(self.layout.active_key(k))
                                        for k in range(self.layout.shards)))
        return sum(int(c) for c in counts)

    async def sample_active(self, count: int) -> list[str]:
        """Up to ``count`` ids of running matches, drawn at random from every shard (SRANDMEMBER)."""
        per = max(1, -(-count // self.layout.shards))
        got = await asyncio.gather(*(self._client.srandmember(self.layout.active_key(k), per)
                                     for k in range(self.layout.shards)))
        return [m.decode() if isinstance(m, bytes) else str(m) for ids in got for m in ids or []][:count]

    async def is_over(self, match_id: str) -> bool:
        """Whether the match's meta says it is over (one HGET); False for an unknown match."""
        raw = await self._client.hget(self.layout.state_key(match_id), keys.META_PREFIX + b"over")
        return raw is not None and json.loads(raw) is True

    async def is_running(self, match_id: str) -> bool:
        """Whether the match exists and its meta says it is not over (one HGET); False for an
        unknown or expired match."""
        raw = await self._client.hget(self.layout.state_key(match_id), keys.META_PREFIX + b"over")
        return raw is not None and json.loads(raw) is False

    @property
    def client(self) -> Any:
        """The client used for non-blocking commands (shared with other components if you like)."""
        return self._client

    async def aclose(self) -> None:
        """Close the blocking-read pool, and the main client if :meth:`from_url` made it."""
        if self._owns_blocking:
            await close_client(self._blocking)
        if self._owns_client:
            await close_client(self._client)

    async def __aenter__(self) -> MatchStore:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def _run(self, script: Any, script_keys: list[str], args: list[Any], *, durable: bool = False) -> Any:
        """Run a registered Lua script (EVALSHA, loading it on ``NOSCRIPT``). ``durable`` with
        ``durability = replicated``: send ``WAIT 1 <replica_wait_ms>`` right behind it on the same
        connection (``WAIT`` counts the writes of its own connection) and raise
        :class:`ReplicationTimeoutError` when no replica confirmed a script that wrote (a reply
        whose first element is 1, or 1 itself)."""
        if not durable or self.durability == "none":
            if self._on_slot_master is None:
                return await script(keys=script_keys, args=args)
            try:  # a cluster: straight to the slot's master (see _GatedCluster.on_slot_master)
                return await self._on_slot_master(script_keys[0], "EVALSHA", script.sha, len(script_keys),
                                                  *script_keys, *args)
            except NoScriptError:
                return await script(keys=script_keys, args=args)  # loads it on that node, then runs it
        for _attempt in range(2):
            results = await self._then_wait(script_keys[0],
                                            ("EVALSHA", script.sha, len(script_keys), *script_keys, *args))
            if isinstance(results[0], NoScriptError):
                await self._client.script_load(script.script)
                continue
            for r in results:
                if isinstance(r, BaseException):
                    raise r
            reply: Any = results[0]
            acked: Any = results[1]
            wrote = int(reply[0] if isinstance(reply, list) else reply) == 1
            if wrote and int(acked) < 1:
                raise ReplicationTimeoutError(script_keys[0], -1)
            return reply
        raise StoreError("the Lua script could not be loaded")

    async def _then_wait(self, key: str, command: tuple[Any, ...]) -> list[Any]:
        """``command`` and ``WAIT 1 <replica_wait_ms>`` behind it, in one pipeline on one connection
        to the node that holds ``key`` (on a cluster: its slot's master), so that the ``WAIT``
        counts ``command``'s write. The replies (errors as exception objects, not raised): the
        command's, then the number of replicas that confirmed. On a cluster a connection error or
        a redirection makes the client learn the slots again (a failover moved them)."""
        cmds = [command, ("WAIT", 1, self.replica_wait_ms)]
        try:
            if not self.cluster:
                pipe = self._client.pipeline(transaction=False)
                for c in cmds:
                    pipe.execute_command(*c)
                return list(await pipe.execute(raise_on_error=False))
            node = self._client.get_node_from_key(key)
            batch = [PipelineCommand(i, *c) for i, c in enumerate(cmds)]
            await node.execute_pipeline(batch)
        except (RedisError, OSError):
            if self.cluster:
                await self._client.nodes_manager.initialize()  # a failover moved the slot: learn where
            raise
        except RuntimeError as e:  # uvloop's closed transport: a connection error like redis-py's own
            if not is_closed_transport(e):
                raise
            if self.cluster:
                await self._client.nodes_manager.initialize()
            raise RedisConnectionError(f"connection closed under a command: {e}") from e
        results = [c.result for c in batch]
        if any(isinstance(r, (MovedError, AskError, ClusterDownError, TryAgainError)) for r in results):
            await self._client.nodes_manager.initialize()
        return results

    async def wait_replicated(self, match_id: str, version: int) -> None:
        """``durability = replicated``: return once a replica has every write the node of
        ``match_id`` applied so far, version ``version`` of the match included; raise
        :class:`ReplicationTimeoutError` (``match_id``, ``version``) when none confirms within
        ``replica_wait_ms``, as a commit does. For an answer that a version already stands (a
        retried action answered ``duplicate``): its first commit may have heard no replica's
        confirmation, and the retry must not acknowledge it with less than a commit would.

        ``WAIT`` only counts the writes of its own connection, so a bare ``WAIT`` on a connection
        that wrote nothing returns at once: one small write goes first on the same connection and
        node (``SET <shard prefix>sync``, expiring after a minute, in the match's hash tag), and a
        replica that has it has everything the node wrote before it. With ``durability = none``
        this returns at once, with no round trip."""
        if self.durability == "none":
            return
        key = self.layout.shard_prefix(self.layout.shard_of(match_id)) + "sync"
        results = await self._then_wait(key, ("SET", key, b"1", "PX", 60_000))
        for r in results:
            if isinstance(r, BaseException):
                raise r
        if int(results[1]) < 1:
            raise ReplicationTimeoutError(match_id, version)

    # -- matches -------------------------------------------------------------------

    async def create(
        self,
        match_id: str,
        state: bytes,
        meta: Mapping[str, Any],
        events: Sequence[bytes],
        deadline_ms: int = -1,
    ) -> int:
        """Create a match at version 1 and append ``events`` as stream ids ``1-0, 1-1, ...``.

        Atomic (one Lua script).  ``meta`` values must be JSON-serializable.
        Returns 1.  Raises ``MatchExistsError`` if ``match_id`` is taken
        (nothing written; note that a create whose reply was lost and that the
        client retried also ends here, so prefer fresh random ids),
        ``ValueError`` for an invalid id, ``TypeError`` for non-bytes events or
        non-JSON meta.  ``deadline_ms`` (ms since the epoch, -1 = none) is
        indexed in the deadlines sorted set in the same script.
        """
        meta_args = _meta_args(meta)
        args: list[bytes | int | str] = [
            bytes(state), match_id, int(deadline_ms), len(meta_args) // 2, *meta_args, *_check_events(events)
        ]
        state_key, events_key, deadlines_key, active_key, _feed = self.layout.shard_keys(match_id)
        self._hint_deadline(match_id, deadline_ms)
        try:
            created = await self._run(self._create_script, [state_key, events_key, deadlines_key, active_key], args,
                                      durable=True)
        except ReplicationTimeoutError:
            raise ReplicationTimeoutError(match_id, 1) from None
        if int(created) != 1:
            raise MatchExistsError(match_id)
        return 1

    async def load(self, match_id: str) -> StoredMatch | None:
        """The stored match, or ``None`` if there is none.  One round trip (HGETALL).

        Raises ``StoreError`` if the hash lacks its version or state.
        """
        raw: Any = await self._client.hgetall(self.layout.state_key(match_id))
        return self._stored(match_id, raw)

    async def load_if_changed(self, match_id: str, known_version: int,
                              known_commit: str | None = None) -> StoredMatch | int | None:
        """The stored match, unless its version is ``known_version`` and (when ``known_commit`` is
        given) its meta ``commit`` (a token the writer sets per version) is ``known_commit``: then
        that int comes back and the blob is not sent. ``None`` if there is no such match. One round trip
        (``load_if_changed.lua``). The token tells a version apart from the same version number
        written again after a Redis failover lost the first write."""
        commit = b"" if known_commit is None else _dump_json(known_commit)
        got: Any = await self._run(self._load_if_changed_script, [self.layout.state_key(match_id)],
                                   [int(known_version), commit])
        if not got:
            return None
        if len(got) == 1:
            return int(got[0])
        flat = got[1]
        raw = dict(zip(flat[::2], flat[1::2], strict=True)) if isinstance(flat, list) else flat
        return self._stored(match_id, raw)

    @staticmethod
    def _stored(match_id: str, raw: Any) -> StoredMatch | None:
        if not raw:
            return None
        try:
            version = int(raw[keys.FIELD_VERSION])
            state = raw[keys.FIELD_STATE]
        except (KeyError, ValueError) as exc:
            raise StoreError(f"match {match_id!r} is corrupt: {type(exc).__name__}: {exc}") from exc
        plen = len(keys.META_PREFIX)
        meta = {
            name[plen:].decode("utf-8"): orjson.loads(value)
            for name, value in raw.items()
            if name.startswith(keys.META_PREFIX)
        }
        return StoredMatch(match_id=match_id, version=version, state=state, meta=meta)

    async def commit(
        self,
        match_id: str,
        expected_version: int,
        new_state: bytes,
        events: Sequence[bytes],
        meta_updates: Mapping[str, Any] | None = None,
        deadline_ms: int = -1,
        ttl_ms: int = 0,
        finished: bool = False,
        expected_commit: str | None = None,
    ) -> int:
        """Compare-and-set: replace the state of version ``expected_version``.

        In one atomic Lua script: checks that the stored version equals
        ``expected_version``, stores ``new_state`` as version
        ``expected_version + 1``, merges ``meta_updates`` into the meta
        (shallow, like ``dict.update``: listed keys are replaced, others kept)
        and appends ``events`` to the stream with ids ``<new_version>-0``,
        ``<new_version>-1``, ...  (no events: one :data:`~bummerl.store.keys.NO_EVENT` entry, so
        that streams and inboxes announce every version) and sets the match's entry in the deadlines
        sorted set to ``deadline_ms`` (ms since the epoch; -1 removes it); the commit
        also appends them as one entry to the inbox of each process that follows the match
        (``followers_key``, ``inbox_key``: see :class:`~bummerl.store.hub.StreamHub`).
        ``ttl_ms`` > 0 sets the match keys to expire that many **milliseconds**
        later (retention of a finished match).  ``finished`` = this version ends the match: it
        leaves the active set (:meth:`active_count`).  Returns the new version.

        Raises (nothing is written in any of these cases):
            VersionConflictError: the stored version differs; ``.current_version``
                is the stored one.
            MatchNotFoundError: no such match.
            StoreError: the stream already holds ids of the new version (corrupt data).
            ValueError: invalid id or ``expected_version < 1``.
        """
        if (
            not isinstance(expected_version, int)
            or isinstance(expected_version, bool)
            or expected_version < 1
        ):
            raise ValueError(f"expected_version must be an int >= 1, got {expected_version!r}")
        meta_args = _meta_args(meta_updates or {})
        self._hint_deadline(match_id, deadline_ms)
        cas = str(expected_version) if expected_commit is None else \
            f"{expected_version} {_dump_json(expected_commit).decode()}"
        args: list[bytes | int | str] = [
            cas,
            bytes(new_state),
            match_id,
            int(deadline_ms),
            max(0, int(ttl_ms)),
            "1" if finished else "0",
            keys.INBOX_MAXLEN,
            len(meta_args) // 2,
            int(time.time() * 1000),
            *meta_args,
            *(_check_events(events) or [keys.NO_EVENT]),
        ]
        try:
            status, version = await self._run(self._commit_script, list(self.layout.shard_keys(match_id)), args,
                                              durable=True)
        except ReplicationTimeoutError:
            raise ReplicationTimeoutError(match_id, expected_version + 1) from None
        status, version = int(status), int(version)
        if status == 1:
            return version
        if status == 0:
            raise VersionConflictError(match_id, expected_version, version)
        if status == -1:
            raise MatchNotFoundError(match_id)
        raise StoreError(f"match {match_id!r}: event stream is ahead of version {version}")

    async def events_since(
        self, match_id: str, after_version: int, count: int | None = None
    ) -> list[tuple[int, bytes]]:
        """Events of versions ``> after_version``, oldest first, as ``(version, payload)``.

        ``after_version=0`` gives every event.  ``count`` is a soft limit on
        the number of events: the result never stops in the middle of a
        version (it may exceed ``count`` to finish the last version), so a
        reader can always resume from the last version it got.  ``None``: all.
        A missing match gives ``[]``.  One round trip (two if ``count`` cuts a version).
        """
        if after_version < 0:
            raise ValueError("after_version must be >= 0")
        if count is not None and count < 1:
            raise ValueError("count must be >= 1 or None")
        key = self.layout.events_key(match_id)
        entries: list[Any] = list(
            await self._client.xrange(key, min=f"{after_version + 1}-0", max="+", count=count) or []
        )
        if count is not None and len(entries) == count:
            last_id: bytes = entries[-1][0]
            last_version = keys.version_of_stream_id(last_id)
            rest: Any = await self._client.xrange(
                key, min=b"(" + last_id, max=f"{last_version}-{keys.MAX_SEQ}"
            )
            entries.extend(rest or [])
        return _parse_entries(entries)

    async def wait_events(
        self, match_id: str, after_version: int, timeout_ms: int
    ) -> list[tuple[int, bytes]]:
        """Like :meth:`events_since` without ``count``, but waits for new events.

        Returns at once if events of versions ``> after_version`` exist;
        otherwise blocks (``XREAD BLOCK``, on the dedicated blocking pool) until
        a commit appends some or ``timeout_ms`` **milliseconds** pass, then
        returns ``[]``.  All events of one commit arrive together.  Does not
        check that the match exists (a missing match just times out).
        Raises ``ValueError`` unless ``timeout_ms >= 1``.  Cancelling the
        awaiting task is safe (redis-py drops that connection).
        """
        if after_version < 0:
            raise ValueError("after_version must be >= 0")
        if isinstance(timeout_ms, bool) or not isinstance(timeout_ms, int) or timeout_ms < 1:
            raise ValueError(f"timeout_ms must be an int >= 1, got {timeout_ms!r}")
        key = self.layout.events_key(match_id)
        async with asyncio.timeout(timeout_ms / 1000 + _BLOCK_GRACE_S):
            reply: Any = await self._blocking.xread(
                {key: f"{after_version}-{keys.MAX_SEQ}"}, block=timeout_ms
            )
        if not reply:
            return []
        # RESP2 reply: [[key, entries]]; RESP3 reply: {key: [entries]}.
        if isinstance(reply, dict):
            entry_lists = [lst for wrapped in reply.values() for lst in wrapped]
        else:
            entry_lists = [entries for _key, entries in reply]
        return [ev for entries in entry_lists for ev in _parse_entries(entries)]

    async def delete(self, match_id: str) -> bool:
        """Delete the match's state and events (one DEL), its followers, its deadline and its place
        in the active set.  True if the state or events were there."""
        shard = self.layout.shard_of(match_id)
        await self._client.zrem(self.layout.deadlines_key(shard), match_id)
        await self._client.srem(self.layout.active_key(shard), match_id)
        await self._client.delete(self.layout.followers_key(match_id))
        return int(await self._client.delete(*self.layout.match_keys(match_id))) > 0

    async def follow(self, match_id: str, process: str, ttl_ms: int) -> None:
        """Register ``process`` (letters and digits) as a follower of the match for ``ttl_ms``
        **milliseconds** (by this process's clock: the servers' clocks may differ by less than
        that): until then every commit of the match is also
        appended to the process's inbox on the match's shard (:meth:`KeyLayout.inbox_key`), which is
        created if missing and expires ``2 * ttl_ms`` after the last registration. One script call
        (``follow.lua``). Raises ``ValueError`` for a bad id or ``ttl_ms < 1``, and Redis errors."""
        if isinstance(ttl_ms, bool) or not isinstance(ttl_ms, int) or ttl_ms < 1:
            raise ValueError(f"ttl_ms must be an int >= 1, got {ttl_ms!r}")
        inbox = self.layout.inbox_key(self.layout.shard_of(match_id), process)
        await self._run(self._follow_script, [self.layout.followers_key(match_id), inbox],
                        [ttl_ms, int(time.time() * 1000)])

    # -- deadlines (docs/DESIGN.md §5: clocks, the reaper) -----------------------------------

    async def claim_due(self, now_ms: int, lease_ms: int, limit: int = 64) -> list[str]:
        """Atomically claim up to ``limit`` matches whose deadline is ``<= now_ms`` (all in
        **milliseconds** since the epoch): each is pushed to ``now_ms + lease_ms`` so that no
        other reaper claims it during the lease. Returns their ids, oldest deadline first within each shard.
        Reapers racing for one deadline get disjoint sets (one Lua script per shard)."""
        return (await self.claim_round(now_ms, lease_ms, limit))[0]

    async def claim_round(self, now_ms: int, lease_ms: int, limit: int = 64) -> tuple[list[str], int | None]:
        """:meth:`claim_due` over every shard (up to ``limit`` per shard), and the earliest deadline
        left after it over all shards (ms since the epoch, None if there is none): one script call
        per shard, so a reaper's round costs S commands, not 2 S."""
        ids, nexts = await self.claim_shards(now_ms, lease_ms, limit, range(self.layout.shards))
        known = [n for n in nexts.values() if n is not None]
        return ids, (min(known) if known else None)

    async def claim_shards(self, now_ms: int, lease_ms: int, limit: int,
                           shards: Iterable[int]) -> tuple[list[str], dict[int, int | None]]:
        """:meth:`claim_due` on the given shards only (up to ``limit`` each): the claimed ids, and
        per shard the earliest deadline left in it after the claim (ms since the epoch; None: the
        shard has no deadline). One script call per shard, concurrently. Raises ``ValueError``
        for a bad argument or shard number."""
        if lease_ms < 1 or limit < 1:
            raise ValueError("lease_ms and limit must be >= 1")
        wanted = list(shards)
        if any(not 0 <= k < self.layout.shards for k in wanted):
            raise ValueError(f"shards must be in 0..{self.layout.shards - 1}, got {wanted}")
        got: Any = await asyncio.gather(*(
            self._run(self._claim_script, [self.layout.deadlines_key(k)], [int(now_ms), int(lease_ms), int(limit)])
            for k in wanted))
        ids = [m.decode() if isinstance(m, bytes) else str(m) for due, _next in got for m in due or []]
        return ids, {k: int(float(n)) if n else None for k, (_due, n) in zip(wanted, got, strict=True)}

    def _hint_deadline(self, match_id: str, deadline_ms: int) -> None:
        if deadline_ms >= 0:
            shard = self.layout.shard_of(match_id)
            held = self._deadline_hints.get(shard)
            if held is None or deadline_ms < held:
                self._deadline_hints[shard] = int(deadline_ms)

    def take_deadline_hints(self) -> dict[int, int]:
        """Shard -> the earliest deadline (ms since the epoch) that this store indexed there
        (create, commit, :meth:`set_deadline`) since the last call, and forgets them: the process's
        reaper learns its own deadlines without asking Redis (one reaper per store takes them)."""
        hints, self._deadline_hints = self._deadline_hints, {}
        return hints

    async def deadline_of(self, match_id: str) -> int | None:
        """The indexed deadline of one match (ms since the epoch), or None."""
        score = await self._client.zscore(self.layout.deadlines_key(self.layout.shard_of(match_id)), match_id)
        return None if score is None else int(score)

    async def set_deadline(self, match_id: str, deadline_ms: int) -> None:
        """Index ``match_id``'s deadline (ms since the epoch); -1 removes it. Used by the reaper
        to put back a claimed deadline that turned out not to be due."""
        key = self.layout.deadlines_key(self.layout.shard_of(match_id))
        self._hint_deadline(match_id, deadline_ms)
        if deadline_ms < 0:
            await self._client.zrem(key, match_id)
        else:
            await self._client.zadd(key, {match_id: int(deadline_ms)})

    async def exists(self, match_id: str) -> bool:
        """True if the match exists (one EXISTS)."""
        return int(await self._client.exists(self.layout.state_key(match_id))) == 1

    async def ping(self) -> bool:
        """True if the server answers PING; False on any Redis/connection error (never raises)."""
        try:
            return bool(await self._client.ping())
        except (RedisError, OSError):
            return False

    # -- small generic helpers for non-match keys ------------------------------------

    async def set_json(self, key: str, obj: Any, ttl_s: float | None = None) -> None:
        """Store ``obj`` as JSON under ``key`` (``bm:...`` but not a match key ``bm:{...``).

        ``ttl_s``: expiry in **seconds** (fractions allowed, millisecond
        precision); ``None`` = no expiry.  Raises ``ValueError`` for a bad key
        or ``ttl_s <= 0``, ``TypeError``/``ValueError`` if ``obj`` is not JSON.
        """
        keys.check_aux_key(key)
        px: int | None = None
        if ttl_s is not None:
            if ttl_s <= 0:
                raise ValueError("ttl_s must be > 0 or None")
            px = max(1, round(ttl_s * 1000))
        await self._client.set(key, _dump_json(obj), px=px)

    async def get_json(self, key: str) -> Any | None:
        """The JSON value stored under ``key`` by :meth:`set_json`, or ``None`` if absent/expired."""
        keys.check_aux_key(key)
        raw = await self._client.get(key)
        return None if raw is None else json.loads(raw)

    async def delete_json(self, key: str) -> bool:
        """Delete ``key`` (a non-match ``bm:`` key).  True if it existed."""
        keys.check_aux_key(key)
        return int(await self._client.delete(key)) > 0

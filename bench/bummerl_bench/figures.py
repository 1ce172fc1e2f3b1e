"""What the service benchmarks read of a server process: its CPU (:func:`cpu_figures`, Linux
/proc), memory, collector pauses (:func:`_server_gc`), Redis command counts (:func:`redis_counts`),
and small helpers (a free port, environment overrides)."""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Iterator
from typing import Any

from bummerl.rules import TalonDeal, actions

DECLARE = actions.DECLARE
OVER = TalonDeal.OVER


def _rss_mb(pid: int) -> float | None:
    """Resident memory of a process in MiB (Linux /proc), or None."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        return None
    return None


def _cpu_seconds(pid: int) -> float | None:
    """CPU time (user + system, all threads, seconds) of process ``pid`` and of its descendants
    but the embedded Valkey (``bummerl serve --workers N``: the workers), from Linux /proc; None
    elsewhere or when the process is gone. Resolution: one clock tick (10 ms). Each process counts
    its own time and that of its children it has reaped (``cutime``, ``cstime``), so a worker that
    exits between two readings keeps its share (summing live processes only, the total could fall
    between two readings: a negative CPU per action)."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0
    todo = [pid]
    try:
        while todo:
            p = todo.pop()
            with open(f"/proc/{p}/stat", encoding="ascii") as f:
                stat = f.read()
            comm = stat[stat.index("(") + 1:stat.rindex(")")]
            if "valkey" in comm or "redis" in comm:
                continue
            fields = stat[stat.rindex(")") + 2:].split()
            total += sum(int(x) for x in fields[11:15])  # utime, stime, cutime, cstime (fields 14-17 of stat)
            with open(f"/proc/{p}/task/{p}/children", encoding="ascii") as f:
                todo.extend(int(c) for c in f.read().split())
    except (OSError, ValueError):
        return None
    return total / tick


def cpu_figures(pid: int, run: Callable[[], dict[str, Any]], actions: str = "submit_calls") -> dict[str, Any]:
    """``run()``'s result (a load's figures: ``seconds``, the number of actions under the key
    ``actions`` and, when it counts them, ``calls_per_s``) plus ``server_cpu``: the CPU the server process ``pid`` (and its workers)
    used meanwhile, as ``{"cores", "ms_per_action", "ms_per_call"}`` (cores = CPU seconds per
    wall second; ms of CPU per SubmitAction and per RPC of any kind), or None without /proc.
    CPU per call is the figure that two shared cores disturb least: the throughput of a
    saturated server moves with whatever else runs, its cost per call much less."""
    before, t0 = _cpu_seconds(pid), time.perf_counter()
    out = run()
    after, wall = _cpu_seconds(pid), time.perf_counter() - t0
    cpu = None
    if before is not None and after is not None and out.get(actions):
        used = after - before
        calls = out.get("calls_per_s", 0) * out["seconds"]
        cpu = {"cores": round(used / wall, 2), "ms_per_action": round(used * 1000 / out[actions], 3),
               "ms_per_call": round(used * 1000 / calls, 3) if calls else None}
    return {**out, "server_cpu": cpu}


def _server_gc(metrics_port: int) -> dict[str, Any] | None:
    """The server's garbage-collector pauses so far, from its ``bummerl_gc_pause_seconds``
    histogram (all generations): ``{"collections", "pause_ms", "over_2ms", "over_5ms"}`` (total
    pause in ms; collections that paused longer than 2 and 5 ms). None if unreadable."""
    import urllib.request

    from prometheus_client.parser import text_string_to_metric_families

    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics", timeout=5) as resp:
            text = resp.read().decode()
    except OSError:
        return None
    count = total = 0.0
    within: dict[str, float] = {"0.002": 0.0, "0.005": 0.0}
    for family in text_string_to_metric_families(text):
        if family.name != "bummerl_gc_pause_seconds":
            continue
        for sample in family.samples:
            if sample.name.endswith("_count"):
                count += sample.value
            elif sample.name.endswith("_sum"):
                total += sample.value
            elif sample.name.endswith("_bucket") and sample.labels.get("le") in within:
                within[sample.labels["le"]] += sample.value
    return {"collections": int(count), "pause_ms": round(total * 1000, 1),
            "over_2ms": int(count - within["0.002"]), "over_5ms": int(count - within["0.005"])}


@contextlib.contextmanager
def _env(**values: str) -> Iterator[None]:
    old = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def redis_counts(url: str) -> dict[str, int]:
    """A Redis/Valkey server's totals: ``commands`` run (INFO commandstats, every command,
    the blocking reads and the Lua scripts' own commands included), ``bytes_in`` and ``bytes_out``
    on the network (INFO stats), and ``memory_bytes`` in use (INFO memory: what the matches keep,
    finished ones until their retention ends). Read before and after a load, the difference per
    action is what an action costs Redis."""
    import redis

    client = redis.Redis.from_url(url)
    try:
        stats = client.info("commandstats")
        net = client.info("stats")
        mem = client.info("memory")
    finally:
        client.close()
    return {"commands": sum(int(v.get("calls", 0)) for v in stats.values() if isinstance(v, dict)),
            "bytes_in": int(net.get("total_net_input_bytes", 0)), "bytes_out": int(net.get("total_net_output_bytes", 0)),
            "memory_bytes": int(mem.get("used_memory", 0))}


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])

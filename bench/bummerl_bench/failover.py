"""``bummerl bench failover``: acknowledged actions lost when a Redis Cluster master dies (issue 26).

For each durability (``none``, then ``replicated``) on a fresh local Valkey Cluster (three masters,
one replica each, no persistence: what survives a master is what its replica had): one server
process (:class:`bummerl.app.Runtime`) and ``--matches`` matches played by random bots through the
public gRPC API. Every few seconds a master is killed with SIGKILL in the middle of the load; its
replica is promoted (node timeout 1 s), and the dead node comes back as a replica before the next
kill. Bots retry what fails (UNAVAILABLE while the slot has no master) and go on.

What is counted: a bot notes the highest version the server acknowledged for its match (the
SubmitAction reply). If the match is later seen at a lower version (every bot reads its
information set before each action, and once more at the end), the difference is acknowledged
actions lost. Also: actions acknowledged, errors by status code, and matches that made no progress
after the last failover (stalled).

Figures, not a test: the outcome depends on timing (how far a replica lags when its master dies).
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any


@dataclass
class FailoverFigures:
    """One run's counts (see the module docstring)."""

    durability: str
    failovers: int = 0
    acked: int = 0
    lost: int = 0
    matches: int = 0
    finished: int = 0
    stalled: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0
    failover_s: list[float] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {"durability": self.durability, "failovers": self.failovers, "acked_actions": self.acked,
                "lost_acked_actions": self.lost, "matches": self.matches, "matches_finished": self.finished,
                "stalled_matches": self.stalled, "errors": dict(self.errors), "seconds": round(self.seconds, 1),
                "failover_seconds": [round(x, 2) for x in self.failover_s]}


async def _freeze_replica_of(port: int, lag_s: float) -> None:
    """Stop (SIGSTOP) the replica of the master at ``port`` for ``lag_s`` seconds, so that it falls
    behind, cut its replication link on the master (CLIENT KILL TYPE replica) just before the master
    is killed (two thirds into the freeze), then let it run (SIGCONT): issue 38's lagging replica."""
    import os
    import signal

    import redis.asyncio as aioredis

    master = aioredis.Redis(host="127.0.0.1", port=port)
    try:
        info = await master.info("replication")
        link = info.get("slave0") or {}
        if not link:
            return
        replica = aioredis.Redis(host=str(link["ip"]), port=int(link["port"]))
        pid = int((await replica.info("server"))["process_id"])
        await replica.aclose()
    finally:
        await master.aclose()
    os.kill(pid, signal.SIGSTOP)
    try:
        await asyncio.sleep(lag_s * 2 / 3 - 0.05)
        # the link is cut just before the kill: what the master still held for the replica (its
        # output buffer, beyond what the kernel's socket buffers took) never reaches it
        master = aioredis.Redis(host="127.0.0.1", port=port)
        try:
            await master.execute_command("CLIENT", "KILL", "TYPE", "replica")
        except Exception:  # noqa: BLE001 - the master is being killed anyway
            pass
        finally:
            await master.aclose()
        await asyncio.sleep(lag_s / 3 + 0.05)
    finally:
        os.kill(pid, signal.SIGCONT)


async def measure_failover(durability: str, matches: int, failovers: int, gap_s: float, seed: int,
                           lag_s: float = 0.0) -> FailoverFigures:
    """One run on a fresh cluster: ``matches`` concurrent matches, ``failovers`` masters killed
    ``gap_s`` **seconds** apart (see the module docstring); with ``lag_s`` > 0 the master's replica
    is stopped for ``lag_s`` seconds first and the master killed two thirds into that (a replica
    that lags, issue 38); returns its :class:`FailoverFigures`."""
    from bummerl.app import Runtime
    from bummerl.config import Settings
    from bummerl_bench.valkey_cluster import EmbeddedValkeyCluster
    from bummerl_client import AsyncClient, BummerlError

    figs = FailoverFigures(durability)
    rng = random.Random(seed)
    cluster = EmbeddedValkeyCluster(masters=3, replicas_per_master=1, node_timeout_ms=1000)
    url = await asyncio.to_thread(cluster.start)
    settings = Settings.from_env({}, port=0, http_port=0, metrics_port=0, redis_url=url, durability=durability,
                                 replica_wait_ms=1000)
    stop = asyncio.Event()
    acked: dict[str, int] = {}
    progressed: dict[str, float] = {}
    try:
        async with Runtime(settings) as rt, AsyncClient(rt.target) as c:

            async def play(slot: int) -> None:
                while not stop.is_set():
                    try:
                        m = await c.create_match("schnapsen-at", seed=rng.randrange(2**31))
                    except BummerlError as e:
                        figs.errors[e.code.name] += 1
                        await asyncio.sleep(0.05)
                        continue
                    figs.matches += 1
                    mid = m.match_id
                    acked[mid] = 1
                    progressed[mid] = time.monotonic()
                    while not stop.is_set():
                        try:
                            info = await c.information_set(mid, 0, m.tokens[0])
                            version = int(info["version"])
                            if version < acked[mid]:
                                figs.lost += acked[mid] - version
                                acked[mid] = version
                            if info["match"]["over"]:
                                figs.finished += 1
                                break
                            seat = int(info["deal"]["to_act"])
                            if seat != 0:
                                info = await c.information_set(mid, seat, m.tokens[seat])
                            action = rng.choice(info["legal_actions"])["id"]
                            reply = await c.submit_action(mid, seat, m.tokens[seat], int(info["version"]), action)
                            new = int(reply["version"])
                            figs.acked += 1
                            acked[mid] = max(acked[mid], new)
                            progressed[mid] = time.monotonic()
                        except BummerlError as e:
                            figs.errors[e.code.name] += 1
                            await asyncio.sleep(0.05)

            players = [asyncio.create_task(play(i)) for i in range(matches)]
            started = time.monotonic()
            await asyncio.sleep(gap_s)
            last_failover = time.monotonic()
            for i in range(failovers):
                master = cluster.masters()[i % 3]
                frozen = None
                if lag_s > 0:
                    frozen = asyncio.create_task(_freeze_replica_of(master.port, lag_s))
                    await asyncio.sleep(lag_s * 2 / 3)
                t0 = time.monotonic()
                _host, port = await asyncio.to_thread(cluster.kill_master, master.port)
                if frozen is not None:
                    await frozen
                await asyncio.to_thread(cluster.wait_for_failover, port, 30.0)
                figs.failover_s.append(time.monotonic() - t0)
                figs.failovers += 1
                last_failover = time.monotonic()
                await asyncio.sleep(gap_s / 2)
                await asyncio.to_thread(cluster.restart_node, port)
                await asyncio.sleep(gap_s / 2)
            await asyncio.sleep(gap_s)
            stop.set()
            await asyncio.gather(*players, return_exceptions=True)
            figs.seconds = time.monotonic() - started
            for mid, version in list(acked.items()):  # the final look
                stored = await rt.store.load(mid) if rt.store is not None else None
                if stored is None:
                    figs.lost += version
                elif stored.version < version:
                    figs.lost += version - stored.version
                elif not (stored.meta.get("over")) and progressed.get(mid, 0) < last_failover:
                    figs.stalled += 1
    finally:
        await asyncio.to_thread(cluster.stop)
    return figs


def run(matches: int = 16, failovers: int = 3, gap_s: float = 4.0, seed: int = 1, as_json: bool = False,
        modes: tuple[str, ...] = ("none", "replicated"), lag_s: float = 0.0) -> list[FailoverFigures]:
    """Run every mode in ``modes`` and print one line (or one JSON object) each (``lag_s``: see
    :func:`measure_failover`); returns the figures."""
    out = []
    for mode in modes:
        figs = asyncio.run(measure_failover(mode, matches, failovers, gap_s, seed, lag_s))
        out.append(figs)
        if as_json:
            print(json.dumps(figs.as_dict()), flush=True)
        else:
            print(f"durability={mode:10s} lag={lag_s:g}s failovers={figs.failovers} (each {', '.join(f'{x:.1f}' for x in figs.failover_s)} s) "
                  f"acked actions={figs.acked} lost acked actions={figs.lost} matches={figs.matches} "
                  f"stalled={figs.stalled} errors={dict(figs.errors)} in {figs.seconds:.0f} s", flush=True)
    return out

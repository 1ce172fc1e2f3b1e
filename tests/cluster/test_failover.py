"""Failover on Redis Cluster (issue 26): a master killed with SIGKILL in the middle of the load;
its replica is promoted and every match goes on, and with ``durability = replicated`` no action
the server acknowledged is lost.

Runs its own Valkey Cluster (three masters, one replica each, no persistence: what survives is what
the replica had) and one server process; the load is random bots over the public gRPC API
(:mod:`bummerl_bench.failover`, which prints the same counts for both durabilities).
"""

from __future__ import annotations

from bummerl_bench.failover import measure_failover


async def test_replicated_durability_loses_no_acknowledged_action_when_a_master_dies() -> None:
    figs = await measure_failover("replicated", matches=6, failovers=1, gap_s=2.0, seed=3)
    assert figs.failovers == 1 and figs.failover_s[0] < 15
    assert figs.acked > 100  # the load really ran, before and after the failover
    assert figs.lost == 0
    assert figs.stalled == 0  # every match went on after the failover
    assert set(figs.errors) <= {"UNAVAILABLE", "ABORTED"}  # retryable answers only, while the slot moved

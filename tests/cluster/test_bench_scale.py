"""``bummerl bench scale`` at its smallest (issue 40): K=1 on one Valkey node and on a three-master
cluster for two seconds each. Its JSON has one row per (kind, K) with every figure the capacity
plan quotes, the cluster's Redis commands per action stay near the node's (no routing round trips,
no per-shard polling), and when the command is done nothing it started is left running."""

from __future__ import annotations

import json
import os
import subprocess
import sys

ROW_KEYS = {"redis", "k", "loaders", "matches", "actions", "actions_per_s", "submit_p50_ms", "submit_p99_ms",
            "update_p50_ms", "update_p99_ms", "errors", "error_kinds", "server_cores", "server_ms_per_action",
            "valkey_cores", "valkey_ms_per_action", "loader_cores", "commands_per_action", "commands_by_kind",
            "efficiency", "cluster_over_node", "efficiency_cpu", "cluster_over_node_cpu"}


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, exited but not yet reaped by its parent, counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_bench_scale_prints_its_figures_as_json_and_leaves_no_process_behind() -> None:
    env = {k: v for k, v in os.environ.items() if k != "BUMMERL_REDIS_URL"}
    out = subprocess.run([sys.executable, "-m", "bummerl_cli", "bench", "scale", "--ks", "1", "--redis", "both",
                          "--seconds", "2", "--matches", "4", "--json"],
                         capture_output=True, text=True, timeout=240, env=env, check=True).stdout
    result = json.loads(out.strip().splitlines()[-1])
    assert result["settings"]["ks"] == [1] and result["settings"]["kinds"] == ["node", "cluster"]
    rows = {r["redis"]: r for r in result["rows"]}
    assert set(rows) == {"node", "cluster"}
    for kind, row in rows.items():
        assert ROW_KEYS <= set(row), ROW_KEYS - set(row)
        assert row["k"] == 1 and row["loaders"] == 1 and row["matches"] == 4
        assert row["actions"] > 0 and row["actions_per_s"] > 0, row
        assert row["errors"] == 0, row["error_kinds"]
        assert row["submit_p50_ms"] is not None and row["submit_p99_ms"] >= row["submit_p50_ms"]
        assert row["update_p99_ms"] is not None
        assert row["efficiency"] == 1.0 and row["efficiency_cpu"] == 1.0
        assert 3 < row["commands_per_action"] < 40, row["commands_by_kind"]
        assert "evalsha" in row["commands_by_kind"]
        assert (row["cluster_over_node"] is None) == (row["cluster_over_node_cpu"] is None) == (kind == "node")
    # issue 40: the cluster pays no routing round trips and no per-shard polling (before: 13-14 commands
    # per action on the cluster against 9.6-9.8 on one node, 2 of them COMMAND GETKEYS)
    assert not any(kind.startswith("command") for kind in rows["cluster"]["commands_by_kind"])
    assert rows["cluster"]["commands_per_action"] <= 1.2 * rows["node"]["commands_per_action"]
    assert result["pids"] and len(result["pids"]) >= 1 + 3 + 2 * 2  # Valkey node, 3 masters, 2 servers, 2 loaders
    left = [p for p in result["pids"] if alive(p)]
    assert not left, f"processes left running: {left}"

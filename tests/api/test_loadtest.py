"""``bummerl loadtest`` (issue 26) against a running server, over gRPC and REST: real matches are
played by streaming bots, the report has the RPC and commit-to-update latencies, and a missed SLO
is exit code 1."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from bummerl.app import Runtime
from bummerl_cli.loadtest import check_slo, parse_range, parse_slo, quantiles
from bummerl_cli.main import main


async def run(capsys: Any, *argv: str) -> tuple[int, dict[str, Any]]:
    capsys.readouterr()
    code = await asyncio.to_thread(main, ["loadtest", *argv, "--json"])
    return code, json.loads(capsys.readouterr().out.splitlines()[-1])


@pytest.mark.parametrize("transport", ["grpc", "rest"])
async def test_loadtest_plays_matches_and_reports(rt: Runtime, capsys: Any, transport: str) -> None:
    where = ["--server", rt.target] if transport == "grpc" else ["--rest", f"http://127.0.0.1:{rt.http_port}"]
    code, rep = await run(capsys, *where, "--matches", "4", "--duration", "3", "--ramp", "0.5", "--think-ms", "0..5",
                          "--seed", "1", "--slo", "errors=1000")
    assert code == 0 and rep["api"] == transport
    assert rep["actions"] > 20 and rep["matches_done"] >= 1
    assert rep["rpc_ms"]["SubmitAction"]["n"] == rep["actions"] and rep["rpc_ms"]["CreateMatch"]["n"] >= 4
    assert rep["update_ms"]["n"] > 0 and rep["update_ms"]["p99"] >= rep["update_ms"]["p50"]
    code, rep = await run(capsys, *where, "--matches", "2", "--duration", "1", "--ramp", "0", "--think-ms", "0",
                          "--slo", "actions_per_s=1000000")
    assert code == 1 and rep["slo"]["missed"] and "actions/s" in rep["slo"]["missed"][0]


def test_loadtest_arguments() -> None:
    assert parse_range("20..200") == (20.0, 200.0) and parse_range("5") == (5.0, 5.0)
    assert parse_slo("p99_ms=50,errors=0") == {"p99_ms": 50.0, "errors": 0.0}
    with pytest.raises(ValueError):
        parse_slo("p50=1")
    q = quantiles([float(x) for x in range(1, 101)])
    assert (q["p50"], q["p95"], q["p99"]) == (50.0, 95.0, 99.0)
    rep = {"rpc_ms": {"SubmitAction": {"p99": 60.0}}, "update_ms": {"p99": 1.0}, "error_total": 0, "actions_per_s": 5}
    assert check_slo(rep, {"p99_ms": 50}) == {"ok": False, "missed": ["SubmitAction p99 60.0 ms > 50 ms"]}


def test_loadtest_fails_when_no_match_could_be_created(capsys: Any) -> None:
    """Every CreateMatch failing (here: no server at all) is no passed load test: exit 1, and the
    report says why."""
    code = main(["loadtest", "--server", "127.0.0.1:1", "--matches", "1", "--duration", "1", "--ramp", "0", "--json"])
    rep = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert code == 1 and rep["actions"] == 0
    assert not rep["slo"]["ok"] and rep["slo"]["missed"][0].startswith("no match could be created")
    assert "UNAVAILABLE" in rep["slo"]["missed"][0]

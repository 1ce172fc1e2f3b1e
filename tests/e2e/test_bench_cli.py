"""``bummerl bench`` works for every variant and prints the documented JSON keys (figures are
printed, never asserted: benchmarks are not timed tests)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from bummerl.rules import list_variants


@pytest.mark.parametrize("variant", [v.id for v in list_variants()])
def test_bench_engine_runs_for_every_variant(variant: str) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "bummerl_cli", "bench", "engine", "--variant", variant, "--seconds", "0.2", "--json"],
        capture_output=True, text=True, check=True, timeout=60,
    ).stdout
    r = json.loads(out.strip().splitlines()[-1])
    assert r["variant"] == variant and r["deals"] > 0 and r["actions"] >= r["deals"]
    assert r["deals_per_s"] > 0


@pytest.mark.parametrize("api", ["grpc", "rest", "grpc-sdk", "grpc-stream", "grpc-stream-sdk"])
def test_bench_service_prints_throughput_and_latency(api: str) -> None:
    flag = {"grpc": [], "rest": ["--rest"], "grpc-sdk": ["--sdk"], "grpc-stream": ["--stream"],
            "grpc-stream-sdk": ["--stream", "--sdk"]}[api]
    out = subprocess.run(
        [sys.executable, "-m", "bummerl_cli", "bench", "service", "--matches", "2", "--seconds", "1", "--json", *flag],
        capture_output=True, text=True, check=True, timeout=120,
    ).stdout
    r = json.loads(out.strip().splitlines()[-1])
    assert r["submit_calls"] > 0 and r["errors"] == 0 and r["api"] == api
    assert {"actions_per_s", "p50_ms", "p99_ms"} <= set(r)
    rd = r["redis_per_action"]  # what an action costs the server's Valkey (INFO around the load)
    assert rd["commands"] > 1 and rd["bytes_in"] > 100 and rd["memory_bytes"] != 0
    cpu = r["server_cpu"]  # the server's CPU (all its threads) over the run, from /proc
    assert cpu["cores"] > 0 and cpu["ms_per_action"] > 0
    if api == "grpc-stream":  # streaming players read nothing: SubmitAction and CreateMatch only
        assert r["actions_per_s"] < r["calls_per_s"] < 1.2 * r["actions_per_s"]
    elif "stream" not in api:
        assert r["calls_per_s"] > 1.2 * r["actions_per_s"]  # polling also reads the next seat's view


def test_bench_service_paced_stays_at_its_rate() -> None:
    """``--rate``: an open-loop load at that many SubmitAction/s in all, not as fast as answers come."""
    out = subprocess.run(
        [sys.executable, "-m", "bummerl_cli", "bench", "service", "--matches", "4", "--seconds", "2", "--rate", "20",
         "--json"],
        capture_output=True, text=True, check=True, timeout=120,
    ).stdout
    r = json.loads(out.strip().splitlines()[-1])
    assert r["rate"] == 20 and r["errors"] == 0 and 0 < r["actions_per_s"] <= 25
    # the server's collector pauses, read from its bummerl_gc_pause_seconds: paced every 10 ms
    g = r["server_gc"]
    assert g["collections"] >= 100 and 0 < g["pause_ms"] and 0 <= g["over_5ms"] <= g["over_2ms"] <= g["collections"]


def test_bench_timeouts_and_ladder_print_their_figures() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "bummerl_cli", "bench", "timeouts", "--matches", "3", "--json"],
        capture_output=True, text=True, check=True, timeout=120,
    ).stdout
    r = json.loads(out.strip().splitlines()[-1])
    assert r["matches"] == 3 and r["min_ms"] >= 0 and r["p99_ms"] >= r["p50_ms"]
    out = subprocess.run(
        [sys.executable, "-m", "bummerl_cli", "bench", "ladder", "--matches", "2", "--json"],
        capture_output=True, text=True, check=True, timeout=120,
    ).stdout
    r = json.loads(out.strip().splitlines()[-1])
    assert r["games"] == 4 and r["moves"] >= 4 * 5 and r["matches_per_min"] > 0


def test_bench_strong_prints_elo_interval_and_decision_time() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "bummerl_cli", "bench", "strong", "--pairs", "2", "--variant", "schnapsen-at",
         "--bot", "strong:samples=1,seed=1", "--json"],
        capture_output=True, text=True, check=True, timeout=120,
    ).stdout
    r = json.loads(out.strip().splitlines()[-1])
    assert r["variant"] == "schnapsen-at" and r["pairs"] == 2 and sum(r["pentanomial"]) == 2
    assert {"elo", "elo_ci95", "elo_low", "elo_high", "los", "mean_decision_ms"} <= set(r) and r["decisions"] > 0
    assert "opponent_decision_ms" not in r  # greedy does not count its decisions


def test_bench_strong_against_strong_v1_reports_both_bots_time_per_decision() -> None:
    """``--opponent strong-v1``: the same figures for the opponent, so that a comparison at the
    same time per decision shows that it was one."""
    out = subprocess.run(
        [sys.executable, "-m", "bummerl_cli", "bench", "strong", "--pairs", "1", "--variant", "schnapsen-at",
         "--bot", "strong:samples=1,seed=1", "--opponent", "strong-v1:samples=1,seed=2", "--json"],
        capture_output=True, text=True, check=True, timeout=120,
    ).stdout
    r = json.loads(out.strip().splitlines()[-1])
    assert r["opponent"] == "strong-v1:samples=1,seed=2" and r["pairs"] == 1
    assert r["opponent_decision_ms"] > 0 and r["opponent_decision_cpu_ms"] >= 0


def test_bench_floor_prints_both_ratios_and_the_paced_runs() -> None:
    """``bummerl bench floor``: the floor, the service at full load (SubmitAction ratio and the
    ratio over every RPC) and both paced at the service's half rate, as one JSON line."""
    out = subprocess.run(
        [sys.executable, "-m", "bummerl_cli", "bench", "floor", "--matches", "2", "--seconds", "1", "--json"],
        capture_output=True, text=True, check=True, timeout=180,
    ).stdout
    r = json.loads(out.strip().splitlines()[-1])
    assert r["floor"]["calls_per_s"] > 0 and r["service"]["errors"] == 0
    assert r["floor"]["event_loop"] == "uvloop"  # the loop bummerl serve runs on (BUMMERL_EVENT_LOOP)
    # each server's CPU per call at full load, and the service's per RPC over the floor's
    assert r["floor"]["server_cpu"]["ms_per_call"] > 0 and r["service"]["server_cpu"]["ms_per_call"] > 0
    assert r["cpu_ratio"] == round(r["service"]["server_cpu"]["ms_per_call"] / r["floor"]["server_cpu"]["ms_per_call"], 2)
    assert 0 < r["ratio"] < r["call_ratio"]  # every action also reads the next seat's view
    half = r["service_half_load"]["rate"]
    assert r["floor_half_load"]["calls_per_s"] <= half * 1.5 and r["floor_half_load"]["p99_ms"] is not None


def test_bench_floor_play_measures_the_stream_path_against_both_floors() -> None:
    """``bummerl bench floor --play`` (issue 26): the unary floor, the Play floor (every action
    reaches both seats' streams: it plays on) and the service on Play, each with its server CPU;
    the service's CPU per action over the unary floor's per call and over the Play floor's per
    action, as one JSON line; the text form names both ratios."""
    cmd = [sys.executable, "-m", "bummerl_cli", "bench", "floor", "--play", "--matches", "2", "--seconds", "1"]
    r = json.loads(subprocess.run([*cmd, "--json"], capture_output=True, text=True, check=True,
                                  timeout=180).stdout.strip().splitlines()[-1])
    assert "service" not in r and "service_half_load" not in r  # the polling runs are not made
    assert r["play_floor"]["actions"] > 20 and r["service_play"]["errors"] == 0 and r["service_play"]["submit_calls"] > 0
    floor, play_floor, service = (r[k]["server_cpu"] for k in ("floor", "play_floor", "service_play"))
    assert r["play_cpu_ratio"] == round(service["ms_per_action"] / floor["ms_per_call"], 2)
    assert r["play_over_play_floor"] == round(service["ms_per_action"] / play_floor["ms_per_action"], 2)
    text = subprocess.run(cmd, capture_output=True, text=True, check=True, timeout=180).stdout
    assert "Play floor" in text and "x the floor's per call" in text and "x the Play floor's per action" in text


def test_bench_core_prints_cpu_per_action_of_the_stream_path() -> None:
    """``bummerl bench core``: the service's own CPU per action without gRPC, min and median of
    the runs, and the actions each run played (figures printed, not asserted beyond their shape)."""
    out = subprocess.run(
        [sys.executable, "-m", "bummerl_cli", "bench", "core", "--matches", "2", "--seconds", "0.5", "--runs", "2",
         "--json"],
        capture_output=True, text=True, check=True, timeout=120,
    ).stdout
    r = json.loads(out.strip().splitlines()[-1])
    assert r["variant"] == "schnapsen-at" and r["trials"] == 2 and r["matches"] == 2
    assert r["actions_per_trial"] > 0
    assert 0 < r["cpu_us_per_action_min"] <= r["cpu_us_per_action_median"]

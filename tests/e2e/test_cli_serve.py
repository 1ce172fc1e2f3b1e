"""``bummerl serve`` ports and ``bummerl`` CLI errors (issue: production face).

Real ``bummerl`` subprocesses on loopback with the session's Valkey (BUMMERL_REDIS_URL)."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time

import pytest
from e2e_servers import free_port, serve, start_server


def env_with(redis_url: str, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("BUMMERL_")}
    env["BUMMERL_REDIS_URL"] = redis_url
    env.update(extra)
    return env


def test_serve_takes_its_ports_from_the_environment(redis_url: str) -> None:
    grpc_port, http_port = free_port(), free_port()
    env = env_with(redis_url, BUMMERL_PORT=str(grpc_port), BUMMERL_HTTP_PORT=str(http_port), BUMMERL_METRICS_PORT="0")
    with serve([], env) as (proc, lines):
        assert proc.poll() is None, lines
        assert f"bummerl: gRPC listening on 127.0.0.1:{grpc_port}" in lines
        with socket.create_connection(("127.0.0.1", http_port), timeout=5):
            pass


def test_flags_win_over_the_environment(redis_url: str) -> None:
    flag_port = free_port()
    env = env_with(redis_url, BUMMERL_PORT=str(free_port()), BUMMERL_HTTP_PORT="0", BUMMERL_METRICS_PORT="0")
    with serve(["--port", str(flag_port)], env) as (proc, lines):
        assert f"bummerl: gRPC listening on 127.0.0.1:{flag_port}" in lines


def test_a_second_server_on_a_port_in_use_refuses_to_start(redis_url: str) -> None:
    port = free_port()
    env = env_with(redis_url, BUMMERL_HTTP_PORT="0", BUMMERL_METRICS_PORT="0")
    with serve(["--port", str(port)], env) as (first, lines):
        assert first.poll() is None, lines
        second = subprocess.run([sys.executable, "-m", "bummerl_cli", "serve", "--port", str(port)], env=env,
                                capture_output=True, text=True, timeout=60)
        assert second.returncode == 2
        err = second.stderr.strip().splitlines()
        assert err[-1].startswith("bummerl serve: cannot bind gRPC server to 127.0.0.1:") and "Traceback" not in second.stderr
        assert first.poll() is None


def test_two_servers_share_a_port_only_when_asked(redis_url: str) -> None:
    port = free_port()
    env = env_with(redis_url, BUMMERL_HTTP_PORT="0", BUMMERL_METRICS_PORT="0")
    with serve(["--port", str(port), "--reuse-port"], env) as (first, _), \
            serve(["--port", str(port), "--reuse-port"], env) as (second, lines):
        assert first.poll() is None and second.poll() is None, lines
        assert f"bummerl: gRPC listening on 127.0.0.1:{port}" in lines


@pytest.mark.parametrize(("argv", "expected"), [
    (["play", "--bots", "greedy,nosuch"], "bummerl play: unknown bot 'nosuch'; known: greedy, random"),
    (["play", "--bots", "greedy,exec:no-such-program-here"], "bummerl play: exec: executable not found: no-such-program"),
    (["play", "--variant", "nope"], "bummerl play: INVALID_ARGUMENT: unknown variant 'nope'; known: bauernschnapsen, santase (or santase-bg, bulgarian-66),"),
    (["play", "--option", "nope=1"], "bummerl play: INVALID_ARGUMENT: option 'nope': unknown option"),
    (["play", "--option", "match_target=many"], "bummerl play: INVALID_ARGUMENT: option 'match_target'"),
    (["play", "--server", "127.0.0.1:1"], "bummerl play: cannot reach the server at 127.0.0.1:1"),
    (["play", "--tc", "fast"], "bummerl play: --tc: bad time control part"),
    (["play", "--variant", "bauernschnapsen", "--bots", "greedy,random"],
     "bummerl play: --bots takes 4 bots, one per seat, e.g. greedy,random,greedy,random"),
    (["serve", "--port", "70000"], "bummerl serve: error: argument --port: port 70000 is outside 0..65535"),
    (["serve", "--port", "http"], "bummerl serve: error: argument --port: not a port number: http"),
    (["play", "--colour", "red"], "bummerl: error: unrecognized arguments: --colour red"),
])
def test_cli_errors_are_one_clear_line(redis_url: str, argv: list[str], expected: str) -> None:
    out = subprocess.run([sys.executable, "-m", "bummerl_cli", *argv], env=env_with(redis_url), capture_output=True,
                         text=True, timeout=60)
    assert out.returncode != 0
    assert "Traceback" not in out.stderr
    assert out.stderr.strip().splitlines()[-1].startswith(expected), out.stderr


def test_play_prints_each_deal_as_it_finishes(redis_url: str) -> None:
    """Deal lines come before the result line, numbered from 1, one per deal of the record."""
    out = subprocess.run([sys.executable, "-m", "bummerl_cli", "play", "--seed", "4"], env=env_with(redis_url),
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    deals = [line for line in lines if re.match(r"deal \d+: ", line)]
    assert deals and [int(d.split()[1].rstrip(":")) for d in deals] == list(range(1, len(deals) + 1))
    result = [line for line in lines if line.startswith("result: ")]
    assert len(result) == 1 and lines.index(result[0]) > lines.index(deals[-1])
    assert f"{len(deals)} deal{'s' if len(deals) > 1 else ''}, " in result[0] and "ended early" not in result[0]


def test_play_names_a_bot_fault_in_its_result_line_and_exit_code(redis_url: str) -> None:
    """A walkthrough: a match lost to an unparsable answer printed the same result line and exit
    code 0 as one played out; now the line says how it ended and the code is ``join``'s (4)."""
    out = subprocess.run([sys.executable, "-m", "bummerl_cli", "play", "--seed", "4", "--bots",
                          "exec:sh -c 'while read l; do echo hello; done',greedy"], env=env_with(redis_url),
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 4, out.stderr
    assert "bot unparsable: 'hello' is not an action" in out.stderr and "(its stderr is in " in out.stderr
    [result] = [line for line in out.stdout.splitlines() if line.startswith("result: ")]
    assert result.startswith("result: seat 1 (greedy) wins, ")
    assert result.endswith("; ended early: illegal (seat 0's bot: unparsable)")


def test_serve_workers_share_one_port_one_redis_and_one_metrics_endpoint(redis_url: str) -> None:
    """``--workers 2``: two processes answer on one gRPC port, matches created through one are
    played through the other (one Redis), and the parent's /metrics sums both (multiprocess)."""
    import urllib.request

    from bummerl_client import Client

    port, metrics_port = free_port(), free_port()
    env = env_with(redis_url, BUMMERL_HTTP_PORT="0")
    with serve(["--workers", "2", "--port", str(port), "--metrics-port", str(metrics_port)], env) as (proc, lines):
        assert proc.poll() is None, lines
        time.sleep(1.5)  # the second worker
        children = subprocess.run(["pgrep", "-P", str(proc.pid)], capture_output=True, text=True).stdout.split()
        assert len(children) == 2, children
        for _ in range(12):  # new connections are spread over the workers by the kernel
            with Client(f"127.0.0.1:{port}") as c:
                m = c.create_match("schnapsen-at", seed=3)
                info = c.information_set(m.match_id, 0, m.tokens[0])
                assert info["match_id"] == m.match_id
        body = urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics", timeout=10).read().decode()
        created = [line for line in body.splitlines() if line.startswith('bummerl_matches_created_total{variant="schnapsen-at"}')]
        assert created and float(created[0].split()[-1]) == 12.0, created
        proc.terminate()
        assert proc.wait(30) == 0


def test_play_a_four_player_team_game(redis_url: str) -> None:
    """Issue 10: ``bummerl play --variant bauernschnapsen --bots greedy,random,greedy,random``
    plays a whole match over the API; deal lines name the contract; the result names the winning
    team's two seats, whose scores are equal (one score per team, BS-MATCH-1)."""
    out = subprocess.run([sys.executable, "-m", "bummerl_cli", "play", "--variant", "bauernschnapsen", "--bots",
                          "greedy,random,greedy,random", "--seed", "3", "--json"], env=env_with(redis_url),
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    summary = json.loads(out.stdout.splitlines()[-1])
    assert summary["variant"] == "bauernschnapsen" and summary["reason"] == "target_reached"
    first = summary["winner_seats"]
    assert len(first) == 2 and first[1] - first[0] == 2 and summary["winner"] == first[0] % 2
    gp = summary["game_points"]
    assert gp[0] == gp[2] and gp[1] == gp[3] and max(gp) >= 24
    assert sorted(summary["placements"]) == [1, 1, 2, 2]


def _gc_collections(metrics_port: int) -> float:
    import urllib.request

    with urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics", timeout=5) as resp:
        text = resp.read().decode()
    return sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines()
               if line.startswith("bummerl_gc_pause_seconds_count"))


@pytest.mark.parametrize("pace_ms", ["10", "0"])
def test_serve_runs_the_collector_on_a_clock_unless_told_not_to(redis_url: str, pace_ms: str) -> None:
    """BUMMERL_GC_PACE_MS (bummerl.app.GcPacer): an idle server collects every 10 ms, each pause
    timed into bummerl_gc_pause_seconds; 0 leaves collection to CPython's allocation count (an
    idle server allocates next to nothing, so it hardly collects)."""
    metrics_port = free_port()
    env = env_with(redis_url, BUMMERL_GC_PACE_MS=pace_ms)
    with serve(["--port", "0", "--http-port", "0", "--metrics-port", str(metrics_port)], env) as (proc, lines):
        assert proc.poll() is None, lines
        first = _gc_collections(metrics_port)
        time.sleep(1.0)
        grown = _gc_collections(metrics_port) - first
    if pace_ms == "10":
        assert grown >= 40
    else:
        assert grown < 10


@pytest.mark.parametrize(("setting", "expected"), [(None, "uvloop"), ("asyncio", "asyncio"), ("uvloop", "uvloop")])
def test_serve_runs_on_uvloop_unless_told_otherwise(redis_url: str, setting: str | None, expected: str) -> None:
    """BUMMERL_EVENT_LOOP (Settings.event_loop): ``bummerl serve`` runs on uvloop by default (where
    it is installed, as here) and on the standard loop when set to ``asyncio``; it serves either way."""
    env = env_with(redis_url, **({"BUMMERL_EVENT_LOOP": setting} if setting else {}))
    import grpc

    from bummerl.v1 import game_pb2, game_pb2_grpc

    with serve(["--port", "0", "--http-port", "0", "--metrics-port", "0"], env) as (proc, lines):
        assert proc.poll() is None, lines
        target = next(line.rsplit(" ", 1)[1] for line in lines if "gRPC listening" in line)
        with grpc.insecure_channel(target) as channel:
            answer = game_pb2_grpc.GameServiceStub(channel).ListVariants(game_pb2.ListVariantsRequest(), timeout=20)
        proc.terminate()
        assert proc.stdout is not None
        out = lines + proc.stdout.read().splitlines()  # not communicate(timeout=...): it skips buffered lines
    assert "schnapsen-at" in [v.id for v in answer.variants]
    assert f"bummerl: event loop {expected}" in out, out


def test_serve_refuses_an_unknown_event_loop(redis_url: str) -> None:
    out = subprocess.run([sys.executable, "-m", "bummerl_cli", "serve", "--port", "0"], capture_output=True, text=True,
                         env=env_with(redis_url, BUMMERL_EVENT_LOOP="libuv"), timeout=60)
    assert out.returncode == 2
    assert out.stderr.strip() == "bummerl serve: event_loop must be one of auto, uvloop, asyncio, got 'libuv'"


def test_json_logs_and_an_access_log_at_info(redis_url: str) -> None:
    """``--log-format json``: one JSON object per line; ``--access-log``: one INFO line per call on
    the bummerl.access logger, with no token in it."""
    from bummerl_client import Client

    port = free_port()
    proc = start_server(redis_url, port, "--log-format", "json", "--access-log", "--admin-token", "sekrit-admin")
    try:
        with Client(f"127.0.0.1:{port}") as c:
            c.list_variants()
    finally:
        proc.terminate()
        out = proc.communicate(timeout=20)[0]
    records = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    access = [r for r in records if r["logger"] == "bummerl.access"]
    assert access and access[0]["level"] == "INFO" and "ListVariants OK" in access[0]["message"]
    assert all(set(r) >= {"ts", "level", "logger", "message"} for r in records)
    assert "sekrit-admin" not in out


def _processes_naming(text: str) -> list[int]:
    """Pids of the processes whose command line contains ``text`` (Linux ``/proc``)."""
    pids = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/cmdline", "rb") as f:
                    if text.encode() in f.read():
                        pids.append(int(d))
            except OSError:
                pass
    return pids


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads /proc")
def test_sigterm_right_after_start_stops_the_embedded_valkey_too(tmp_path) -> None:
    """A ``bummerl serve`` on its embedded Valkey that gets SIGTERM the moment it says it listens
    shuts down cleanly (exit 0, "shutting down") and stops its Valkey. The signal handlers were
    installed only after the start-up lines: a SIGTERM in between killed the server and left its
    Valkey running on the data dir (4 times in 5 like this)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("BUMMERL_")}
    for i in range(3):
        data = tmp_path / f"data{i}"
        proc = subprocess.Popen([sys.executable, "-m", "bummerl_cli", "serve", "--data-dir", str(data), "--port", "0",
                                 "--http-port", "0", "--metrics-port", "0"], env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        assert proc.stdout is not None
        lines = []
        for line in iter(proc.stdout.readline, ""):
            lines.append(line)
            if "gRPC listening" in line:
                proc.terminate()
                break
        rest, _ = proc.communicate(timeout=30)
        left = _processes_naming(str(data))
        for pid in left:
            os.kill(pid, 15)
        assert proc.returncode == 0 and "bummerl: shutting down" in rest, (proc.returncode, lines, rest)
        assert left == [] and not (data / "valkey.sock").exists()


def test_ctrl_c_during_the_demo_stops_the_server_at_once(redis_url: str) -> None:
    """``bummerl serve --demo`` with slow bots: SIGINT (Ctrl-C) while the demo match runs stops
    the server within seconds (exit 0, "shutting down"), not after the demo's last deal (a match
    of two ``strong`` bots at 300 ms a decision takes minutes)."""
    proc = subprocess.Popen([sys.executable, "-m", "bummerl_cli", "serve", "--port", "0", "--http-port", "0",
                             "--metrics-port", "0", "--demo", "strong:budget_ms=300,strong:budget_ms=300"],
                            env=env_with(redis_url), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert proc.stdout is not None
    try:
        lines = []
        for line in iter(proc.stdout.readline, ""):
            lines.append(line)
            if "vs strong (seat 1), match" in line:  # the demo match is being played
                break
        time.sleep(0.5)
        proc.send_signal(2)  # SIGINT
        rest, _ = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0 and "bummerl: shutting down" in rest, (lines, rest)
    assert "still serving" not in rest and "result:" not in rest  # the demo was cut short

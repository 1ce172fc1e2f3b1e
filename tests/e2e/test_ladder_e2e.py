"""Ladders end to end over real processes (docs/DESIGN.md §5): a server, connected bots running as
``bummerl bot run`` processes (one too slow for the clock, one that crashes mid-match), and a
server killed with SIGKILL mid-ladder and restarted on the same Redis."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from e2e_servers import free_port, start_server
from prometheus_client.parser import text_string_to_metric_families

from bummerl_client import AsyncClient

FIRST_LEGAL = r'''sed 's/.*"legal_actions":\[//' | grep -o '"id":[0-9]*' | head -n 1 | cut -d: -f2'''


def bot_process(target: str, token: str, spec: str) -> subprocess.Popen[str]:
    env = dict(os.environ, BUMMERL_BOT_TOKEN=token)
    return subprocess.Popen([sys.executable, "-m", "bummerl_cli", "bot", "run", "--bot", spec, "--server", target],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)


@pytest.fixture
def procs() -> Iterator[list[subprocess.Popen[str]]]:
    ps: list[subprocess.Popen[str]] = []
    yield ps
    for p in ps:
        if p.poll() is None:
            p.kill()
        p.wait()


async def wait_connected(metrics_port: int, bots: int, seconds: float = 30) -> None:
    """Until ``bots`` StreamAssignments calls are open on the server (its /metrics: started minus
    handled): a match's clock starts when the ladder creates it, connected or not, so a bot
    process still importing would lose its first move on time."""
    def open_streams() -> float:
        with urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics", timeout=5) as r:  # noqa: S310
            text = r.read().decode()
        count = {"started": 0.0, "handled": 0.0}
        for family in text_string_to_metric_families(text):
            for sample in family.samples:
                if sample.labels.get("grpc_method") == "StreamAssignments":
                    if sample.name == "grpc_server_started_total":
                        count["started"] += sample.value
                    elif sample.name == "grpc_server_handled_total":
                        count["handled"] += sample.value
        return count["started"] - count["handled"]

    for _ in range(int(seconds * 10)):
        if await asyncio.to_thread(open_streams) >= bots:
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"fewer than {bots} bots connected after {seconds} s")


async def wait_finished(c: AsyncClient, ladder_id: str, seconds: float) -> dict[str, Any]:
    for _ in range(int(seconds * 10)):
        lad = await c.ladder(ladder_id)
        if lad["status"] != "LADDER_STATUS_RUNNING":
            return lad
        await asyncio.sleep(0.1)
    raise AssertionError(f"ladder still running: {lad}")


async def test_ladder_with_a_slow_and_a_crashing_bot_records_the_right_outcomes(
        redis_url: str, tmp_path: Path, procs: list[subprocess.Popen[str]]) -> None:
    slow = tmp_path / "slow.sh"
    slow.write_text('while IFS= read -r l; do case "$l" in *\'"type":"decide"\'*) sleep 5; echo 0;; esac; done\n')
    crash = tmp_path / "crash.sh"
    crash.write_text('n=0\nwhile IFS= read -r l; do case "$l" in *\'"type":"decide"\'*) n=$((n+1)); '
                     '[ "$n" -ge 4 ] && exit 7; printf "%s\\n" "$l" | ' + FIRST_LEGAL + ';; esac; done\n')
    port, metrics_port = free_port(), free_port()
    procs.append(start_server(redis_url, port, "--metrics-port", str(metrics_port)))
    target = f"127.0.0.1:{port}"
    async with AsyncClient(target) as c:
        await c.wait_ready(20)
        tag = os.urandom(3).hex()
        regs = {name: await c.register_bot(f"{name}-{tag}") for name in ("greedy", "slow", "crash")}
        for name, spec in (("greedy", "greedy"), ("slow", f"exec:sh {slow}"), ("crash", f"exec:sh {crash}")):
            procs.append(bot_process(target, regs[name]["bot_token"], spec))
        await wait_connected(metrics_port, 3)
        lad = await c.create_ladder(name="faults", variant="schnapsen-at", bot_ids=[r["bot_id"] for r in regs.values()],
                                    rounds=1, duplicate_deals=True, deals_per_game=0, concurrency=6,
                                    time_control={"move_cap_ms": 2000}, timeout_policy="forfeit-match")
        assert int(lad["matches_total"]) == 6
        lad = await wait_finished(c, lad["ladder_id"], 90)
        assert lad["status"] == "LADDER_STATUS_FINISHED" and int(lad["matches_played"]) == 6
        ids = {r["bot_id"]: n for n, r in regs.items()}
        for r in await c.ladder_matches(lad["ladder_id"]):
            names = [ids[b] for b in r["bots"]]
            loser = names[1 - int(r["winner"])]
            if "slow" in names:
                assert r["reason"] == "timeout" and loser == "slow", r
            else:
                assert r["reason"] == "disconnect" and loser == "crash", r
        board = await c.leaderboard(lad["ladder_id"])
        assert board["entries"][0]["name"] == f"greedy-{tag}" and int(board["entries"][0]["wins"]) == 4


async def test_ladder_resumes_after_a_kill_9_and_plays_every_game_once(
        redis_url: str, procs: list[subprocess.Popen[str]]) -> None:
    port = free_port()
    procs.append(start_server(redis_url, port))
    target = f"127.0.0.1:{port}"
    async with AsyncClient(target) as c:
        await c.wait_ready(20)
        tag = os.urandom(3).hex()
        regs = [await c.register_bot(f"{n}-{tag}") for n in ("greedy", "random")]
        for r, spec in zip(regs, ("greedy", "random"), strict=True):
            procs.append(bot_process(target, r["bot_token"], spec))
        lad = await c.create_ladder(name="resume", variant="santase", bot_ids=[r["bot_id"] for r in regs], rounds=15,
                                    duplicate_deals=True, deals_per_game=1, concurrency=2)
        lid = lad["ladder_id"]
        while int((await c.ladder(lid))["matches_played"]) < 4:
            await asyncio.sleep(0.05)
        procs[0].send_signal(signal.SIGKILL)
        procs[0].wait()
        procs.append(await asyncio.to_thread(start_server, redis_url, port))
        lad = await wait_finished(c, lid, 120)
        results = await c.ladder_matches(lid)
        assert sorted(int(r["game"]) for r in results) == list(range(30))
        assert len({r["match_id"] for r in results}) == 30
        for r in results:
            rec = await c.match_record(r["match_id"])
            assert rec["over"] and int(rec["version"]) == len(rec["actions"]) + 1

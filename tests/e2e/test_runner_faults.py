"""The SDK runner survives a server killed with SIGKILL mid-match and restarted on the same Redis
(docs/DESIGN.md §3: any replica can serve any request; a killed one loses nothing): every match completes,
and no action is lost or applied twice (the record's versions are contiguous and replay)."""

from __future__ import annotations

import asyncio
import signal
import subprocess
from collections.abc import Iterator

import pytest
from e2e_servers import server_fleet, start_server

from bummerl.rules import MatchState, find_variant
from bummerl_client import AsyncClient, play_seat
from bummerl_client.bots import make_bot


@pytest.fixture
def server(redis_url: str) -> Iterator[tuple[str, int, list[subprocess.Popen[str]]]]:
    with server_fleet(redis_url, 1) as (ports, procs):
        yield redis_url, ports[0], procs


async def test_matches_complete_across_a_kill_9_and_restart(server: tuple[str, int, list[subprocess.Popen[str]]]) -> None:
    redis_url, port, procs = server
    target = f"127.0.0.1:{port}"
    async with AsyncClient(target) as c:
        await c.wait_ready(20)
        matches = [await c.create_match("schnapsen-at", seed=100 + i) for i in range(20)]
        tasks = [asyncio.create_task(play_seat(c, m.match_id, s, m.tokens[s], make_bot("greedy" if s else "random", i)))
                 for i, m in enumerate(matches) for s in (0, 1)]
        await asyncio.sleep(0.4)
        procs[0].send_signal(signal.SIGKILL)
        procs[0].wait()
        await asyncio.sleep(0.3)
        procs.append(await asyncio.to_thread(start_server, redis_url, port))
        finals = await asyncio.wait_for(asyncio.gather(*tasks), 120)
        assert all(f["match"]["over"] for f in finals)
        rules = find_variant("schnapsen-at").configure({})
        for m in matches:
            rec = await c.match_record(m.match_id)
            assert rec["over"]
            versions = [int(a["version"]) for a in rec["actions"]]
            assert versions == list(range(2, int(rec["version"]) + 1))  # contiguous: nothing lost or doubled
            replay = MatchState(rules, int(rec["seed"]))
            for a in rec["actions"]:
                replay.apply(int(a["action_id"]))
            assert replay.over and replay.winner == int(rec["match_result"]["winner"])

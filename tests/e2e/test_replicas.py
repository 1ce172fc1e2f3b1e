"""Three replicas on one Redis (DESIGN §3: any replica serves any request; killing one loses
nothing): bots spread their calls over three ``bummerl serve`` processes on loopback, one replica
is killed with SIGKILL in the middle of the matches and restarted; every match completes and every
action a server acknowledged is in the record exactly once, at the version it was submitted for."""

from __future__ import annotations

import asyncio
import signal
import subprocess
from collections.abc import Iterator
from typing import Any

import pytest
from e2e_servers import server_fleet, start_server

from bummerl.rules import MatchState, find_variant
from bummerl_client import AsyncClient, play_seat
from bummerl_client.bots import make_bot

REPLICAS = 3
MATCHES = 24


class RecordingClient(AsyncClient):
    """An SDK client that notes every SubmitAction the server acknowledged (applied or duplicate)."""

    def __init__(self, target: str, acked: dict[tuple[str, int], set[int]]) -> None:
        super().__init__(target)
        self.acked = acked

    async def submit_action(self, match_id: str, seat: int, token: str, expected_version: int,
                            action: int | str) -> dict[str, Any]:
        out = await super().submit_action(match_id, seat, token, expected_version, action)
        self.acked.setdefault((match_id, expected_version), set()).add(int(action))
        return out


@pytest.fixture
def replicas(redis_url: str) -> Iterator[tuple[str, list[int], list[subprocess.Popen[str]]]]:
    with server_fleet(redis_url, REPLICAS) as (ports, procs):
        yield redis_url, ports, procs


async def test_three_replicas_kill_9_one_every_match_completes_nothing_lost_or_doubled(
        replicas: tuple[str, list[int], list[subprocess.Popen[str]]]) -> None:
    redis_url, ports, procs = replicas
    acked: dict[tuple[str, int], set[int]] = {}
    clients = [RecordingClient(f"127.0.0.1:{p}", acked) for p in ports]
    try:
        for c in clients:
            await c.wait_ready(20)
        # matches are created on every replica; the two seats of a match use different replicas
        matches = [await clients[i % REPLICAS].create_match("schnapsen-at", seed=300 + i) for i in range(MATCHES)]
        tasks = [
            # SubmitAction per action (not Play): the test checks that every acknowledged action survives
            asyncio.create_task(play_seat(clients[(i + s) % REPLICAS], m.match_id, s, m.tokens[s],
                                          make_bot("greedy" if s else "random", i), use_play=False))
            for i, m in enumerate(matches) for s in (0, 1)
        ]
        await asyncio.sleep(0.5)
        assert not any(t.done() for t in tasks), "the matches ended before the kill; make them longer"
        procs[1].send_signal(signal.SIGKILL)
        procs[1].wait()
        await asyncio.sleep(0.5)
        procs[1] = await asyncio.to_thread(start_server, redis_url, ports[1])
        finals = await asyncio.wait_for(asyncio.gather(*tasks), 180)
        assert all(f["match"]["over"] for f in finals)

        rules = find_variant("schnapsen-at").configure({})
        for i, m in enumerate(matches):
            rec = await clients[(i + 2) % REPLICAS].match_record(m.match_id)
            assert rec["over"]
            versions = [int(a["version"]) for a in rec["actions"]]
            assert versions == list(range(2, int(rec["version"]) + 1))  # contiguous: none lost, none doubled
            by_version = {int(a["version"]): int(a["action_id"]) for a in rec["actions"]}
            for (match_id, expected), actions in acked.items():
                if match_id == m.match_id:
                    assert actions == {by_version[expected + 1]}  # the acknowledged action is the one stored
            replay = MatchState(rules, int(rec["seed"]))
            for a in rec["actions"]:
                replay.apply(int(a["action_id"]))
            assert replay.over and replay.winner == int(rec["match_result"]["winner"])
        assert len(acked) > MATCHES * 10  # the bots did play through the servers
    finally:
        for c in clients:
            await c.close()

"""The arena (issue 37): connected idle bots are paired on demand, least-played first, near in
rating, never the previous opponent again; no bot is ever in two games at once and no game starts
twice, with a second scheduler racing the server's; the points table counts lichess-style.
Pure tests for the pairing pass; a real server and connected bots for the rest."""

from __future__ import annotations

import asyncio
import json
import random
import uuid
from typing import Any

from bummerl.app import Runtime
from bummerl.bots import make_bot
from bummerl.config import Settings
from bummerl.ladder.arena import last_opponents, pair_idle, points_table
from bummerl.ladder.driver import LadderDriver, Scheduler
from bummerl.ladder.formats import DemandContext
from bummerl.store.keys import ladder_key
from bummerl_client import AsyncClient
from bummerl_client.botrunner import run_bot


def test_pairing_takes_the_least_played_first_near_in_rating_never_the_last_opponent() -> None:
    bots = [f"b{i}" for i in range(10)]
    ordinal = {b: float(10 - i) for i, b in enumerate(bots)}  # b0 best
    sigma = {b: 2.0 for b in bots} | {"b7": 8.0}  # b7 has played least
    tables = pair_idle(DemandContext(bots, 2, ordinal, sigma, {"b6": ["b8"]}))
    assert tables[0][0] == "b7" and tables[0][1] in ("b6", "b8")  # first, with a neighbour in rating
    assert sorted(b for t in tables for b in t) == sorted(bots)
    assert all(abs(bots.index(a) - bots.index(b)) <= 2 for a, b in tables)
    assert ["b6", "b8"] not in tables and ["b8", "b6"] not in tables
    alone = pair_idle(DemandContext(["x", "y"], 2, last={"x": ["y"], "y": ["x"]}))
    assert alone == []  # only each other's last opponent: they wait for others
    three = pair_idle(DemandContext(bots[:7], 3, ordinal, sigma))
    assert len(three) == 2 and all(len(t) == 3 for t in three)


def test_the_points_table_doubles_wins_on_a_streak() -> None:
    def game(winner: str, loser: str, draw: bool = False) -> dict[str, Any]:
        return {"bots": [winner, loser], "scores": [0.5, 0.5] if draw else [1.0, 0.0]}

    rows = {r["bot_id"]: r for r in points_table(["a", "b"], [game("a", "b"), game("a", "b"), game("a", "b"),
                                                              game("a", "b", draw=True), game("a", "b")])}
    assert rows["a"]["points"] == 2 + 2 + 4 + 1 + 2 and rows["a"]["streak"] == 1 and rows["a"]["rank"] == 1
    assert rows["b"]["points"] == 1 and rows["b"]["losses"] == 4
    assert last_opponents([game("a", "b"), game("c", "a")]) == {"a": ["c"], "b": ["a"], "c": ["a"]}


async def test_an_arena_pairs_connected_bots_as_they_come(redis_url: str) -> None:
    settings = Settings.from_env({}, port=0, http_port=0, metrics_port=0, redis_url=redis_url, admin_token="adm")
    async with Runtime(settings, gateway_port=0) as rt, AsyncClient(rt.target) as c:
        assert rt.ladders is not None
        tag = uuid.uuid4().hex[:6]
        regs = [await c.register_bot(f"arena{i}-{tag}", admin_token="adm") for i in range(7)]
        ids = [r["bot_id"] for r in regs]
        lad = await c.create_ladder(admin_token="adm", name="arena", variant="schnapsen-at", bot_ids=ids,
                                    format="LADDER_FORMAT_ARENA", deals_per_game=1, concurrency=8,
                                    duplicate_deals=False)
        lid = lad["ladder_id"]
        assert lad["matches_total"] == 0 and lad["status"] == "LADDER_STATUS_RUNNING"
        stop = asyncio.Event()
        kinds = ["greedy", "random"]
        runners = [asyncio.create_task(run_bot(c, r["bot_token"], lambda i=i: make_bot(kinds[i % 2], i), stop=stop))
                   for i, r in enumerate(regs[:6])]  # the seventh never connects
        racer = Scheduler(rt.ladders.data)  # a second process's scheduler, racing the server's

        async def race() -> None:
            while not stop.is_set():
                await LadderDriver(racer).run_once()
                await asyncio.sleep(random.random() / 20)

        racing = asyncio.create_task(race())
        watched: list[int] = []
        try:
            async with asyncio.timeout(60):
                while len(await c.ladder_matches(lid)) < 30:
                    if not watched:  # an arena game is its own set: anyone may watch it live
                        for g in await c.ladder_games(lid, "running"):
                            async for update in c.watch(g["match_id"]):
                                watched.append(int(update["version"]))
                                break
                            break
                    await asyncio.sleep(0.1)
        finally:
            await c.stop_ladder(lid, admin_token="adm")
            stop.set()
            await asyncio.gather(*runners, racing, return_exceptions=True)
        events = [json.loads(f[b"e"]) for _, f in await rt.ladders.redis.xrange(ladder_key(lid, "events"))]
        started = [e for e in events if e["type"] == "started"]
        assert len({e["game"] for e in started}) == len(started) and len({e["match_id"] for e in started}) == len(started)
        busy: dict[str, str] = {}
        for e in events:  # no bot in two games at once
            if e["type"] == "started":
                for b in e["bots"]:
                    assert b not in busy, (b, busy[b], e["match_id"])
                    busy[b] = e["match_id"]
            elif e["type"] in ("result", "abandoned"):
                mid = e["result"]["match_id"] if e["type"] == "result" else e["match_id"]
                for b in [b for b, m in busy.items() if m == mid]:
                    del busy[b]
        results = [e["result"] for e in events if e["type"] == "result"]
        assert ids[6] not in {b for r in results for b in r["bots"]}  # never connected: never paired
        previous: dict[str, list[str]] = {}
        for e in started:  # never the opponent of its previous game (six bots: there is always another)
            for b in e["bots"]:
                others = [x for x in e["bots"] if x != b]
                assert others != previous.get(b), (b, others)
                previous[b] = others
        assert watched, "no running arena game could be watched live"
        p = await c.pairings(lid)
        assert p["format"] == "LADDER_FORMAT_ARENA" and len(p["arena"]) == 7
        assert sum(r["games"] for r in p["arena"]) == 2 * len(await c.ladder_matches(lid))
        assert {r["bot_id"]: r["connected"] for r in p["arena"]}[ids[6]] is False

"""Swiss and knockout ladders on Redis (issue 37): each stage is planned from the results once the
previous one is over, by whichever process gets there first, exactly once, while three processes
race and some of their passes die half way. Real Valkey; the bots play random legal moves in this
process through the match service with their bot tokens."""

from __future__ import annotations

import asyncio
import itertools
import json
import random
import uuid
from collections.abc import AsyncIterator
from typing import Any

import networkx as nx
import pytest
import redis.asyncio as aioredis

from bummerl.core import MatchService
from bummerl.core.errors import InvalidArgumentError
from bummerl.ladder.driver import LadderDriver
from bummerl.ladder.service import LadderService, LadderSpec
from bummerl.store import MatchStore
from bummerl.store.keys import KeyLayout, ladder_key

from .test_ladder_service import register
from .test_versions import play_running


@pytest.fixture
async def three(redis_client: aioredis.Redis, test_layout: KeyLayout) -> AsyncIterator[list[LadderService]]:
    """Three ladder services on one Redis and one key layout: three server processes."""
    layout = KeyLayout(test_layout.shards, tag=f"t{uuid.uuid4().hex}")
    stores = [MatchStore(redis_client, layout=layout) for _ in range(3)]
    services = [LadderService(MatchService(s, admin_token="adm")) for s in stores]
    try:
        yield services
    finally:
        for svc, store in zip(services, stores, strict=True):
            await svc.aclose()
            await store.aclose()


async def race(services: list[LadderService], bots: list[dict[str, str]], lid: str, seed: int) -> None:
    """Drive with three processes at once until the ladder finishes; now and then one pass is
    cancelled half way (a process killed mid-pass); play the running games."""
    rng = random.Random(seed)
    token_of = {b["bot_id"]: b["bot_token"] for b in bots}
    svc = services[0]
    for _ in range(3000):
        tasks = [asyncio.create_task(LadderDriver(s).run_once()) for s in services]
        if rng.random() < 0.3:
            await asyncio.sleep(0)
            tasks[rng.randrange(3)].cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        if (await svc.ladder(lid))["status"] != "running":
            return
        await play_running(svc, token_of, lid, rng)
    raise AssertionError("the ladder did not finish")


async def events(svc: LadderService, lid: str) -> list[dict[str, Any]]:
    return [json.loads(f[b"e"]) for _, f in await svc.redis.xrange(ladder_key(lid, "events"))]


async def test_a_swiss_ladder_plans_each_round_once_from_the_standings(three: list[LadderService]) -> None:
    svc = three[0]
    bots = await register(svc, 5)
    ids = [b["bot_id"] for b in bots]
    lad = await svc.create_ladder(LadderSpec("sw", "schnapsen-at", ids, format="swiss", rounds=3, deals_per_game=1,
                                             concurrency=3, seed=7), admin_token="adm")
    lid = lad["ladder_id"]
    assert lad["matches_total"] == 4  # round 1 only: two pairings, one duplicate pair each
    await race(three, bots, lid, 1)
    assert (await svc.ladder(lid))["status"] == "finished"
    stages = [json.loads(x) for x in await svc.redis.lrange(ladder_key(lid, "stages"), 0, -1)]
    assert [s["stage"] for s in stages] == [0, 1, 2] and [s["label"] for s in stages] == ["round 1", "round 2", "round 3"]
    assert [e["stage"] for e in await events(svc, lid) if e["type"] == "stage"] == [0, 1, 2]  # each planned once
    byes = [b for s in stages for b in s["byes"]]
    assert len(byes) == 3 and len(set(byes)) == 3  # one bye a round, never twice to one bot
    met: set[frozenset[str]] = set()
    for s in stages:  # a rematch only where the bots of the round had no pairing without one
        pairs = [frozenset(m["bots"]) for m in s["meetings"]]
        if any(p in met for p in pairs):
            playing = [b for b in ids if b not in s["byes"]]
            fresh = nx.Graph([(a, b) for a, b in itertools.combinations(playing, 2) if frozenset((a, b)) not in met])
            assert len(nx.max_weight_matching(fresh, maxcardinality=True)) < 2, s
        met.update(pairs)
    results = await svc.results(lid)
    assert len(results) == 12 and sorted(r["game"] for r in results) == list(range(12))
    assert all(r["stage"] in (0, 1, 2) and r["meeting"].startswith(f"r{r['stage'] + 1}m") for r in results)
    view = await svc.pairings(lid)
    assert view["format"] == "swiss" and len(view["rounds"]) == 3
    table = view["standings"]
    assert sorted(r["bot_id"] for r in table) == sorted(ids) and [r["rank"] for r in table] == [1, 2, 3, 4, 5]
    assert sum(r["points"] for r in table) == 6 + 3  # a point a meeting, a point a bye
    assert all(table[i]["points"] >= table[i + 1]["points"] for i in range(4))


async def test_a_knockout_ladder_plays_its_bracket_to_a_winner(three: list[LadderService]) -> None:
    svc = three[0]
    bots = await register(svc, 5)
    ids = [b["bot_id"] for b in bots]
    lad = await svc.create_ladder(LadderSpec("ko", "schnapsen-at", ids, format="knockout", pairs_per_meeting=1,
                                             deals_per_game=1, concurrency=4, seed=3), admin_token="adm")
    lid = lad["ladder_id"]
    assert lad["matches_total"] == 2  # 8 slots, 5 bots: seeds 1-3 have byes, 4 meets 5
    await race(three, bots, lid, 2)
    view = await svc.pairings(lid)
    rounds = view["rounds"]
    assert [r["label"] for r in rounds] == ["quarter-final", "semi-final", "final"]
    first = rounds[0]["meetings"]
    assert [t["decided_by"] for t in first].count("bye") == 3
    assert {t["winner"] for t in first if t["decided_by"] == "bye"} == set(ids[:3])
    final = rounds[-1]["meetings"][0]
    assert final["winner"] in ids and final["decided_by"] in ("score", "game_points", "seed")
    stage_events = [e for e in await events(svc, lid) if e["type"] == "stage"]
    assert [e["stage"] for e in stage_events] == list(range(len(stage_events)))  # each stage once, in order
    played = [t for r in rounds for t in r["meetings"] if t["decided_by"] != "bye"]
    assert len(played) == 4 and all(t["pairs"] >= 1 for t in played)


async def test_staged_formats_refuse_what_they_cannot_play(three: list[LadderService]) -> None:
    svc = three[0]
    ids = [b["bot_id"] for b in await register(svc, 4)]
    with pytest.raises(InvalidArgumentError, match="two-player"):
        await svc.create_ladder(LadderSpec("k", "bauernschnapsen", ids, format="knockout"), admin_token="adm")
    with pytest.raises(InvalidArgumentError, match="rounds"):
        await svc.create_ladder(LadderSpec("s", "schnapsen-at", ids, format="swiss", rounds=0), admin_token="adm")
    with pytest.raises(InvalidArgumentError, match="seeding"):
        await svc.create_ladder(LadderSpec("k", "schnapsen-at", ids, format="knockout", seeding="x"),
                                admin_token="adm")


async def test_a_knockout_seeded_by_rating_puts_the_pools_best_first(three: list[LadderService]) -> None:
    """seeding=rating: the bots in order of their openskill ordinal over every ladder of the same
    rating pool (variant, options, time control, deals per game), unrated bots last in listed order."""
    svc = three[0]
    bots = await register(svc, 4)
    ids = [b["bot_id"] for b in bots]
    rr = await svc.create_ladder(LadderSpec("rr", "santase", ids[:3], rounds=2, deals_per_game=1, concurrency=2,
                                            seed=2), admin_token="adm")
    await race(three, bots, rr["ladder_id"], 4)
    pooled = await svc.leaderboard(rr["ladder_id"], pooled=True)
    best_first = [e["bot_id"] for e in pooled["entries"] if e["games"] and e["bot_id"] in ids]  # other tests share the pool
    ko = await svc.create_ladder(LadderSpec("ko", "santase", list(reversed(ids)), format="knockout",
                                            deals_per_game=1, seeding="rating", seed=1), admin_token="adm")
    assert ko["bot_ids"] == best_first + [ids[3]]  # the unrated bot (listed first) seeded last
    assert ko["seeding"] == "rating"

"""Ladders that can be trusted (issue 25): a duplicate set's seed stays hidden until the whole set is
over, match ids cannot be guessed, a game is started and recorded exactly once whatever the
processes do, expired matches are not handed out, every ladder has a size cap, and stopping a
ladder ends its running games. Real Valkey."""

from __future__ import annotations

import asyncio
import json
import random
import re
from typing import Any

import pytest

from bummerl.core.errors import InvalidArgumentError
from bummerl.core.verify import verify_record
from bummerl.ladder.driver import CLAIM_LEASE_MS, LadderDriver
from bummerl.ladder.formats import MAX_GAMES
from bummerl.ladder.service import LadderService, LadderSpec
from bummerl.store.keys import botq_key, ladder_key

from .test_ladder_service import register


async def running_games(ladders: LadderService, lid: str) -> list[dict[str, Any]]:
    return [json.loads(g) for g in (await ladders.redis.hgetall(ladder_key(lid, "running"))).values()]


async def finish(ladders: LadderService, game: dict[str, Any], tokens: dict[str, str]) -> None:
    """Plays a started game to its end with random legal actions (bot tokens)."""
    svc, rng, mid = ladders.matches, random.Random(1), game["match_id"]
    while await ladders.store.is_running(mid):
        info = await svc.information_set(mid, 0, tokens[game["bots"][0]])
        seat = info["deal"]["to_act"]
        info = await svc.information_set(mid, seat, tokens[game["bots"][seat]])
        await svc.submit_action(mid, seat, tokens[game["bots"][seat]], info["version"],
                                rng.choice(info["legal_actions"])["id"])


async def test_a_leg_reveals_nothing_until_its_duplicate_set_is_over(ladders: LadderService) -> None:
    bots = await register(ladders, 2)
    tokens = {b["bot_id"]: b["bot_token"] for b in bots}
    lad = await ladders.create_ladder(LadderSpec("d", "schnapsen-at", list(tokens), rounds=1, deals_per_game=1,
                                                 concurrency=2, seed=4), admin_token="adm")
    lid = lad["ladder_id"]
    await LadderDriver(ladders).run_once()
    (leg0,) = await running_games(ladders, lid)  # concurrency 2, yet one leg of the set at a time (issue 38)
    await finish(ladders, leg0, tokens)
    await LadderDriver(ladders).run_once()  # the first leg is recorded; the other one starts and runs
    (leg1,) = await running_games(ladders, lid)
    assert leg1["pair"] == leg0["pair"] and leg1["leg"] != leg0["leg"]
    rec = await ladders.matches.record(leg0["match_id"])
    assert rec["over"] and not rec["revealed"] and "seed" not in rec and "deck_salt" not in rec
    assert all("deck_order" not in d for d in rec["deals"])
    # not even the cards played in leg 0: leg 1 deals them (relabelled) to other seats
    assert all(a["action_id"] == -1 and " " not in a["action_text"] for a in rec["actions"])
    assert not re.search(r'"[9TJQKA][CSHD]"', json.dumps(rec)), rec
    assert (await ladders.matches.record(leg0["match_id"], "adm"))["revealed"]  # the admin may look
    await finish(ladders, leg1, tokens)
    await LadderDriver(ladders).run_once()
    for g in (leg0, leg1):
        rec = await ladders.matches.record(g["match_id"])
        assert rec["revealed"] and rec["seed"] == leg0["seed"]
        assert isinstance(g["seed"], int) and isinstance(g["suit_perm"], list)  # the claim kept the spec's JSON
        verify_record(json.loads(json.dumps(rec)))  # a ladder game's record checks out too


async def test_match_ids_are_not_derivable_and_stable(ladders: LadderService) -> None:
    bots = await register(ladders, 3)
    lad = await ladders.create_ladder(LadderSpec("i", "schnapsen-at", [b["bot_id"] for b in bots], rounds=2,
                                                 seed=1), admin_token="adm")
    raw = await ladders.redis.lrange(ladder_key(lad["ladder_id"], "pending"), 0, -1)
    ids = [json.loads(g)["match_id"] for g in raw]
    assert len(set(ids)) == len(ids) == 12
    assert all(i.startswith(lad["ladder_id"] + "g") and len(i) == len(lad["ladder_id"]) + 25 for i in ids)
    assert not any(i.endswith(f"{n:06d}") for n, i in enumerate(ids))
    again = await ladders.create_ladder(LadderSpec("i", "schnapsen-at", [b["bot_id"] for b in bots], rounds=2,
                                                   seed=1), admin_token="adm")  # same seed, other ladder key
    raw2 = await ladders.redis.lrange(ladder_key(again["ladder_id"], "pending"), 0, -1)
    assert [json.loads(g)["seed"] for g in raw2] == [json.loads(g)["seed"] for g in raw]
    assert {json.loads(g)["match_id"][-24:] for g in raw2}.isdisjoint(i[-24:] for i in ids)


async def test_a_claimed_game_is_started_once_by_racing_processes(ladders: LadderService) -> None:
    """A process claims a game and dies before starting it; after the claim lease three processes
    race to start it (and to start it again): one match, each seat assigned once, one ``started``
    event; a game already recorded is never put back to running."""
    bots = await register(ladders, 2)
    tokens = {b["bot_id"]: b["bot_token"] for b in bots}
    lad = await ladders.create_ladder(LadderSpec("r", "schnapsen-at", list(tokens), rounds=1, deals_per_game=1,
                                                 concurrency=1, seed=8), admin_token="adm")
    lid = lad["ladder_id"]
    pending, running = ladder_key(lid, "pending"), ladder_key(lid, "running")
    assert await ladders.scheduler.claim_script(keys=[pending, running], args=[1, ladders.matches.now_ms(), 256])  # ... and dies
    drivers = [LadderDriver(ladders) for _ in range(3)]
    await asyncio.gather(*(d.run_once() for d in drivers))
    (game,) = await running_games(ladders, lid)
    assert not game.get("assigned")  # within the lease nobody else starts it
    game["claimed_ms"] -= CLAIM_LEASE_MS
    await ladders.redis.hset(running, str(game["game"]), json.dumps(game))
    cfg = await ladders.ladder(lid)
    await asyncio.gather(*(d.run_once() for d in drivers), *(ladders.scheduler.start(cfg, dict(game)) for _ in range(3)))
    for b in tokens:
        queue = await ladders.redis.xrange(botq_key(b))
        assert [json.loads(f[b"a"])["match_id"] for _, f in queue].count(game["match_id"]) == 1
    events = [json.loads(f[b"e"]) for _, f in await ladders.redis.xrange(ladder_key(lid, "events"))]
    assert [e["game"] for e in events if e["type"] == "started"] == [0]
    (started,) = await running_games(ladders, lid)
    await finish(ladders, started, tokens)
    await drivers[0].run_once()
    assert [r["game"] for r in await ladders.results(lid)] == [0]
    await ladders.scheduler.start(cfg, dict(game))  # a late start of the recorded game
    assert all(g["game"] != 0 for g in await running_games(ladders, lid))
    assert [r["game"] for r in await ladders.results(lid)] == [0]


async def test_an_expired_match_is_not_handed_out_again(ladders: LadderService) -> None:
    bots = await register(ladders, 2)
    lad = await ladders.create_ladder(LadderSpec("e", "schnapsen-at", [b["bot_id"] for b in bots], rounds=2,
                                                 deals_per_game=1, concurrency=2, seed=2), admin_token="adm")
    await LadderDriver(ladders).run_once()
    games = await running_games(ladders, lad["ladder_id"])
    await ladders.redis.delete(ladders.matches.store.layout.state_key(games[0]['match_id']))  # retention expired it
    got: list[str] = []

    async def take() -> None:
        async for a in ladders.assignments(bots[0]["bot_id"], bots[0]["bot_token"]):
            got.append(a["match_id"])

    task = asyncio.create_task(take())
    await asyncio.sleep(0.3)
    task.cancel()
    assert got == [games[1]["match_id"]]


async def test_every_ladder_has_a_cap_on_planned_games(ladders: LadderService) -> None:
    bots = await register(ladders, 3)
    ids = [b["bot_id"] for b in bots]
    for spec in (LadderSpec("c", "schnapsen-at", ids, rounds=40_000),
                 LadderSpec("c", "schnapsen-at", ids, format="gauntlet", rounds=60_000)):  # 240,000 games
        with pytest.raises(InvalidArgumentError, match=f"at most {MAX_GAMES}"):
            await ladders.create_ladder(spec, admin_token="adm")
    with pytest.raises(InvalidArgumentError, match="rounds must be 1..100000, not 100001"):  # an SPRT: at most 200,000 games
        await ladders.create_ladder(LadderSpec("c", "schnapsen-at", ids[:2], format="sprt", rounds=100_001,
                                               sprt={"elo0": 0, "elo1": 5}), admin_token="adm")


async def test_stopping_a_ladder_ends_its_running_games(ladders: LadderService) -> None:
    bots = await register(ladders, 2)
    lad = await ladders.create_ladder(LadderSpec("s", "schnapsen-at", [b["bot_id"] for b in bots], rounds=3,
                                                 concurrency=2, seed=3), admin_token="adm")
    await LadderDriver(ladders).run_once()
    games = await running_games(ladders, lad["ladder_id"])
    assert len(games) == 2
    stopped = await ladders.stop_ladder(lad["ladder_id"], admin_token="adm")
    assert stopped["status"] == "stopped" and stopped["matches_running"] == 0
    for g in games:
        rec = await ladders.matches.record(g["match_id"])
        assert rec["over"] and rec["match_result"]["reason"] == "abandoned" and rec["actions"][-1]["kind"] == "ABANDONED"
        assert rec["revealed"]  # nothing of its set can run any more
    await LadderDriver(ladders).run_once()
    assert await ladders.results(lad["ladder_id"]) == []
    assert (await ladders.ladder(lad["ladder_id"]))["status"] == "stopped"


async def test_watchers_of_a_ladder_share_one_reader_and_bots_keep_theirs(ladders: LadderService) -> None:
    """150 watchers from 150 addresses follow one ladder on one Redis connection; a bot's assignment
    stream still works; every watcher gets every event once, history and live alike."""
    bots = await register(ladders, 2)
    lad = await ladders.create_ladder(LadderSpec("w", "schnapsen-at", [b["bot_id"] for b in bots], rounds=2,
                                                 deals_per_game=1, concurrency=2, seed=6), admin_token="adm")
    lid = lad["ladder_id"]
    seen: list[list[str]] = [[] for _ in range(150)]

    async def watch(i: int) -> None:
        async for ev in ladders.stream_ladder(lid, peer=f"ipv4:10.0.0.{i}"):
            seen[i].append(ev["type"])

    watchers = []
    for i in range(150):  # a few at a time: the test's client has a small pool of its own
        watchers.append(asyncio.create_task(watch(i)))
        if i % 10 == 9:
            await asyncio.sleep(0.05)
    await asyncio.sleep(0.2)
    assert ladders.public_feeds.keys_followed == 1
    await LadderDriver(ladders).run_once()  # two "started" events (of two duplicate sets), live
    got = []

    async def bot() -> None:
        async for a in ladders.assignments(bots[0]["bot_id"], bots[0]["bot_token"]):
            got.append(a)
            return

    await asyncio.wait_for(bot(), 5)
    for _ in range(50):
        if all(s.count("started") == 2 for s in seen):
            break
        await asyncio.sleep(0.05)
    assert all(s == ["created", "started", "started"] for s in seen)
    for w in watchers:
        w.cancel()
    await asyncio.gather(*watchers, return_exceptions=True)
    assert ladders.public_feeds.keys_followed == 0 and got


async def test_a_ladder_waits_for_its_bots_and_shows_who_is_absent(ladders: LadderService) -> None:
    """start_when_connected: no game starts (so no bot loses on time) until every bot holds an
    assignment stream; GetLadder names the absent ones; a closed stream makes a bot absent again."""
    bots = await register(ladders, 2)
    ids = [b["bot_id"] for b in bots]
    lad = await ladders.create_ladder(LadderSpec("p", "schnapsen-at", ids, rounds=2, deals_per_game=1, seed=2,
                                                 start_when_connected=True), admin_token="adm")
    lid = lad["ladder_id"]
    assert lad["absent_bots"] == ids and lad["waiting_for_bots"]
    await LadderDriver(ladders).run_once()
    assert await running_games(ladders, lid) == []
    got: dict[str, list[str]] = {b: [] for b in ids}

    async def connect(b: dict[str, str]) -> None:
        async for a in ladders.assignments(b["bot_id"], b["bot_token"]):
            got[b["bot_id"]].append(a["match_id"])

    first = asyncio.create_task(connect(bots[0]))
    await asyncio.sleep(0.1)
    lad = await ladders.ladder(lid)
    assert lad["absent_bots"] == [ids[1]] and lad["waiting_for_bots"]
    assert set(await ladders.connected_bots()) >= {ids[0]}
    await LadderDriver(ladders).run_once()
    assert await running_games(ladders, lid) == []
    second = asyncio.create_task(connect(bots[1]))
    await asyncio.sleep(0.1)
    await LadderDriver(ladders).run_once()
    lad = await ladders.ladder(lid)
    assert lad["absent_bots"] == [] and not lad["waiting_for_bots"] and lad["matches_running"] == 2
    await asyncio.sleep(0.1)
    assert all(len(v) == 2 for v in got.values())
    first.cancel()
    await asyncio.gather(first, return_exceptions=True)
    assert (await ladders.ladder(lid))["absent_bots"] == [ids[0]]
    second.cancel()
    await asyncio.gather(second, return_exceptions=True)
    events = [json.loads(f[b"e"]) for _, f in await ladders.redis.xrange(ladder_key(lid, "events"))]
    assert [e["type"] for e in events if e["type"].startswith("bots_")] == ["bots_connected"]


async def test_a_waiting_ladder_starts_after_its_connect_timeout(ladders: LadderService) -> None:
    bots = await register(ladders, 2)
    lad = await ladders.create_ladder(LadderSpec("p", "schnapsen-at", [b["bot_id"] for b in bots], rounds=2,
                                                 deals_per_game=1, seed=2, start_when_connected=True, connect_timeout_ms=1),
                                      admin_token="adm")
    await asyncio.sleep(0.01)
    await LadderDriver(ladders).run_once()
    assert len(await running_games(ladders, lad["ladder_id"])) == 2
    events = [json.loads(f[b"e"]) for _, f in await ladders.redis.xrange(ladder_key(lad["ladder_id"], "events"))]
    absent = [e for e in events if e["type"] == "bots_absent"]
    assert len(absent) == 1 and absent[0]["bots"] == [b["bot_id"] for b in bots]


async def test_the_driver_logs_one_line_while_redis_is_down(ladders: LadderService, caplog: Any) -> None:
    """Expected faults are one line with backoff, not a traceback every 100 ms (issue 25)."""
    from redis.exceptions import ConnectionError as RedisConnectionError

    driver = LadderDriver(ladders, poll_ms=10)
    calls = 0

    async def down() -> int:
        nonlocal calls
        calls += 1
        raise RedisConnectionError("Connection refused")

    driver.run_once = down  # type: ignore[method-assign]
    stop = asyncio.Event()
    task = asyncio.create_task(driver.run(stop))
    await asyncio.sleep(1.0)
    stop.set()
    await task
    lines = [r for r in caplog.records if r.name == "bummerl.ladder.driver"]
    assert len(lines) == 1 and "redis unavailable" in lines[0].getMessage() and lines[0].exc_info is None
    assert 2 <= calls <= 8  # backoff: 0.02, 0.04, ... instead of every 10 ms


def test_running_standings_equal_a_full_recompute() -> None:
    """Standings folded in chunks (as successive leaderboard reads do) equal the leaderboard
    computed over every result at once: a read costs the new results, not all of them."""
    from bummerl.ladder.standings import Standings, leaderboard

    rng = random.Random(3)
    bots = [f"b{i}" for i in range(5)]
    results: list[dict[str, Any]] = []
    for g in range(300):
        a, b = rng.sample(bots, 2)
        s = rng.choice([0.0, 0.5, 1.0])
        results.append({"game": g, "pair": g, "leg": 0, "bots": [a, b], "scores": [s, 1 - s],
                        "deals_won": [rng.randrange(3), rng.randrange(3)], "winner": 0})
    cfg = {"ladder_id": "l", "bot_ids": bots, "bot_names": {}, "duplicate_deals": False, "sprt": None}
    st = Standings(bots)
    for lo in range(0, 300, 37):
        st.add(results[lo:lo + 37])
    assert st.count == 300
    assert st.entries({}) == leaderboard(cfg, results)["entries"]


async def test_leaderboard_reads_fold_only_new_results(ladders: LadderService) -> None:
    bots = await register(ladders, 2)
    tokens = {b["bot_id"]: b["bot_token"] for b in bots}
    lad = await ladders.create_ladder(LadderSpec("b", "schnapsen-at", list(tokens), rounds=2, deals_per_game=1,
                                                 concurrency=2, seed=4), admin_token="adm")
    lid = lad["ladder_id"]
    from bummerl.ladder.standings import leaderboard

    for _ in range(2):
        await LadderDriver(ladders).run_once()
        for g in await running_games(ladders, lid):
            await finish(ladders, g, tokens)
        await LadderDriver(ladders).run_once()
        board = await ladders.leaderboard(lid)
        full = leaderboard(await ladders.config(lid), await ladders.results(lid))
        assert board["entries"] == full["entries"] and board["pairs"] == full["pairs"]
    assert ladders.data._boards[lid].standings.count == 4


def test_bench_leaderboard_reports_both_figures() -> None:
    from bummerl_bench.benches import bench_leaderboard

    r = bench_leaderboard(results=400, bots=4)
    assert r["results"] == 400 and r["full_ms"] > 0 and r["incremental_read_ms"] > 0


def test_pairs_are_seen_from_the_bot_listed_first_so_the_sprt_tests_it() -> None:
    """An SPRT ladder tests its first bot against the second whatever their ids (it took the lower
    id, so the same ``ladder run --bots random,greedy`` tested either bot, by the ids it drew);
    the same for a 3-seat table's head to head. Results with swapped ids give the mirrored pair."""
    from bummerl.ladder.standings import pair_table

    sprt = {"elo0": 0.0, "elo1": 10.0, "alpha": 0.05, "beta": 0.05}
    for first, second in (("zz-strong", "aa-weak"), ("aa-strong", "zz-weak")):
        results = [{"game": 2 * p + leg, "pair": p, "leg": leg, "bots": [first, second] if leg == 0 else [second, first],
                    "scores": [1.0, 0.0] if leg == 0 else [0.0, 1.0]} for p in range(120) for leg in (0, 1)]
        # (120 pairs, every one won: the exact GSPRT decides such a stream at 104 pairs, issue 38)
        cfg = {"ladder_id": "l", "bot_ids": [first, second], "bot_names": {}, "duplicate_deals": True, "sprt": sprt}
        [pair] = pair_table(cfg, results)
        assert (pair["a"], pair["b"]) == (first, second)
        assert pair["elo"] > 0 and pair["sprt_result"] == "H1"  # the first bot is stronger: H1, from its side
    seated = [{"game": 0, "pair": 0, "leg": 0, "bots": ["zz", "mm", "aa"], "placements": [1, 2, 3], "teams": [0, 1, 2],
               "scores": [1.0, 0.5, 0.0]}]
    cfg = {"ladder_id": "l", "bot_ids": ["zz", "mm", "aa"], "bot_names": {}, "duplicate_deals": False, "sprt": None}
    assert [(p["a"], p["b"]) for p in pair_table(cfg, seated)] == [("zz", "mm"), ("zz", "aa"), ("mm", "aa")]
    assert all(p["elo"] > 0 for p in pair_table(cfg, seated))  # each a placed ahead of its b

"""Ladders in Redis (docs/DESIGN.md §5): planning, claiming with a concurrency cap, duplicate deals with
relabelled suits, exactly-once results, bot tokens for seats, leaderboards. Real Valkey; the bots
play in this process through the match service with their bot tokens."""

from __future__ import annotations

import asyncio
import json
import random
import uuid

import pytest

from bummerl.core.errors import InvalidArgumentError, PermissionDeniedError, UnauthenticatedError
from bummerl.ladder.driver import LadderDriver
from bummerl.ladder.service import LadderService, LadderSpec
from bummerl.store.keys import ladder_key


async def register(ladders: LadderService, n: int) -> list[dict[str, str]]:
    tag = uuid.uuid4().hex[:6]
    return [await ladders.register_bot(f"bot{i}-{tag}", admin_token="adm") for i in range(n)]


async def run_ladder(ladders: LadderService, bots: list[dict[str, str]], ladder_id: str) -> None:
    """Drive the ladder and play its matches (both seats, random moves, with bot tokens)."""
    svc = ladders.matches
    token_of = {b["bot_id"]: b["bot_token"] for b in bots}
    rng = random.Random(5)
    driver = LadderDriver(ladders)
    for _ in range(2000):
        await driver.run_once()
        lad = await ladders.ladder(ladder_id)
        if lad["status"] != "running":
            return
        for game_raw in (await ladders.redis.hgetall(ladder_key(ladder_id, "running"))).values():
            game = json.loads(game_raw)
            if not game.get("assigned"):
                continue
            mid = game["match_id"]
            while not await ladders.store.is_over(mid):
                info = await svc.information_set(mid, 0, token_of[game["bots"][0]])
                seat = info["deal"]["to_act"]
                info = await svc.information_set(mid, seat, token_of[game["bots"][seat]])
                await svc.submit_action(mid, seat, token_of[game["bots"][seat]], info["version"],
                                        rng.choice(info["legal_actions"])["id"])
    raise AssertionError("the ladder did not finish")


async def test_round_robin_with_duplicate_deals_plays_every_game_once(ladders: LadderService) -> None:
    bots = await register(ladders, 3)
    ids = [b["bot_id"] for b in bots]
    lad = await ladders.create_ladder(LadderSpec("rr", "schnapsen-at", ids, rounds=2, deals_per_game=1,
                                                 concurrency=2, seed=11), admin_token="adm")
    assert lad["matches_total"] == 3 * 2 * 2 and lad["status"] == "running"
    await run_ladder(ladders, bots, lad["ladder_id"])
    lad = await ladders.ladder(lad["ladder_id"])
    assert lad["status"] == "finished" and lad["matches_played"] == 12 and lad["matches_running"] == 0
    results = await ladders.results(lad["ladder_id"])
    assert sorted(r["game"] for r in results) == list(range(12))
    assert all(r["deals"] == 1 for r in results)
    by_pair: dict[int, list[dict[str, object]]] = {}
    for r in results:
        by_pair.setdefault(r["pair"], []).append(r)
    for legs in by_pair.values():  # duplicate: same seed, seats swapped, suits relabelled in leg 1
        legs.sort(key=lambda r: r["leg"])
        assert legs[0]["bots"] == list(reversed(legs[1]["bots"]))  # type: ignore[arg-type]
        r0 = await ladders.matches.record(legs[0]["match_id"])  # type: ignore[arg-type]
        r1 = await ladders.matches.record(legs[1]["match_id"])  # type: ignore[arg-type]
        assert r0["seed"] == r1["seed"]
        d0, d1 = r0["deals"][0]["deck_order"], r1["deals"][0]["deck_order"]
        assert [c[0] for c in d0] == [c[0] for c in d1] and d0 != d1  # same ranks, other suit letters
    board = await ladders.leaderboard(lad["ladder_id"])
    assert [e["rank"] for e in board["entries"]] == [1, 2, 3]
    assert sum(e["games"] for e in board["entries"]) == 24
    assert all(e["ordinal"] == e["mu"] - 3 * e["sigma"] for e in board["entries"])
    assert len(board["pairs"]) == 3 and all(p["deal_pairs"] == 2 and sum(p["pentanomial"]) == 2 for p in board["pairs"])


async def test_driver_records_each_result_once_with_several_processes(ladders: LadderService) -> None:
    bots = await register(ladders, 2)
    lad = await ladders.create_ladder(LadderSpec("x", "santase", [b["bot_id"] for b in bots], rounds=3,
                                                 deals_per_game=1, concurrency=3, seed=3), admin_token="adm")
    lid = lad["ladder_id"]
    drivers = [LadderDriver(ladders), LadderDriver(ladders), LadderDriver(ladders)]
    await asyncio.gather(*(d.run_once() for d in drivers))
    running = await ladders.redis.hgetall(ladder_key(lid, "running"))
    assert len(running) == 3  # the concurrency cap held across three drivers
    await run_ladder(ladders, bots, lid)
    assert sorted(r["game"] for r in await ladders.results(lid)) == list(range(6))


async def test_bot_tokens_and_admin_rules(ladders: LadderService) -> None:
    with pytest.raises(PermissionDeniedError):
        await ladders.register_bot("nobody")
    bots = await register(ladders, 2)
    with pytest.raises(InvalidArgumentError, match="already registered"):
        await ladders.register_bot(f"{bots[0]['name']}", admin_token="adm")
    with pytest.raises(PermissionDeniedError, match="this is the token of bot"):  # valid, but not this bot's
        await ladders.authenticate_bot(bots[0]["bot_id"], bots[1]["bot_token"])
    with pytest.raises(UnauthenticatedError):
        await ladders.authenticate_bot(bots[0]["bot_id"], bots[1]["bot_token"] + "0")
    ids = [b["bot_id"] for b in bots]
    for spec, needle in ((LadderSpec("a", "schnapsen-at", ids[:1]), "two different"),
                         (LadderSpec("a", "schnapsen-at", ids, format="nope"), "format"),
                         (LadderSpec("a", "nope", ids), "nope"),
                         # the bad field by name (one message listed every range)
                         (LadderSpec("a", "schnapsen-at", ids, deals_per_game=-3), "deals_per_game must be 0..1000, not -3"),
                         (LadderSpec("a", "schnapsen-at", ids, concurrency=5000), "concurrency must be 1..1000, not 5000"),
                         (LadderSpec("a", "schnapsen-at", ids, format="sprt", sprt={"elo0": 5, "elo1": 0}), "elo1")):
        with pytest.raises(InvalidArgumentError, match=needle):
            await ladders.create_ladder(spec, admin_token="adm")
    lad = await ladders.create_ladder(LadderSpec("t", "schnapsen-at", ids, deals_per_game=1, seed=1), admin_token="adm")
    await LadderDriver(ladders).run_once()
    game = await ladders.results(lad["ladder_id"])
    assert game == []
    running = (await ladders.redis.hgetall(ladder_key(lad['ladder_id'], "running"))).values()
    mid = next(g["match_id"] for g in map(json.loads, running) if g["game"] == 0)
    assert mid != f"{lad['ladder_id']}g000000"  # not derivable from the ladder id and game number (issue 25)
    info = await ladders.matches.information_set(mid, 0, bots[0]["bot_token"])  # the bot token plays its seat
    assert info["seat"] == 0
    with pytest.raises(PermissionDeniedError):
        await ladders.matches.information_set(mid, 1, bots[0]["bot_token"])


async def test_sprt_ladder_stops_when_decided(ladders: LadderService) -> None:
    bots = await register(ladders, 2)
    ids = [b["bot_id"] for b in bots]
    lad = await ladders.create_ladder(LadderSpec("s", "schnapsen-at", ids, format="sprt", rounds=500, deals_per_game=1,
                                                 concurrency=4, seed=2,
                                                 sprt={"elo0": 0, "elo1": 400, "alpha": 0.2, "beta": 0.2}),
                                      admin_token="adm")
    token_of = {b["bot_id"]: b["bot_token"] for b in bots}
    svc = ladders.matches
    driver = LadderDriver(ladders)
    for _ in range(3000):  # bot 0 always resigns: H0 (it is not stronger) is accepted early
        await driver.run_once()
        if (await ladders.ladder(lad["ladder_id"]))["status"] != "running":
            break
        for raw in (await ladders.redis.hgetall(ladder_key(lad['ladder_id'], "running"))).values():
            g = json.loads(raw)
            if g.get("assigned") and not await ladders.store.is_over(g["match_id"]):
                seat = g["bots"].index(ids[0])
                await svc.resign(g["match_id"], seat, token_of[ids[0]])
    lad = await ladders.ladder(lad["ladder_id"])
    assert lad["status"] == "finished" and lad["matches_played"] < 1000
    board = await ladders.leaderboard(lad["ladder_id"])
    assert board["pairs"][0]["sprt_result"] in ("H0", "H1")
    events = [json.loads(f[b"e"]) for _, f in await ladders.redis.xrange(ladder_key(lad['ladder_id'], "events"))]
    path = [(e["games_played"], e["sprt_llr"]) for e in events if e["type"] == "sprt"]  # the LLR after each result
    assert [g for g, _ in path] == list(range(1, len(path) + 1)) and path[-1][1] == board["pairs"][0]["sprt_llr"]


async def test_pooled_leaderboard_rates_every_ladder_of_one_variant_and_time_control(ladders: LadderService) -> None:
    """Ratings per variant and time control (issue: ladders): the pooled leaderboard of a ladder
    rates the results of every ladder with the same variant, options, time control and deals per
    game, and leaves out a ladder with another time control."""
    bots = await register(ladders, 3)
    ids = [b["bot_id"] for b in bots]
    cap = random.randrange(600_000, 900_000)  # a time control no other test uses
    tc = {"base_ms": 0, "increment_ms": 0, "move_cap_ms": cap, "lag_compensation_ms": 0, "scope": "match"}
    other_tc = {**tc, "move_cap_ms": cap + 1}
    made = []
    for pair, clock in (((0, 1), tc), ((1, 2), tc), ((0, 1), other_tc)):
        lad = await ladders.create_ladder(LadderSpec("p", "schnapsen-at", [ids[pair[0]], ids[pair[1]]], rounds=1,
                                                     deals_per_game=1, time_control=clock, seed=pair[1]),
                                          admin_token="adm")
        await run_ladder(ladders, bots, lad["ladder_id"])
        made.append(lad["ladder_id"])
    alone = await ladders.leaderboard(made[0])
    assert alone["ladder_ids"] == [made[0]] and {e["bot_id"] for e in alone["entries"]} == {ids[0], ids[1]}
    pooled = await ladders.leaderboard(made[0], pooled=True)
    assert pooled["ladder_ids"] == made[:2] and pooled["pool"] == alone["pool"]
    games = {e["bot_id"]: e["games"] for e in pooled["entries"]}
    assert games == {ids[0]: 2, ids[1]: 4, ids[2]: 2}  # two duplicate games per ladder, bot 1 in both
    # each pair from the side of the bot listed first (the pooled ladders' bots in order of appearance)
    assert [(p["a"], p["b"]) for p in pooled["pairs"]] == [(ids[0], ids[1]), (ids[1], ids[2])]
    assert (await ladders.leaderboard(made[2], pooled=True))["ladder_ids"] == [made[2]]

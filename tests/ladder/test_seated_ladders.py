"""Ladders of the 3- and 4-seat variants (docs/DESIGN.md §5, issue: "ladders rate teams with
openskill and rotate seats for duplicate deals"): tables of that many bots, duplicate sets under
every seating arrangement with relabelled suits, placements and per-seat scores, openskill with
teams, head-to-head pairs. Plans are read back from the real Valkey; the end-to-end ladders run a
real server with the bundled ``random`` and ``greedy`` bots connected over gRPC."""

from __future__ import annotations

import asyncio
import itertools
import json
import math
import uuid
from collections import Counter
from collections.abc import AsyncIterator
from typing import Any

import pytest
from openskill.models import PlackettLuce

from bummerl.app import Runtime
from bummerl.bots import make_bot
from bummerl.config import Settings
from bummerl.core.errors import InvalidArgumentError
from bummerl.ladder.formats import seatings
from bummerl.ladder.service import LadderService, LadderSpec
from bummerl.ladder.standings import leaderboard
from bummerl.ladder.stats import placement_scores
from bummerl.store.keys import ladder_key
from bummerl_client import AsyncClient
from bummerl_client.botrunner import run_bot

IDENTITY = [0, 1, 2, 3]


async def register(ladders: LadderService, n: int) -> list[str]:
    tag = uuid.uuid4().hex[:6]
    return [(await ladders.register_bot(f"seated{i}-{tag}", admin_token="adm"))["bot_id"] for i in range(n)]


async def planned(ladders: LadderService, spec: LadderSpec) -> tuple[dict[str, Any], dict[int, list[dict[str, Any]]]]:
    """Create the ladder and read its planned games back from Redis, grouped by set (``pair``)."""
    lad = await ladders.create_ladder(spec, admin_token="adm")
    raw = await ladders.redis.lrange(ladder_key(lad['ladder_id'], "pending"), 0, -1)
    games = [json.loads(x) for x in raw]
    assert [g["game"] for g in games] == list(range(lad["matches_total"]))
    assert len({g["match_id"] for g in games}) == len(games)
    sets: dict[int, list[dict[str, Any]]] = {}
    for g in games:
        sets.setdefault(g["pair"], []).append(g)
    return lad, sets


def check_duplicate_set(legs: list[dict[str, Any]], seats: int, fixed: tuple[int, ...] = ()) -> None:
    """One seed, every seating arrangement of one table once, leg 0 as dealt, every later leg
    with a suit relabelling that is not the identity and keeps ``fixed`` suits."""
    legs = sorted(legs, key=lambda g: g["leg"])  # planned in a shuffled order (issue 38)
    assert [g["leg"] for g in legs] == list(range(math.factorial(seats)))
    assert len({g["seed"] for g in legs}) == 1
    table = sorted(legs[0]["bots"])
    assert sorted(tuple(g["bots"]) for g in legs) == sorted(itertools.permutations(table))
    assert legs[0]["suit_perm"] == []
    for g in legs[1:]:
        p = g["suit_perm"]
        assert sorted(p) == IDENTITY and p != IDENTITY and all(p[s] == s for s in fixed)


async def test_three_seat_round_robin_plans_every_table_under_every_seating(ladders: LadderService) -> None:
    bots = await register(ladders, 4)
    lad, sets = await planned(ladders, LadderSpec("s3", "stockschnapsen", bots, rounds=2, deals_per_game=1, seed=5))
    assert lad["num_players"] == 3 and lad["team_of_seat"] == [0, 1, 2]
    assert lad["matches_total"] == 4 * 2 * 6 and len(sets) == 8  # C(4,3) tables x 2 rounds x 3! seatings
    for legs in sets.values():
        check_duplicate_set(legs, 3)
        assert len({tuple(g["suit_perm"]) for g in legs}) == 6  # every leg relabelled differently
    tables = [frozenset(legs[0]["bots"]) for _, legs in sorted(sets.items())]
    every = {frozenset(c) for c in itertools.combinations(bots, 3)}
    assert set(tables[:4]) == every and set(tables[4:]) == every  # each round: every 3-subset once
    assert len({legs[0]["seed"] for legs in sets.values()}) == 8


async def test_four_seat_gauntlet_gives_every_bot_every_seat_and_partner(ladders: LadderService) -> None:
    bots = await register(ladders, 5)
    lad, sets = await planned(ladders, LadderSpec("g4", "bauernschnapsen", bots, format="gauntlet", deals_per_game=1,
                                                  seed=9))
    assert lad["team_of_seat"] == [0, 1, 0, 1]
    assert lad["matches_total"] == 4 * 24 and len(sets) == 4  # bot 0 with each 3 of the other 4
    tables = {frozenset(legs[0]["bots"]) for legs in sets.values()}
    assert tables == {frozenset([bots[0], *c]) for c in itertools.combinations(bots[1:], 3)}
    for legs in sets.values():
        check_duplicate_set(legs, 4)
        assert len({tuple(g["suit_perm"]) for g in legs}) == 24  # 23 relabellings, all different
        seat_counts = Counter((b, seat) for g in legs for seat, b in enumerate(g["bots"]))
        assert set(seat_counts.values()) == {6} and len(seat_counts) == 16  # every bot every seat 6 times
        partners = Counter(frozenset((g["bots"][0], g["bots"][2])) for g in legs)
        partners.update(frozenset((g["bots"][1], g["bots"][3])) for g in legs)
        assert len(partners) == 6 and set(partners.values()) == {8}  # every partnership 8 times


async def test_hearts_always_trump_keeps_hearts_when_relabelling(ladders: LadderService) -> None:
    bots = await register(ladders, 4)
    _, sets = await planned(ladders, LadderSpec("h4", "snapszer-hu-4p", bots, deals_per_game=1, seed=4))
    [legs] = sets.values()
    check_duplicate_set(legs, 4, fixed=(2,))  # suit 2 = hearts (cards.SUITS "CSHD")
    assert len({tuple(g["suit_perm"]) for g in legs if g["leg"]}) == 5  # the 5 relabellings that keep hearts
    _, sets = await planned(ladders, LadderSpec("h3", "snapszer-hu-3p-sopron", bots[:3], deals_per_game=1, seed=4))
    assert any(g["suit_perm"][2] != 2 for legs in sets.values() for g in legs if g["leg"])  # hearts not fixed there


async def test_without_duplicate_deals_seatings_rotate_across_rounds(ladders: LadderService) -> None:
    bots = await register(ladders, 3)
    lad, sets = await planned(ladders, LadderSpec("n3", "talonschnapsen", bots, rounds=6, duplicate_deals=False,
                                                  seed=2))
    assert lad["matches_total"] == 6 and sorted(sets) == list(range(6))
    games = [legs[0] for _, legs in sorted(sets.items())]
    assert all(len(sets[p]) == 1 and g["leg"] == 0 and g["suit_perm"] == [] for p, g in enumerate(games))
    assert [g["bots"] for g in games] == seatings(bots)  # round r: arrangement r
    assert sorted(tuple(g["bots"]) for g in games) == sorted(itertools.permutations(bots))
    assert len({g["seed"] for g in games}) == 6


async def test_multi_seat_ladders_reject_too_few_bots_sprt_and_huge_plans(ladders: LadderService) -> None:
    bots = await register(ladders, 4)
    for spec, needle in ((LadderSpec("a", "bauernschnapsen", bots[:3]), "at least 4 different bots, got 3"),
                         (LadderSpec("a", "stockschnapsen", bots[:2]), "at least 3 different bots, got 2"),
                         (LadderSpec("a", "stockschnapsen", [bots[0], bots[0], bots[1]]), "at least 3 different"),
                         (LadderSpec("a", "talonschnapsen", bots[:3], format="sprt"), "two-player variant"),
                         (LadderSpec("a", "bauernschnapsen", bots, rounds=9000), "would plan 216000 games")):
        with pytest.raises(InvalidArgumentError, match=needle):
            await ladders.create_ladder(spec, admin_token="adm")


def team_result(game: int, seated: list[str], places: list[int], teams: list[int]) -> dict[str, Any]:
    """A recorded result of one single-deal game (the shape ``seated_result`` stores)."""
    won = [1 if p == 1 else 0 for p in places]
    return {"game": game, "pair": 0, "leg": game, "match_id": f"m{game}", "bots": seated, "winner": -1,
            "placements": places, "teams": teams, "scores": placement_scores(places, teams), "reason": "deal_limit",
            "deals_won": won, "deals_lost": [1 - w for w in won], "deals": 1, "game_points": [0] * len(seated)}


def test_team_leaderboard_rates_partners_together_and_the_winner_first() -> None:
    bots = ["ace", "bob", "cid", "dan"]
    cfg = {"ladder_id": "lx", "bot_ids": bots, "bot_names": {}, "duplicate_deals": True}
    one = leaderboard(cfg, [team_result(0, bots, [2, 1, 2, 1], [0, 1, 0, 1])])
    by = {e["bot_id"]: e for e in one["entries"]}
    assert by["bob"]["mu"] == by["dan"]["mu"] and by["bob"]["sigma"] == by["dan"]["sigma"]  # partners share
    assert by["ace"]["mu"] == by["cid"]["mu"] and by["ace"]["mu"] < 25 < by["bob"]["mu"]
    assert by["bob"]["wins"] == 1 and by["ace"]["losses"] == 1 and by["bob"]["score"] == 1.0
    model = PlackettLuce()
    fresh = [model.rating() for _ in bots]
    [[lose, _], [win, _]] = model.rate([[fresh[0], fresh[2]], [fresh[1], fresh[3]]], ranks=[2, 1])
    assert by["bob"]["mu"] == pytest.approx(win.mu) and by["ace"]["sigma"] == pytest.approx(lose.sigma)
    alone = model.rate([[r] for r in fresh], ranks=[2, 1, 2, 1])  # four separate bots would move otherwise
    assert alone[1][0].mu != pytest.approx(win.mu)

    # "ace" wins every seating of a duplicate set, whoever its partner is
    results = []
    for k, seated in enumerate(seatings(bots)):
        mine = seated.index("ace") % 2
        results.append(team_result(k, seated, [1 if s % 2 == mine else 2 for s in range(4)], [0, 1, 0, 1]))
    board = leaderboard(cfg, results)
    top = board["entries"][0]
    assert top["bot_id"] == "ace" and top["wins"] == 24 and top["losses"] == 0 and top["score"] == 24
    assert all(e["games"] == 24 and e["wins"] + e["losses"] + e["draws"] == 24 for e in board["entries"])
    assert [e["rank"] for e in board["entries"]] == [1, 2, 3, 4]
    pairs = {(p["a"], p["b"]): p for p in board["pairs"]}
    assert len(pairs) == 6 and all(p["games"] == 16 and p["deal_pairs"] == 1 and p["pentanomial"] == []
                                   for p in pairs.values())  # opponents in 16 of 24 seatings
    # one duplicate set is one unit: ahead in Elo, but its spread (interval, LOS) is unknown
    assert all(pairs[("ace", o)]["elo"] > 0 and pairs[("ace", o)]["elo_ci95"] == math.inf
               and pairs[("ace", o)]["los"] == 0.5 for o in bots[1:])


def test_free_for_all_leaderboard_follows_the_placements() -> None:
    bots = ["x", "y", "z"]
    cfg = {"ladder_id": "lf", "bot_ids": bots, "bot_names": {}, "duplicate_deals": True}
    place = {"x": 1, "y": 2, "z": 3}
    results = [team_result(k, s, [place[b] for b in s], [0, 1, 2]) for k, s in enumerate(seatings(bots))]
    results.append({**team_result(6, ["z", "x", "y"], [1, 1, 1], [0, 1, 2]), "pair": 1})  # abandoned: all first
    board = leaderboard(cfg, results)
    assert [e["bot_id"] for e in board["entries"]] == ["x", "y", "z"]
    by = {e["bot_id"]: e for e in board["entries"]}
    assert by["x"]["score"] == 6.5 and by["y"]["score"] == 3.5 and by["z"]["score"] == 0.5
    assert (by["x"]["wins"], by["x"]["draws"], by["y"]["losses"], by["z"]["losses"]) == (6, 1, 6, 6)
    pairs = {(p["a"], p["b"]): p for p in board["pairs"]}
    assert pairs[("x", "y")]["games"] == 7 and pairs[("x", "y")]["deal_pairs"] == 1  # the lone game is no set
    assert pairs[("y", "z")]["elo"] > 0 and pairs[("x", "z")]["elo"] == math.inf


# ---------------------------------------------------------------------------- end to end


@pytest.fixture
async def rt(redis_url: str) -> AsyncIterator[Runtime]:
    settings = Settings.from_env({}, port=0, http_port=0, metrics_port=0, redis_url=redis_url, admin_token="adm")
    async with Runtime(settings) as r:
        yield r


async def play(rt: Runtime, variant: str, specs: list[str], **fields: Any) -> dict[str, Any]:
    """Register one bot per spec, connect each (bundled bot, over gRPC), run the ladder to its end;
    returns the ladder, its results, leaderboard, match records and the bot ids by spec index."""
    async with AsyncClient(rt.target) as c:
        await c.wait_ready(15)
        tag = uuid.uuid4().hex[:6]
        regs = [await c.register_bot(f"{s}-{i}-{tag}", admin_token="adm") for i, s in enumerate(specs)]
        stop = asyncio.Event()
        runners = [asyncio.create_task(run_bot(c, r["bot_token"], lambda s=s, i=i: make_bot(s, i), stop=stop))
                   for i, (s, r) in enumerate(zip(specs, regs, strict=True))]
        try:
            lad = await c.create_ladder(admin_token="adm", name=f"e2e {variant}", variant=variant,
                                        bot_ids=[r["bot_id"] for r in regs], **fields)
            async with asyncio.timeout(60):
                async for ev in c.stream_ladder(lad["ladder_id"]):
                    if ev["type"] == "finished":
                        break
            lid = lad["ladder_id"]
            results = await c.ladder_matches(lid)
            return {"ladder": await c.ladder(lid), "results": results, "board": await c.leaderboard(lid),
                    "pooled": await c.leaderboard(lid, pooled=True),
                    "records": {r["match_id"]: await c.match_record(r["match_id"]) for r in results},
                    "ids": [r["bot_id"] for r in regs]}
        finally:
            stop.set()
            await asyncio.gather(*runners, return_exceptions=True)


def check_board(out: dict[str, Any], seats: int) -> None:
    """The leaderboard agrees with the recorded results (games, places, scores, deals)."""
    results, board = out["results"], out["board"]
    games, score, wins, deals = Counter(), Counter(), Counter(), Counter()
    for r in results:
        firsts = {t for t, p in zip(r["teams"], r["placements"], strict=True) if p == 1}
        for i, b in enumerate(r["bots"]):
            games[b] += 1
            score[b] += r["scores"][i]
            wins[b] += r["placements"][i] == 1 and len(firsts) == 1
            deals[b] += r["deals_won"][i]
    entries = board["entries"]
    assert sorted(e["bot_id"] for e in entries) == sorted(out["ids"])
    assert [e["rank"] for e in entries] == list(range(1, len(entries) + 1))
    assert [e["ordinal"] for e in entries] == sorted((e["ordinal"] for e in entries), reverse=True)
    for e in entries:
        b = e["bot_id"]
        assert e["games"] == games[b] and e["wins"] == wins[b] and e["deals_won"] == deals[b]
        assert e["score"] == pytest.approx(score[b]) and e["wins"] + e["losses"] + e["draws"] == e["games"]
    assert sum(sum(r["scores"]) for r in results) == pytest.approx(len(results) * (2 if seats == 4 else 1.5))


def check_relabelled(out: dict[str, Any], fixed: str = "") -> None:
    """Every leg of a set dealt the leg-0 deck with consistently relabelled suits (ranks kept)."""
    by_set: dict[int, dict[int, str]] = {}
    for r in out["results"]:
        by_set.setdefault(r["pair"], {})[r["leg"]] = r["match_id"]
    for legs in by_set.values():
        first = out["records"][legs[0]]
        d0 = first["deals"][0]["deck_order"]
        for leg, mid in legs.items():
            rec = out["records"][mid]
            assert rec["seed"] == first["seed"]
            d = rec["deals"][0]["deck_order"]
            assert [c[:-1] for c in d] == [c[:-1] for c in d0]
            mapping = dict(zip((c[-1] for c in d0), (c[-1] for c in d), strict=True))
            assert len(set(mapping.values())) == 4  # a relabelling of the four suits
            assert (mapping == {s: s for s in "CSHD"}) == (leg == 0)
            if fixed:
                assert mapping[fixed] == fixed


async def test_four_seat_team_ladder_end_to_end_with_bundled_bots(rt: Runtime) -> None:
    out = await play(rt, "snapszer-hu-4p", ["greedy", "random", "greedy", "random"], rounds=1,
                     duplicate_deals=True, deals_per_game=1, concurrency=8, seed=17)
    lad, results = out["ladder"], out["results"]
    assert lad["status"] == "LADDER_STATUS_FINISHED" and lad["matches_played"] == 24 and lad["num_players"] == 4
    assert sorted(tuple(r["bots"]) for r in results) == sorted(itertools.permutations(out["ids"]))
    for r in results:
        p = r["placements"]
        assert r["teams"] == [0, 1, 0, 1] and p[0] == p[2] and p[1] == p[3]  # partners share the place
        assert r["scores"] == placement_scores(p, [0, 1, 0, 1]) and r["deals"] == 1
        assert int(r["winner"]) == (-1 if p[0] == p[1] else 0 if p[0] == 1 else 1)
        assert out["records"][r["match_id"]]["match_result"]["placements"] == p
    check_board(out, 4)
    check_relabelled(out, fixed="H")
    pairs = out["board"]["pairs"]
    assert len(pairs) == 6 and all(p["games"] == 16 and p["deal_pairs"] == 1 for p in pairs)


async def test_three_seat_ladder_end_to_end_with_bundled_bots(rt: Runtime) -> None:
    out = await play(rt, "stockschnapsen", ["greedy", "random", "random"], rounds=2, duplicate_deals=True,
                     deals_per_game=2, concurrency=6, seed=23)
    lad, results = out["ladder"], out["results"]
    assert lad["status"] == "LADDER_STATUS_FINISHED" and lad["matches_played"] == 12 and lad["num_players"] == 3
    assert sorted(r["pair"] for r in results) == [0] * 6 + [1] * 6
    for r in results:
        assert r["teams"] == [0, 1, 2] and r["scores"] == placement_scores(r["placements"], [0, 1, 2])
        assert r["deals"] == 2 and sum(r["deals_won"]) + sum(r["deals_lost"]) <= 4  # two play, one watches
    check_board(out, 3)
    check_relabelled(out)
    pooled = out["pooled"]
    assert lad["ladder_id"] in pooled["ladder_ids"] and pooled["pool"].startswith("stockschnapsen|")
    assert {e["bot_id"] for e in out["board"]["entries"]} <= {e["bot_id"] for e in pooled["entries"]}
    pairs = out["board"]["pairs"]
    assert len(pairs) == 3 and all(p["games"] == 12 and p["deal_pairs"] == 2 and p["pentanomial"] == []
                                   for p in pairs)

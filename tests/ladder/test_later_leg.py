"""Duplicate legs and bots with memory (issue 38): the legs of a set are spread apart in a random
order and never run at once, and the leaderboard measures each bot's later-leg advantage, flagging
a bot that plays better once it has seen a set's deal. Real Valkey for the ladder runs; the bots
play in this process through the match service with their bot tokens."""

from __future__ import annotations

import json
import random
from collections.abc import Awaitable, Callable
from typing import Any

from bummerl.bots.base import InfoSet, checked_action
from bummerl.bots.greedy import GreedyBot
from bummerl.ladder.driver import LadderDriver
from bummerl.ladder.formats import RoundRobin, SprtFormat, plan
from bummerl.ladder.later_leg import LaterLeg, later_leg_view
from bummerl.ladder.service import LadderService, LadderSpec
from bummerl.store.keys import ladder_key

from .test_ladder_service import register

Chooser = Callable[[dict[str, Any], str, dict[str, Any]], int]
"""(game spec, bot id, information set) -> action id."""


def test_plan_spreads_the_legs_of_a_set_in_an_unpredictable_order() -> None:
    games = plan("l", SprtFormat(), ["a", "b"], 2, 200, True, random.Random(7))
    assert [g["game"] for g in games] == list(range(400))
    first_leg = {}
    gaps = []
    for g in games:
        if g["pair"] in first_leg:
            gaps.append(g["game"] - first_leg[g["pair"]])
        else:
            first_leg[g["pair"]] = g["game"]
    assert len(gaps) == 200 and sum(1 for d in gaps if d == 1) < 60  # legs in a row: not the rule any more
    assert max(gaps) > 5
    later_first = sum(1 for g in games if g["leg"] == 1 and g["game"] < next(
        h["game"] for h in games if h["pair"] == g["pair"] and h["leg"] == 0))
    assert 70 < later_first < 130  # which leg comes first is a coin flip
    again = plan("l", SprtFormat(), ["a", "b"], 2, 200, True, random.Random(7))
    assert again == games  # deterministic from the ladder's seed
    plain = plan("l", RoundRobin(), ["a", "b", "c"], 2, 2, False, random.Random(7))
    assert [g["pair"] for g in plain] == list(range(6))  # nothing to spread without duplicate deals


def test_later_leg_view_and_its_interval() -> None:
    assert later_leg_view([])["sets"] == 0 and not later_leg_view([1.0])["flagged"]
    honest = later_leg_view([1, -1] * 10)
    assert honest["mean"] == 0 and honest["ci95_low"] < 0 < honest["ci95_high"] and not honest["flagged"]
    cheat = later_leg_view([1, 0, 1, 1, 0.5] * 4)
    assert cheat["ci95_low"] > 0 and cheat["flagged"]
    assert not later_leg_view([1, 0, 1, 1, 0.5])["flagged"]  # too few sets to flag
    folded = LaterLeg()
    for leg, (a_score, order) in enumerate([(1.0, ["a", "b"]), (0.0, ["b", "a"])]):
        folded.add({"pair": 0, "leg": leg, "bots": order, "scores": [a_score, 1 - a_score] if order[0] == "a"
                    else [1 - a_score, a_score]})
    assert folded.view("a")["mean"] == -1.0 and folded.view("b")["mean"] == 1.0  # a scored 1 first, then 0


async def play_ladder(ladders: LadderService, bots: list[dict[str, str]], ladder_id: str,
                      choose: Chooser, after_drive: Callable[[], Awaitable[None]] | None = None) -> list[list[str]]:
    """Drive the ladder (awaiting ``after_drive`` after each pass), play its running games with
    ``choose`` and return, per pass, the sets (``pair``) of the games running at once."""
    token_of = {b["bot_id"]: b["bot_token"] for b in bots}
    svc, driver, passes = ladders.matches, LadderDriver(ladders), []
    for _ in range(500):
        await driver.run_once()
        if after_drive:
            await after_drive()
        if (await ladders.ladder(ladder_id))["status"] != "running":
            return passes
        running = [json.loads(g) for g in (await ladders.redis.hgetall(ladder_key(ladder_id, "running"))).values()]
        passes.append([str(g["pair"]) for g in running])
        for game in running:
            mid = game["match_id"]
            while game.get("assigned") and not await ladders.store.is_over(mid):
                info = await svc.information_set(mid, 0, token_of[game["bots"][0]])
                seat = info["deal"]["to_act"]
                bot = game["bots"][seat]
                info = await svc.information_set(mid, seat, token_of[bot])
                await svc.submit_action(mid, seat, token_of[bot], info["version"], choose(game, bot, info))
    raise AssertionError("the ladder did not finish")


async def test_a_bot_that_plays_better_once_it_saw_the_deal_is_flagged_and_honest_ones_are_not(
        ladders: LadderService) -> None:
    """The cheater stands for a bot with memory: in the later leg of a set it plays greedy (as if
    it knew the deal), in the earlier one random; the honest bot plays random in both."""
    bots = await register(ladders, 2)
    cheater, honest = bots[0]["bot_id"], bots[1]["bot_id"]
    lad = await ladders.create_ladder(LadderSpec("m", "schnapsen-at", [cheater, honest], rounds=24,
                                                 deals_per_game=1, concurrency=4, seed=11), admin_token="adm")
    lid = lad["ladder_id"]
    seen: set[Any] = set()  # the sets of which the cheater has finished a leg: its memory
    rng, greedy = random.Random(3), GreedyBot(seed=1)

    def choose(game: dict[str, Any], bot: str, info: dict[str, Any]) -> int:
        if bot == cheater and game["pair"] in seen:
            view = InfoSet(info)
            return checked_action(view, greedy.choose(view))
        return int(rng.choice(info["legal_actions"])["id"])

    async def remember() -> None:
        seen.update(r["pair"] for r in await ladders.results(lid))

    passes = await play_ladder(ladders, bots, lid, choose, remember)
    overlapping = sum(len(p) - len(set(p)) for p in passes)
    assert overlapping == 0  # never two legs of one set at once, at concurrency 4
    board = {e["bot_id"]: e["later_leg"] for e in (await ladders.leaderboard(lid))["entries"]}
    assert board[cheater]["sets"] == board[honest]["sets"] == 24
    assert board[cheater]["flagged"] and board[cheater]["ci95_low"] > 0, board
    assert not board[honest]["flagged"] and board[honest]["mean"] < 0, board


async def test_honest_bots_are_not_flagged(ladders: LadderService) -> None:
    bots = await register(ladders, 3)
    lad = await ladders.create_ladder(LadderSpec("h", "schnapsen-at", [b["bot_id"] for b in bots], rounds=8,
                                                 deals_per_game=1, concurrency=3, seed=5), admin_token="adm")
    rng = random.Random(9)
    passes = await play_ladder(ladders, bots, lad["ladder_id"],
                               lambda game, bot, info: int(rng.choice(info["legal_actions"])["id"]))
    assert all(len(p) == len(set(p)) for p in passes) and max(map(len, passes)) == 3  # three sets at once
    entries = (await ladders.leaderboard(lad["ladder_id"]))["entries"]
    assert all(e["later_leg"]["sets"] == 16 and not e["later_leg"]["flagged"] for e in entries), entries

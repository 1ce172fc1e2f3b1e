"""Bot versions (issue 37): a bot publishes a new version and keeps its identity; each ladder game
records the version each seat's bot had when it started, and each version gets its own rating.
Real Valkey; the bots play random moves in this process with their bot tokens."""

from __future__ import annotations

import json
import random

import pytest

from bummerl.core.errors import FailedPreconditionError, InvalidArgumentError, PermissionDeniedError
from bummerl.ladder.driver import LadderDriver
from bummerl.ladder.service import LadderService, LadderSpec
from bummerl.store.keys import ladder_key

from .test_ladder_service import register


async def play_running(ladders: LadderService, tokens: dict[str, str], lid: str, rng: random.Random) -> int:
    """Play every started game of the ladder to its end; the number played."""
    played = 0
    for raw in (await ladders.redis.hgetall(ladder_key(lid, "running"))).values():
        game = json.loads(raw)
        mid = game["match_id"]
        while game.get("assigned") and not await ladders.store.is_over(mid):
            info = await ladders.matches.information_set(mid, 0, tokens[game["bots"][0]])
            seat = info["deal"]["to_act"]
            info = await ladders.matches.information_set(mid, seat, tokens[game["bots"][seat]])
            await ladders.matches.submit_action(mid, seat, tokens[game["bots"][seat]], info["version"],
                                                rng.choice(info["legal_actions"])["id"])
        played += 1
    return played


async def test_each_version_is_recorded_and_rated_apart(ladders: LadderService) -> None:
    bots = await register(ladders, 2)
    tokens = {b["bot_id"]: b["bot_token"] for b in bots}
    a, b = bots[0]["bot_id"], bots[1]["bot_id"]
    row = next(x for x in await ladders.list_bots() if x["bot_id"] == a)
    assert row["version"] == "1" and [v["version"] for v in row["versions"]] == ["1"]
    lad = await ladders.create_ladder(LadderSpec("v", "schnapsen-at", [a, b], rounds=4, deals_per_game=1,
                                                 concurrency=1, seed=3), admin_token="adm")
    lid, rng, driver = lad["ladder_id"], random.Random(2), LadderDriver(ladders)
    for _ in range(3):  # three games under version 1
        await driver.run_once()
        await play_running(ladders, tokens, lid, rng)
    got = await ladders.publish_version(a, "2.0-beta", "a new search", bots[0]["bot_token"])  # its own token
    assert got["version"] == "2.0-beta" and [v["version"] for v in got["versions"]] == ["1", "2.0-beta"]
    while (await ladders.ladder(lid))["status"] == "running":
        await driver.run_once()
        await play_running(ladders, tokens, lid, rng)
    results = await ladders.results(lid)
    seen = [r["versions"][r["bots"].index(a)] for r in results]
    assert seen[:3] == ["1"] * 3 and set(seen[4:]) == {"2.0-beta"}  # a game started after publishing: the new one
    entry = next(e for e in (await ladders.leaderboard(lid))["entries"] if e["bot_id"] == a)
    assert entry["version"] == "2.0-beta"
    assert {v["version"]: v["games"] for v in entry["versions"]} == {"1": seen.count("1"), "2.0-beta": seen.count("2.0-beta")}
    assert all(v["sigma"] < 25 / 3 for v in entry["versions"])  # each rated over its own games


async def test_publishing_a_version_checks_the_token_and_the_label(ladders: LadderService) -> None:
    bots = await register(ladders, 2)
    a = bots[0]["bot_id"]
    with pytest.raises(PermissionDeniedError):  # another bot's token
        await ladders.publish_version(a, "2", token=bots[1]["bot_token"])
    assert (await ladders.publish_version(a, "2", token="adm"))["version"] == "2"  # the admin may
    with pytest.raises(FailedPreconditionError, match="already"):
        await ladders.publish_version(a, "1", token=bots[0]["bot_token"])
    with pytest.raises(InvalidArgumentError, match="version must be"):
        await ladders.publish_version(a, "no spaces", token=bots[0]["bot_token"])

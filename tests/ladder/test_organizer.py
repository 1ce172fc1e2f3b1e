"""The organizer's calls (issue 21): bots listed with their presence and client, revoked, given a
new token, deleted (results kept); ladders paused and resumed; games listed by state without seeds."""

from __future__ import annotations

import asyncio
import json

import pytest

from bummerl.core.errors import (
    FailedPreconditionError,
    InvalidArgumentError,
    NotFoundError,
    PermissionDeniedError,
    UnauthenticatedError,
)
from bummerl.ladder.driver import LadderDriver
from bummerl.ladder.service import LadderService, LadderSpec

from .test_ladder_service import register
from .test_ladder_trust import finish, running_games


async def test_bots_are_listed_revoked_rotated_and_deleted(ladders: LadderService) -> None:
    a, b = await register(ladders, 2)
    rows = {r["bot_id"]: r for r in await ladders.list_bots()}
    assert not rows[a["bot_id"]]["connected"] and "bot_token" not in json.dumps(rows) and "token_hash" not in json.dumps(rows)

    async def connect() -> None:
        async for _ in ladders.assignments(a["bot_id"], a["bot_token"], client="mybot/1.2 (engine x)"):
            pass

    task = asyncio.create_task(connect())
    await asyncio.sleep(0.1)
    row = {r["bot_id"]: r for r in await ladders.list_bots()}[a["bot_id"]]
    assert row["connected"] and row["client"] == "mybot/1.2 (engine x)" and row["connected_since_ms"] > 0
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)

    with pytest.raises(PermissionDeniedError):
        await ladders.revoke_bot(a["bot_id"])
    assert (await ladders.revoke_bot(a["bot_id"], admin_token="adm"))["revoked"]
    with pytest.raises(UnauthenticatedError, match="revoked"):
        await ladders.authenticate_bot(a["bot_id"], a["bot_token"])
    new = await ladders.rotate_bot_token(a["bot_id"], admin_token="adm")
    assert new["bot_token"] != a["bot_token"]
    await ladders.authenticate_bot(a["bot_id"], new["bot_token"])
    with pytest.raises(UnauthenticatedError):
        await ladders.authenticate_bot(a["bot_id"], a["bot_token"])
    gone = await ladders.delete_bot(b["bot_id"], admin_token="adm")
    assert gone["deleted"]
    with pytest.raises(UnauthenticatedError):
        await ladders.authenticate_bot(b["bot_id"], b["bot_token"])
    again = await ladders.register_bot(b["name"], admin_token="adm")  # the name is free again
    assert again["bot_id"] != b["bot_id"]


async def test_a_new_ladder_refuses_deleted_and_revoked_bots_and_bad_names(ladders: LadderService) -> None:
    """A walkthrough created a ladder with a deleted bot: it could never connect and lost every
    game it was planned in. Revoked bots ("new ladders refuse it") were taken too."""
    a, b, c = await register(ladders, 3)

    async def create(bots: list[str], name: str = "") -> None:
        await ladders.create_ladder(LadderSpec(name, "schnapsen-at", bots, deals_per_game=1), admin_token="adm")

    await ladders.delete_bot(c["bot_id"], admin_token="adm")
    with pytest.raises(NotFoundError, match=f"bot '{c['name']}' \\({c['bot_id']}\\) was deleted"):
        await create([a["bot_id"], c["bot_id"]])
    await ladders.revoke_bot(b["bot_id"], admin_token="adm")
    with pytest.raises(FailedPreconditionError, match="was revoked: rotate its token"):
        await create([a["bot_id"], b["bot_id"]])
    await ladders.rotate_bot_token(b["bot_id"], admin_token="adm")
    for bad in ("x" * 101, "tab\there", "bell\u0007"):
        with pytest.raises(InvalidArgumentError, match="name must be at most 100 printable characters"):
            await create([a["bot_id"], b["bot_id"]], bad)
    await create([a["bot_id"], b["bot_id"]], "Ladder of the week: a vs b")  # a rotated bot plays again
    with pytest.raises(InvalidArgumentError, match="sprt: settings for format sprt only, this ladder's format is "
                                                   "round_robin"):
        await ladders.create_ladder(LadderSpec("", "schnapsen-at", [a["bot_id"], b["bot_id"]], sprt={"elo1": 5}),
                                    admin_token="adm")
    with pytest.raises(InvalidArgumentError, match="elo0 and elo1 must be in -1000..1000, got -1e"):
        await ladders.create_ladder(LadderSpec("", "schnapsen-at", [a["bot_id"], b["bot_id"]], format="sprt",
                                               sprt={"elo0": -1e308, "elo1": 1e308}), admin_token="adm")
    with pytest.raises(InvalidArgumentError, match="description contains control"):
        await ladders.register_bot("quiet", "beep\u0007", admin_token="adm")
    with pytest.raises(InvalidArgumentError, match="must not start with 'house:'"):
        await ladders.register_bot("house:greedy", admin_token="adm")


async def test_valid_tokens_that_do_not_act_here_are_permission_denied(ladders: LadderService) -> None:
    """Another bot's token on a bot's assignments, the admin token on a seat: both valid tokens,
    so PERMISSION_DENIED (as another seat's token is), not "missing or wrong token"."""
    a, b = await register(ladders, 2)
    with pytest.raises(PermissionDeniedError, match=f"this is the token of bot '{b['bot_id']}', not of bot "):
        await ladders.authenticate_bot(a["bot_id"], b["bot_token"])
    for forged in (b["bot_id"] + ".forged", "nodot", ""):
        with pytest.raises(UnauthenticatedError):
            await ladders.authenticate_bot(a["bot_id"], forged)
    svc = ladders.matches
    c = await svc.create_match("schnapsen-at", admin_token="adm")
    with pytest.raises(PermissionDeniedError, match="the admin token does not act for a seat"):
        await svc.information_set(c.match_id, 0, "adm")
    with pytest.raises(PermissionDeniedError, match="another seat"):
        await svc.information_set(c.match_id, 0, c.tokens[1])
    with pytest.raises(UnauthenticatedError):
        await svc.information_set(c.match_id, 0, "adm-not")


async def test_a_ladder_pauses_resumes_and_lists_its_games(ladders: LadderService) -> None:
    bots = await register(ladders, 2)
    tokens = {x["bot_id"]: x["bot_token"] for x in bots}
    lad = await ladders.create_ladder(LadderSpec("g", "schnapsen-at", list(tokens), rounds=2, deals_per_game=1,
                                                 concurrency=2, seed=5), admin_token="adm")
    lid = lad["ladder_id"]
    games = await ladders.games(lid)
    assert [g["state"] for g in games] == ["planned"] * 4 and all(g["match_id"] == "" for g in games)
    assert "seed" not in json.dumps(games) and "suit_perm" not in json.dumps(games)
    assert (await ladders.pause_ladder(lid, admin_token="adm"))["status"] == "paused"
    await LadderDriver(ladders).run_once()
    assert await running_games(ladders, lid) == []  # paused: nothing starts
    with pytest.raises(FailedPreconditionError):
        await ladders.pause_ladder(lid, admin_token="adm")
    assert (await ladders.resume_ladder(lid, admin_token="adm"))["status"] == "running"
    await LadderDriver(ladders).run_once()
    running = await ladders.games(lid, "running")
    assert len(running) == 2 and all(g["match_id"] for g in running)
    for g in await running_games(ladders, lid):
        await finish(ladders, g, tokens)
    await LadderDriver(ladders).run_once()
    states = [g["state"] for g in await ladders.games(lid)]
    assert states.count("finished") == 2 and states.count("running") + states.count("planned") == 2


async def test_per_bot_statistics_in_the_leaderboard_the_bot_list_and_metrics(ladders: LadderService) -> None:
    from bummerl import metrics

    bots = await register(ladders, 2)
    tokens = {x["bot_id"]: x["bot_token"] for x in bots}
    a = bots[0]["bot_id"]
    lad = await ladders.create_ladder(LadderSpec("s", "schnapsen-at", list(tokens), rounds=2, deals_per_game=1,
                                                 concurrency=2, seed=3), admin_token="adm")  # two sets: two games at once
    lid = lad["ladder_id"]
    before = metrics.BOT_FAULTS.labels("all", "illegal_actions")._value.get()
    await LadderDriver(ladders).run_once()
    first, second = sorted(await running_games(ladders, lid), key=lambda g: g["game"])
    await ladders.matches.resign(first["match_id"], first["bots"].index(a), tokens[a], "illegal")
    await finish(ladders, second, tokens)
    await LadderDriver(ladders).run_once()
    entry = next(e for e in (await ladders.leaderboard(lid))["entries"] if e["bot_id"] == a)
    st = entry["stats"]
    assert st["games"] == 2 and st["illegal_actions"] == 1 and st["timeouts"] == 0 and st["losses"] >= 1
    assert st["actions"] > 0 and st["think_ms_p50"] >= 1 and st["think_ms_p99"] >= st["think_ms_p50"]
    assert sum(st["think_hist"]) == st["actions"] and st["time_left_ms"] == -1  # no clock: no time left
    listed = next(b for b in await ladders.list_bots() if b["bot_id"] == a)
    assert listed["stats"]["games"] == 2 and listed["stats"]["illegal_actions"] == 1
    assert metrics.BOT_FAULTS.labels("all", "illegal_actions")._value.get() == before + 1  # no bot name label


def test_create_ladder_defaults_come_from_ladder_spec() -> None:
    """CreateLadder takes its defaults from LadderSpec (and Sprt), not restated in the servicer."""
    from bummerl.ladder.stats import Sprt

    spec = LadderSpec.from_request({"name": "", "variant": "santase", "bot_ids": ["a", "b"], "format": "",
                                    "rounds": 0, "concurrency": 0, "timeout_policy": "", "duplicate_deals": True,
                                    "sprt": {"elo0": 0.0, "elo1": 25.0, "alpha": 0.0, "beta": 0.0}})
    default = LadderSpec("", "santase", ["a", "b"])
    assert (spec.format, spec.rounds, spec.concurrency, spec.timeout_policy) == \
        (default.format, default.rounds, default.concurrency, default.timeout_policy)
    assert Sprt(**(spec.sprt or {})) == Sprt(elo1=25.0)

"""Challenges between bots (issue 37) over gRPC and REST: a bot challenges another, whose runner
answers by its policy (accept, or decline with a reason); an accepted challenge is played as a
ladder of the two; a house bot accepts at once; a challenge expires unanswered; a bot is capped
per hour. Real server, connected bots in this process."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest
import redis.asyncio as aioredis
from test_ladder_api import call  # tests/api is on the path (rootdir conftest)

from bummerl.app import Runtime
from bummerl.bots import make_bot
from bummerl.core import MatchService
from bummerl.core.errors import FailedPreconditionError, InvalidArgumentError, ResourceExhaustedError
from bummerl.ladder.service import LadderService
from bummerl.store import MatchStore
from bummerl.store.keys import KeyLayout
from bummerl_client import AsyncClient, BummerlError
from bummerl_client.botrunner import run_bot
from bummerl_client.challenges import ChallengePolicy

ADMIN = "ch-admin"
SERVER_SETTINGS = {"admin_token": ADMIN}


async def register(c: AsyncClient, n: int) -> list[dict[str, Any]]:
    tag = uuid.uuid4().hex[:6]
    return [dict(await c.register_bot(f"ch{i}-{tag}", admin_token=ADMIN)) for i in range(n)]


async def finished(c: AsyncClient, ladder_id: str, timeout: float = 60) -> dict[str, Any]:
    async with asyncio.timeout(timeout):
        while (lad := await c.ladder(ladder_id))["status"] == "LADDER_STATUS_RUNNING":
            await asyncio.sleep(0.1)
    return dict(lad)


async def test_a_bot_challenges_another_which_accepts_and_they_play_it(rt: Runtime) -> None:
    async with AsyncClient(rt.target) as c:
        a, b = await register(c, 2)
        stop = asyncio.Event()
        said: list[str] = []
        runners = [asyncio.create_task(run_bot(c, x["bot_token"], lambda: make_bot("greedy", 1), stop=stop,
                                               on_status=said.append)) for x in (a, b)]
        try:
            await asyncio.sleep(0.3)  # both connected
            ch = await c.challenge(a["bot_token"], b["name"], "schnapsen-at", pairs=2, deals_per_game=1,
                                   time_control={"base_ms": 20_000, "increment_ms": 100})
            assert ch["state"] == "pending" and ch["challenger"] == a["bot_id"] and ch["challenged"] == b["bot_id"]
            async with asyncio.timeout(10):
                while (ch := await c.get_challenge(ch["challenge_id"]))["state"] == "pending":
                    await asyncio.sleep(0.05)
            assert ch["state"] == "accepted" and ch["ladder_id"]
            lad = await finished(c, ch["ladder_id"])
            assert lad["status"] == "LADDER_STATUS_FINISHED" and lad["matches_played"] == 4
            assert sorted(lad["bot_ids"]) == sorted([a["bot_id"], b["bot_id"]])
            assert any("accepted: ladder" in line for line in said)
            mine = await c.challenges(a["bot_id"])
            assert [x["challenge_id"] for x in mine][:1] == [ch["challenge_id"]]
            board = await c.leaderboard(ch["ladder_id"], pooled=True)
            assert board["pool"].endswith("|challenge")  # challenges are a rating pool of their own
        finally:
            stop.set()
            await asyncio.gather(*runners, return_exceptions=True)


async def test_a_policy_declines_with_its_reason_and_a_house_bot_accepts_at_once(rt: Runtime) -> None:
    async with AsyncClient(rt.target) as c:
        a, b = await register(c, 2)
        stop = asyncio.Event()
        runners = [asyncio.create_task(run_bot(c, a["bot_token"], lambda: make_bot("greedy", 1), stop=stop)),
                   asyncio.create_task(run_bot(c, b["bot_token"], lambda: make_bot("greedy", 1), stop=stop,
                                               challenge_policy=ChallengePolicy(variants=["santase"])))]
        try:
            await asyncio.sleep(0.3)
            ch = await c.challenge(a["bot_token"], b["bot_id"], "schnapsen-at")
            async with asyncio.timeout(10):
                while (ch := await c.get_challenge(ch["challenge_id"]))["state"] == "pending":
                    await asyncio.sleep(0.05)
            assert ch["state"] == "declined" and ch["decline_reason"] == "variant" and not ch["ladder_id"]
            with pytest.raises(BummerlError) as e:  # answered already
                await c.answer_challenge(b["bot_token"], ch["challenge_id"], True)
            assert e.value.code.name == "FAILED_PRECONDITION"
            house = await c.challenge(a["bot_token"], "house:greedy", "santase", pairs=1, deals_per_game=1,
                                      rated=False)
            assert house["state"] == "accepted" and house["challenged_name"] == "house:greedy" and not house["rated"]
            lad = await finished(c, house["ladder_id"])
            assert lad["matches_played"] == 2 and "house:greedy" in lad["bot_ids"]
            results = await c.ladder_matches(house["ladder_id"])
            assert all(r["reason"] != "timeout" for r in results)  # the house seat was played
            with pytest.raises(BummerlError) as e:
                await c.challenge(a["bot_token"], "house:nosuchbot")
            assert e.value.code.name == "NOT_FOUND"
            with pytest.raises(BummerlError) as e:
                await c.challenge(a["bot_token"], b["bot_id"], "bauernschnapsen")
            assert e.value.code.name == "INVALID_ARGUMENT" and "head-to-head" in e.value.details
        finally:
            stop.set()
            await asyncio.gather(*runners, return_exceptions=True)


async def test_a_house_seat_is_played_when_the_process_that_created_its_game_died_before_leasing_it(
        rt: Runtime, monkeypatch: pytest.MonkeyPatch) -> None:
    """The claimer of a ladder game against a house bot creates the match, then dies before it
    leases the house seat: the process that takes the game over (after the claim's lease) finds the
    match made and still leases and plays the house seat, with the seat's token derived from the
    game (HouseBots.seat_token). Before, the seat tokens were lost with the claimer and the house
    seat lost on time."""
    import bummerl.ladder.driver as driver_mod

    assert rt.house is not None
    monkeypatch.setattr(driver_mod, "CLAIM_LEASE_MS", 300)
    real_start = rt.house.start
    died: list[str] = []

    async def dies_once(match_id: str, seats: dict[int, str], tokens: Any) -> None:
        if not died:
            died.append(match_id)
            raise RuntimeError("the process died after creating the match")  # nothing leased
        await real_start(match_id, seats, tokens)

    monkeypatch.setattr(rt.house, "start", dies_once)
    async with AsyncClient(rt.target) as c:
        (a,) = await register(c, 1)
        stop = asyncio.Event()
        runner = asyncio.create_task(run_bot(c, a["bot_token"], lambda: make_bot("greedy", 1), stop=stop))
        try:
            await asyncio.sleep(0.3)
            ch = await c.challenge(a["bot_token"], "house:greedy", "santase", pairs=1, deals_per_game=1,
                                   rated=False)
            lad = await finished(c, ch["ladder_id"], timeout=40)
            results = await c.ladder_matches(ch["ladder_id"])
        finally:
            stop.set()
            await asyncio.gather(runner, return_exceptions=True)
    assert died and lad["matches_played"] == 2
    assert died[0] in {r["match_id"] for r in results}
    assert all(r["reason"] != "timeout" for r in results), results  # the house seat was played


async def test_challenges_over_rest(rt: Runtime) -> None:
    async with AsyncClient(rt.target) as c:
        a, b = await register(c, 2)
    status, ch = await asyncio.to_thread(call, rt, "POST", "/v1/challenges",
                                         {"challenged": b["name"], "variant": "santase", "pairs": 3}, a["bot_token"])
    assert status == 200 and ch["state"] == "pending" and ch["pairs"] == 3
    status, err = await asyncio.to_thread(call, rt, "POST", f"/v1/challenges/{ch['challenge_id']}/answer",
                                          {"accept": False, "reason": "too_slow"}, a["bot_token"])
    assert status == 403  # only the challenged bot answers
    status, err = await asyncio.to_thread(call, rt, "POST", f"/v1/challenges/{ch['challenge_id']}/answer",
                                          {"accept": False, "reason": "because"}, b["bot_token"])
    assert status == 400 and "reason must be one of" in err["message"]
    status, got = await asyncio.to_thread(call, rt, "POST", f"/v1/challenges/{ch['challenge_id']}/answer",
                                          {"accept": False, "reason": "too_slow"}, b["bot_token"])
    assert status == 200 and got["state"] == "declined" and got["decline_reason"] == "too_slow"
    status, listed = await asyncio.to_thread(call, rt, "GET", f"/v1/challenges?bot_id={b['bot_id']}", None, None)
    assert status == 200 and listed["challenges"][0]["challenge_id"] == ch["challenge_id"]


class Clock:
    def __init__(self) -> None:
        self.now = 1_700_000_000_000

    def __call__(self) -> int:
        return self.now


@pytest.fixture
async def timed(redis_client: aioredis.Redis, test_layout: KeyLayout) -> AsyncIterator[tuple[LadderService, Clock]]:
    clock = Clock()
    store = MatchStore(redis_client, layout=KeyLayout(test_layout.shards, tag=f"t{uuid.uuid4().hex}"))
    svc = LadderService(MatchService(store, admin_token="adm", now_ms=clock), challenges_per_hour=2)
    try:
        yield svc, clock
    finally:
        await svc.aclose()
        await store.aclose()


async def test_an_unanswered_challenge_expires_and_each_bot_is_capped_per_hour(
        timed: tuple[LadderService, Clock]) -> None:
    svc, clock = timed
    tag = uuid.uuid4().hex[:6]
    a, b = [await svc.register_bot(f"cap{i}-{tag}", admin_token="adm") for i in range(2)]
    ch = await svc.create_challenge(a["bot_token"], {"challenged": b["bot_id"], "variant": "schnapsen-at"})
    clock.now += 30_001
    assert (await svc.challenge(ch["challenge_id"]))["state"] == "expired"
    with pytest.raises(FailedPreconditionError, match="expired"):
        await svc.answer_challenge(b["bot_token"], ch["challenge_id"], True)
    await svc.create_challenge(a["bot_token"], {"challenged": b["bot_id"]})
    with pytest.raises(ResourceExhaustedError) as e:  # the third within the hour
        await svc.create_challenge(a["bot_token"], {"challenged": b["bot_id"]})
    assert 0 < e.value.retry_after_ms <= 3_600_000
    with pytest.raises(InvalidArgumentError, match="itself"):
        await svc.create_challenge(b["bot_token"], {"challenged": b["name"]})
    clock.now += 3_600_000
    assert (await svc.create_challenge(a["bot_token"], {"challenged": b["bot_id"]}))["state"] == "pending"

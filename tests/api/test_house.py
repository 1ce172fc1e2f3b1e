"""House bots: ``house:<bot>`` seats of CreateMatch are played by the server itself (bundled bots,
an allow-list and a thinking budget from the settings, decisions off the event loop)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import grpc
import pytest

from bummerl.app import Runtime
from bummerl.bots import make_bot
from bummerl.config import Settings
from bummerl.core.errors import InvalidArgumentError, ResourceExhaustedError
from bummerl.core.house import HouseBots, HouseSettings
from bummerl.v1 import game_pb2, game_pb2_grpc
from bummerl_client import AsyncClient, play_seat


def _create(variant: str, names: list[str], **options: str) -> game_pb2.CreateMatchRequest:
    return game_pb2.CreateMatchRequest(variant=variant, seats=[game_pb2.SeatSpec(name=n) for n in names],
                                       options=options)


async def test_a_remote_seat_plays_a_house_greedy_to_the_end(rt: Runtime) -> None:
    """The creator gets no token for the house seat; the server plays it (in its decision process)
    until the match ends; the record shows both seats acting."""
    async with AsyncClient(rt.target) as client:
        created = await client.stub.CreateMatch(_create("schnapsen-at", ["me", "house:greedy"], match_target="2"))
        tokens = [t.token for t in created.seat_tokens]
        assert tokens[1] == "" and len(tokens[0]) == 64
        assert created.summary.seats[1].name == "house:greedy"
        await asyncio.wait_for(play_seat(client, created.match_id, 0, tokens[0], make_bot("random", seed=1)), 60)
        rec = await client.match_record(created.match_id)
    assert rec["over"] and {int(a["seat"]) for a in rec["actions"] if int(a["action_id"]) >= 0} == {0, 1}


async def test_four_house_bots_play_bauernschnapsen_while_a_spectator_watches(rt: Runtime) -> None:
    """A 4-seat match played entirely by house bots ends by itself; a spectator follows it to the
    end and sees no hand."""
    async with grpc.aio.insecure_channel(rt.target) as ch:
        stub = game_pb2_grpc.GameServiceStub(ch)
        created = await stub.CreateMatch(_create("bauernschnapsen", ["house:random", "house:greedy"] * 2,
                                                 match_target="4"))
        assert all(t.token == "" for t in created.seat_tokens)
        last = None

        async def follow() -> None:
            nonlocal last
            async for u in stub.WatchMatch(game_pb2.WatchMatchRequest(match_id=created.match_id)):
                assert not u.public_view.deal.hand
                last = u

        await asyncio.wait_for(follow(), 60)
    assert last is not None and last.public_view.match.over and len(last.public_view.deal.hand_sizes) == 4


@pytest.fixture
async def rt_random_only(redis_url: str) -> AsyncIterator[Runtime]:
    settings = Settings.from_env({}, port=0, http_port=0, metrics_port=0, redis_url=redis_url, house_bots="random",
                                 house_workers=0)
    async with Runtime(settings, gateway_port=0) as runtime:
        yield runtime


async def test_only_offered_house_bots(rt_random_only: Runtime) -> None:
    async with grpc.aio.insecure_channel(rt_random_only.target) as ch:
        stub = game_pb2_grpc.GameServiceStub(ch)
        with pytest.raises(grpc.aio.AioRpcError) as ei:
            await stub.CreateMatch(_create("schnapsen-at", ["me", "house:greedy"]))
        assert ei.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert "offered: house:random" in (ei.value.details() or "")
        created = await stub.CreateMatch(_create("schnapsen-at", ["house:random", "house:random"], match_target="1"))
        for _ in range(200):
            rec = await stub.GetMatchRecord(game_pb2.GetMatchRecordRequest(match_id=created.match_id))
            if rec.over:
                break
            await asyncio.sleep(0.05)
        assert rec.over and rec.match_result.winner in (0, 1)


def test_plan_caps_the_strong_budget_and_the_seats() -> None:
    house = HouseBots(None, HouseSettings(budget_ms=100, max_seats=1))  # type: ignore[arg-type]
    assert house.plan(["a", "house:strong:budget_ms=5000,samples=4"]) == {1: "strong:budget_ms=100,samples=4"}
    assert house.plan(["house:strong"]) == {0: "strong:budget_ms=100"}
    assert house.plan(["house:strong:budget_ms=20"]) == {0: "strong:budget_ms=20"}
    with pytest.raises(InvalidArgumentError, match="unknown option 'depth'"):
        house.plan(["house:strong:depth=3"])
    with pytest.raises(InvalidArgumentError, match=r"^seat 0: bot 'strong': option budget_ms='abc' is not a valid number$"):
        house.plan(["house:strong:budget_ms=abc"])  # it said: could not convert string to float: 'abc'
    with pytest.raises(ResourceExhaustedError):
        house.plan(["house:random", "house:random"])


@pytest.fixture
async def rt_rate_limited(redis_url: str) -> AsyncIterator[Runtime]:
    settings = Settings.from_env({}, port=0, http_port=0, metrics_port=0, redis_url=redis_url, house_workers=0,
                                 rate_actions_per_s=3)
    async with Runtime(settings, gateway_port=0) as runtime:
        yield runtime


async def test_a_rate_limited_house_bot_waits_instead_of_resigning(rt_rate_limited: Runtime) -> None:
    """Under a per-seat action rate limit the house bots wait for the next window: the match
    ends by play (target reached), not by a resignation."""
    async with grpc.aio.insecure_channel(rt_rate_limited.target) as ch:
        stub = game_pb2_grpc.GameServiceStub(ch)
        created = await stub.CreateMatch(_create("schnapsen-at", ["house:random", "house:greedy"], match_target="1"))
        rec = None
        for _ in range(600):
            rec = await stub.GetMatchRecord(game_pb2.GetMatchRecordRequest(match_id=created.match_id))
            if rec.over:
                break
            await asyncio.sleep(0.05)
    assert rec is not None and rec.over and rec.match_result.reason == "target_reached"


async def test_a_house_seat_is_taken_over_when_its_process_stops(rt: Runtime) -> None:
    """A house seat survives its process (issue 20; "killing one loses nothing"): the seat's lease
    runs out, and a process's lease pass plays it on to the end of the match."""
    from bummerl.core import house as house_mod

    assert rt.house is not None
    async with AsyncClient(rt.target) as c:
        cm = await c.create_match("santase", seats=["me", "house:random"], seed=6)
        member = next(m.decode() for m in await rt.store.client.zrange(house_mod._LEASES, 0, -1)
                      if m.decode().startswith(cm.match_id))
        for t in list(rt.house._tasks):  # the process that played it stops (its tasks end, its lease stays)
            t.cancel()
        await asyncio.gather(*rt.house._tasks, return_exceptions=True)
        assert not rt.house._tasks
        await rt.store.client.zadd(house_mod._LEASES, {member: 0})  # ... and its lease runs out
        assert await rt.house.sweep() >= 1  # another pass (any process) takes it over
        final = await asyncio.wait_for(play_seat(c, cm.match_id, 0, cm.tokens[0], make_bot("greedy", 1)), 60)
    assert final["match"]["over"]
    for _ in range(50):  # the seat leaves the leases with its match
        if not any(m.decode().startswith(cm.match_id) for m in await rt.store.client.zrange(house_mod._LEASES, 0, -1)):
            break
        await asyncio.sleep(0.05)
    else:
        raise AssertionError("the finished match's house seat is still leased")

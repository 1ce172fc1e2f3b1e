"""Bounded resources (issue: production face): Redis connections, open streams per seat, retention
of finished matches, per-caller rate limits. A real server on port 0 and a real Valkey."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest
import redis.asyncio as aioredis

from bummerl.app import Runtime
from bummerl.config import Settings
from bummerl_client import AsyncClient, BummerlError


def settings(redis_url: str, **kw: Any) -> Settings:
    return Settings.from_env({}, port=0, http_port=0, metrics_port=0, redis_url=redis_url, **kw)


@pytest.fixture
async def small_pool(redis_url: str) -> AsyncIterator[Runtime]:
    async with Runtime(settings(redis_url, redis_max_connections=6)) as rt:
        yield rt


async def test_150_streams_share_one_reader_and_a_pool_of_six_connections(small_pool: Runtime,
                                                                          redis_client: aioredis.Redis) -> None:
    async with AsyncClient(small_pool.target) as c:
        matches = [await c.create_match("schnapsen-at", seed=i) for i in range(75)]
        got: dict[tuple[int, int], list[int]] = {}
        ready = asyncio.Event()
        opened = 0

        async def watch(i: int, seat: int) -> None:
            nonlocal opened
            m = matches[i]
            versions = got.setdefault((i, seat), [])
            async for upd in c.stream(m.match_id, seat, m.tokens[seat]):
                versions.append(int(upd["version"]))
                if len(versions) == 1:
                    opened += 1
                    if opened == 150:
                        ready.set()
                if len(versions) == 2:
                    return

        tasks = [asyncio.create_task(watch(i, s)) for i in range(75) for s in (0, 1)]
        await asyncio.wait_for(ready.wait(), 60)
        assert small_pool.hub is not None
        for _ in range(100):  # every stream is parked on the hub, none holds a connection
            if small_pool.hub.waiting == 150:
                break
            await asyncio.sleep(0.05)
        assert small_pool.hub.waiting == 150
        for m in matches:  # one action in every match wakes both of its streams
            info = await c.information_set(m.match_id, 0, m.tokens[0])
            seat = int(info["deal"]["to_act"])
            info = await c.information_set(m.match_id, seat, m.tokens[seat])
            await c.submit_action(m.match_id, seat, m.tokens[seat], int(info["version"]),
                                  info["legal_actions"][0]["id"])
        await asyncio.wait_for(asyncio.gather(*tasks), 60)
    assert all(v == [1, 2] for v in got.values()) and len(got) == 150


async def test_open_streams_per_seat_are_capped_without_shutting_others_out(redis_url: str) -> None:
    async with Runtime(settings(redis_url, max_streams_per_seat=3)) as rt, AsyncClient(rt.target) as c:
        m = await c.create_match("schnapsen-at")
        firsts: list[asyncio.Queue[int]] = []

        async def hold(seat: int, q: asyncio.Queue[int]) -> None:
            async for upd in c.stream(m.match_id, seat, m.tokens[seat]):
                await q.put(int(upd["version"]))

        holders = []
        for _ in range(3):
            q: asyncio.Queue[int] = asyncio.Queue()
            holders.append(asyncio.create_task(hold(0, q)))
            assert await asyncio.wait_for(q.get(), 10) == 1
            firsts.append(q)
        with pytest.raises(BummerlError) as e:
            async for _ in c.stream(m.match_id, 0, m.tokens[0]):
                pass
        assert e.value.code == grpc.StatusCode.RESOURCE_EXHAUSTED and "open streams" in e.value.details
        from bummerl.v1 import game_pb2, game_pb2_grpc

        async with grpc.aio.insecure_channel(rt.target) as ch:  # a retry-after that does not invite a retry at once
            call = game_pb2_grpc.GameServiceStub(ch).StreamMatch(
                game_pb2.StreamMatchRequest(match_id=m.match_id, seat=0),
                metadata=(("authorization", f"Bearer {m.tokens[0]}"),))
            with pytest.raises(grpc.aio.AioRpcError) as raw:
                async for _ in call:
                    pass
            assert dict(raw.value.trailing_metadata() or ()).get("bummerl-retry-after-ms") == "1000"
        other = c.stream(m.match_id, 1, m.tokens[1])  # the other seat is not shut out
        assert int((await other.__anext__())["version"]) == 1
        await other.aclose()
        holders[0].cancel()
        await asyncio.gather(holders[0], return_exceptions=True)
        for _ in range(50):  # the freed slot is usable again
            try:
                s = c.stream(m.match_id, 0, m.tokens[0])
                assert int((await s.__anext__())["version"]) == 1
                await s.aclose()
                break
            except BummerlError:
                await asyncio.sleep(0.05)
        else:
            raise AssertionError("a closed stream's slot was never freed")
        for h in holders[1:]:
            h.cancel()
        await asyncio.gather(*holders, return_exceptions=True)


async def test_finished_matches_expire_after_the_retention_running_ones_do_not(
        redis_url: str, redis_client: aioredis.Redis) -> None:
    async with Runtime(settings(redis_url, retention_days=2.0)) as rt, AsyncClient(rt.target) as c:
        done = await c.create_match("schnapsen-at")
        running = await c.create_match("schnapsen-at")
        await c.resign(done.match_id, 0, done.tokens[0])
        for key in rt.store.layout.match_keys(done.match_id):
            ttl = await redis_client.pttl(key)
            assert 2 * 86_400_000 - 60_000 < ttl <= 2 * 86_400_000
        for key in rt.store.layout.match_keys(running.match_id):
            assert await redis_client.pttl(key) == -1


async def test_rate_limits_answer_resource_exhausted_with_retry_after(redis_url: str) -> None:
    async with Runtime(settings(redis_url, rate_create_per_min=3, rate_actions_per_s=1)) as rt, \
            AsyncClient(rt.target) as c:
        made = [await c.create_match("schnapsen-at") for _ in range(3)]
        with pytest.raises(BummerlError) as e:
            await c.create_match("schnapsen-at")
        assert e.value.code == grpc.StatusCode.RESOURCE_EXHAUSTED and "retry in" in e.value.details
        m = made[0]
        info = await c.information_set(m.match_id, 0, m.tokens[0])
        seat = int(info["deal"]["to_act"])
        info = await c.information_set(m.match_id, seat, m.tokens[seat])
        a = info["legal_actions"][0]["id"]
        calls = [c.submit_action(m.match_id, seat, m.tokens[seat], int(info["version"]), a) for _ in range(3)]
        results = await asyncio.gather(*calls, return_exceptions=True)  # within one window of one second
        limited = [r for r in results if isinstance(r, BummerlError)]
        assert limited and all(r.code == grpc.StatusCode.RESOURCE_EXHAUSTED for r in limited)
        assert any(isinstance(r, dict) and not r.get("duplicate") for r in results)  # the first one applied


@pytest.mark.single_node  # a database of its own (db=9): Redis Cluster has only db 0
async def test_active_matches_gauge_is_cluster_wide_and_never_negative(redis_url: str) -> None:
    """bummerl_active_matches counts matches not yet over on the whole Redis: a match created by
    one server and finished by another (or after a restart) leaves it at the right figure, not -1."""
    from bummerl import metrics
    from bummerl.app import Runtime
    from bummerl.config import Settings
    from bummerl_client import AsyncClient

    def gauge() -> float:
        return float(metrics.ACTIVE_MATCHES._value.get())

    # A Redis database of its own: on the shared test Redis, a ladder or an idle match another
    # test left behind could end between the two counts below.
    private = redis_url + ("&" if "?" in redis_url else "?") + "db=9"
    settings = Settings.from_env({}, port=0, http_port=0, metrics_port=0, redis_url=private)
    async with Runtime(settings) as first, AsyncClient(first.target) as c:
        assert first.store is not None
        base = await first.store.active_count()
        m = await c.create_match("schnapsen-at", seed=1)
        assert await first.store.active_count() == base + 1
    # a "restarted" replica finishes the match the first one created
    async with Runtime(settings) as second, AsyncClient(second.target) as c:
        assert second.store is not None
        assert gauge() == base + 1  # read from Redis at start, not counted by this process
        await c.resign(m.match_id, 0, m.tokens[0])
        assert await second.store.active_count() == base
        metrics.set_active_matches(await second.store.active_count())
        assert gauge() == base >= 0


async def test_a_peer_that_keeps_sending_wrong_tokens_gets_resource_exhausted(
        redis_url: str, redis_client: aioredis.Redis) -> None:
    """Failed authentication is counted per peer address, over gRPC and REST alike (wrong seat
    token, wrong bot token, wrong admin token): past the limit such calls get RESOURCE_EXHAUSTED
    with a retry-after; a valid token from the same address still passes. (Before, calls with a
    wrong token were never counted: a peer could guess tokens as fast as the server answered.)"""
    import aiohttp

    key = "bm:rl:auth:ipv4:127.0.0.1"
    await redis_client.delete(key)
    try:
        async with Runtime(settings(redis_url, rate_auth_failures_per_min=4, admin_token="adm"), gateway_port=0) as rt, \
                AsyncClient(rt.target) as c:
            m = await c.create_match("schnapsen-at", admin_token="adm")
            with pytest.raises(BummerlError) as e:
                await c.information_set(m.match_id, 0, "wrong")
            assert e.value.code == grpc.StatusCode.UNAUTHENTICATED
            with pytest.raises(BummerlError) as e:
                await c.create_match("schnapsen-at", admin_token="not-the-admin-token")
            assert e.value.code == grpc.StatusCode.PERMISSION_DENIED
            bot = await c.register_bot("b", admin_token="adm")
            with pytest.raises(BummerlError) as e:
                async for _ in c.assignments(bot["bot_id"], bot["bot_id"] + ".wrong"):
                    pass
            assert e.value.code == grpc.StatusCode.UNAUTHENTICATED
            base = f"http://127.0.0.1:{rt.http_port}/v1/matches/{m.match_id}/seats/0/information-set"
            async with aiohttp.ClientSession() as http:
                async with http.get(base, headers={"Authorization": "Bearer wrong"}) as r:
                    assert r.status == 401  # the fourth failure: still within the limit
                async with http.get(base, headers={"Authorization": "Bearer wrong"}) as r:
                    body = await r.json()
                    assert r.status == 429 and body["code"] == "RESOURCE_EXHAUSTED", body
                    assert "failed authentications" in body["message"]
                async with http.get(base, headers={"Authorization": f"Bearer {m.tokens[0]}"}) as r:
                    assert r.status == 200  # a valid token from the same address
            with pytest.raises(BummerlError) as e:
                await c.information_set(m.match_id, 1, m.tokens[0])  # another seat's token counts too
            assert e.value.code == grpc.StatusCode.RESOURCE_EXHAUSTED and "retry in" in e.value.details
            assert (await c.information_set(m.match_id, 1, m.tokens[1]))["seat"] == 1
    finally:
        await redis_client.delete(key)  # the other tests share this address and this Valkey

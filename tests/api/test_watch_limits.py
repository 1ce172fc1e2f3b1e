"""Spectators cannot lock out other clients nor slow the seats (issue 38): WatchMatch streams are
capped per client address (gRPC and REST together), a version's update is encoded once for all
its spectators (counted by ``bummerl_watch_encodes_total``, not timed), spectators are refused and
ended with a retry hint while the event loop lags (the signal forced here; a few spectators are
never shed) and seats are never shed; a slow spectator skips to the newest version with every event since its last frame; a
delayed frame's summary carries the version it shows. Only loopback addresses (127.0.0.0/8)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import grpc
import pytest
from prometheus_client import REGISTRY

from bummerl.api.errors import RETRY_AFTER_KEY
from bummerl.api.servicer import _watch_update
from bummerl.app import Runtime
from bummerl.config import Settings
from bummerl.core import spectate
from bummerl.core.errors import ResourceExhaustedError
from bummerl.core.limits import address_key
from bummerl.core.spectate import Spectators
from bummerl.v1 import common_pb2, game_pb2, game_pb2_grpc


@pytest.fixture
async def rt(redis_url: str) -> AsyncIterator[Runtime]:
    settings = Settings.from_env({}, port=0, http_port=0, metrics_port=0, redis_url=redis_url, house_workers=0,
                                 max_watchers_per_address=2)
    async with Runtime(settings, gateway_port=0) as runtime:
        yield runtime


def _encodes(fmt: str) -> float:
    return REGISTRY.get_sample_value("bummerl_watch_encodes_total", {"format": fmt}) or 0.0


def _auth(token: str) -> list[tuple[str, str]]:
    return [("authorization", f"Bearer {token}")]


async def _create(stub: Any, seed: int = 7, **watch: Any) -> game_pb2.CreateMatchResponse:
    req = game_pb2.CreateMatchRequest(variant="schnapsen-at", seed=seed,
                                      seats=[game_pb2.SeatSpec(name=f"s{i}") for i in range(2)])
    if watch:
        req.watch.CopyFrom(game_pb2.WatchSettings(**watch))
    return await stub.CreateMatch(req)


async def _move(stub: Any, created: Any) -> int:
    """One action by the seat to act (its first legal one); the new version."""
    for s in range(2):
        info = await stub.GetInformationSet(game_pb2.GetInformationSetRequest(match_id=created.match_id, seat=s),
                                            metadata=_auth(created.seat_tokens[s].token))
        if info.legal_actions:
            r = await stub.SubmitAction(game_pb2.SubmitActionRequest(
                match_id=created.match_id, seat=s, expected_version=info.version,
                action_id=info.legal_actions[0].id), metadata=_auth(created.seat_tokens[s].token))
            return int(r.version)
    raise AssertionError("nobody to act")


class RestWatch:
    """A WatchMatch over REST (NDJSON) from a chosen loopback source address."""

    def __init__(self, rt: Runtime, match_id: str, source: str) -> None:
        self.url = f"http://127.0.0.1:{rt.http_port}/v1/matches/{match_id}/watch"
        self.session = aiohttp.ClientSession(connector=aiohttp.TCPConnector(local_addr=(source, 0), force_close=True))
        self.resp: aiohttp.ClientResponse | None = None

    async def open(self) -> aiohttp.ClientResponse:
        self.resp = await self.session.get(self.url)
        return self.resp

    async def line(self) -> dict[str, Any]:
        assert self.resp is not None
        return dict(json.loads(await asyncio.wait_for(self.resp.content.readline(), 10)))

    async def close(self) -> None:
        if self.resp is not None:
            self.resp.close()
        await self.session.close()


async def _first(stream: Any) -> game_pb2.WatchUpdate:
    return await asyncio.wait_for(stream.read(), 10)  # type: ignore[no-any-return]


def test_address_key() -> None:
    assert address_key("ipv4:127.0.0.2") == "127.0.0.2"
    assert address_key("ipv6:[2001:db8:1:2:3:4:5:6]") == address_key("ipv6:[2001:db8:1:2::9]") == "2001:db8:1:2::/64"
    assert address_key("unknown") == "unknown"


async def test_watchers_per_address_capped_over_grpc_and_rest_together(rt: Runtime) -> None:
    """Two streams from 127.0.0.1 (the cap; one gRPC, one REST), a third is refused on either
    transport with a retry hint, while 127.0.0.2 still watches; a closed stream frees its place."""
    assert rt.http_port is not None
    async with grpc.aio.insecure_channel(rt.target) as ch:
        stub = game_pb2_grpc.GameServiceStub(ch)
        created = await _create(stub)
        req = game_pb2.WatchMatchRequest(match_id=created.match_id)
        first = stub.WatchMatch(req)
        assert (await _first(first)).version == 1
        rest = RestWatch(rt, created.match_id, "127.0.0.1")
        other = RestWatch(rt, created.match_id, "127.0.0.2")
        over_rest = RestWatch(rt, created.match_id, "127.0.0.1")
        try:
            assert (await rest.open()).status == 200 and (await rest.line())["result"]["version"] == "1"
            third = stub.WatchMatch(req)
            with pytest.raises(grpc.aio.AioRpcError) as ei:
                await _first(third)
            assert ei.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert dict(ei.value.trailing_metadata() or ())[RETRY_AFTER_KEY] == str(spectate.ADDRESS_RETRY_MS)
            refused = await over_rest.open()
            body = await refused.json()
            assert refused.status == 429 and body["code"] == "RESOURCE_EXHAUSTED"
            assert refused.headers[RETRY_AFTER_KEY] == str(spectate.ADDRESS_RETRY_MS) and refused.headers["Retry-After"] == "10"
            assert (await other.open()).status == 200 and (await other.line())["result"]["version"] == "1"
            first.cancel()
            for _ in range(100):  # the server sees the cancellation
                again = stub.WatchMatch(req)
                try:
                    assert (await _first(again)).version == 1
                    break
                except grpc.aio.AioRpcError as e:
                    assert e.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
                    await asyncio.sleep(0.05)
            else:
                raise AssertionError("the closed stream's place was not freed")
            again.cancel()
        finally:
            for w in (rest, other, over_rest):
                await w.close()


async def test_one_encoding_per_version_for_all_watchers(rt: Runtime) -> None:
    """Six gRPC and two REST spectators (from two addresses) of one match: each version's update
    is built once (pb) and rendered once (json), however many spectators get it; one follower of
    the match serves them all."""
    assert rt.http_port is not None and rt.spectators is not None
    async with grpc.aio.insecure_channel(rt.target) as ch, grpc.aio.insecure_channel(rt.target) as ch2:
        stub = game_pb2_grpc.GameServiceStub(ch)
        created = await _create(stub, seed=11)
        rt.spectators.max_per_address = 0  # six gRPC streams from one address
        pb0, js0 = _encodes("pb"), _encodes("json")
        streams = [game_pb2_grpc.GameServiceStub(c).WatchMatch(game_pb2.WatchMatchRequest(match_id=created.match_id))
                   for c in (ch, ch2) for _ in range(3)]
        rests = [RestWatch(rt, created.match_id, f"127.0.0.{i}") for i in (3, 4)]
        try:
            got = [[await _first(s)] for s in streams]
            for r in rests:
                await r.open()
            lines = [[await r.line()] for r in rests]
            assert rt.spectators.feeds.get(created.match_id) is not None and len(rt.spectators.feeds) == 1
            for _ in range(6):
                v = await _move(stub, created)
                for s, frames in zip(streams, got, strict=True):  # every spectator has it before the next move
                    frames.append(await _first(s))
                    assert frames[-1].version == v
                for r, ls in zip(rests, lines, strict=True):
                    ls.append(await r.line())
                    assert int(ls[-1]["result"]["version"]) == v
            assert _encodes("pb") - pb0 == 7  # versions 1..7, each built once for 8 spectators
            assert _encodes("json") - js0 == 7
            assert all([f.SerializeToString() for f in frames] == [f.SerializeToString() for f in got[0]] for frames in got)
            # moves faster than the spectators' spread (0-50 ms): a few encodings per version (a
            # spectator that wakes a version late sends a frame of two), not one per spectator
            pb1 = _encodes("pb")
            newest = [await _move(stub, created) for _ in range(4)][-1]
            for s, frames in zip(streams, got, strict=True):
                while frames[-1].version < newest:
                    frames.append(await _first(s))
            n = _encodes("pb") - pb1
            assert 1 <= n <= 16, n  # one per spectator and version would be 32
        finally:
            for s in streams:
                s.cancel()
            for r in rests:
                await r.close()


async def test_overload_sheds_spectators_with_a_retry_hint_never_seats(rt: Runtime,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """With the lag signal forced over SHED_LAG_MS a new spectator is refused (gRPC
    RESOURCE_EXHAUSTED with bummerl-retry-after-ms; REST 429 with Retry-After); over CLOSE_LAG_MS
    an open one is ended with a retry hint at its next frame. The seats meanwhile open their
    streams, read and act as ever."""
    assert rt.spectators is not None and rt.http_port is not None
    monkeypatch.setattr(spectate, "CLOSE_SHARE", 1.0)
    lag = rt.spectators.lag
    async with grpc.aio.insecure_channel(rt.target) as ch:
        stub = game_pb2_grpc.GameServiceStub(ch)
        created = await _create(stub, seed=12)
        req = game_pb2.WatchMatchRequest(match_id=created.match_id)
        lag.forced_ms = spectate.CLOSE_LAG_MS + 1
        few = stub.WatchMatch(req)  # a few spectators are no load: not shed, whatever the lag
        assert (await _first(few)).version == 1 and rt.spectators.shed_min_watchers == spectate.SHED_MIN_WATCHERS
        few.cancel()
        lag.forced_ms = None
        rt.spectators.shed_min_watchers = 0  # from here on the lag counts however few watch
        open_before = stub.WatchMatch(req)
        assert (await _first(open_before)).version == 1
        try:
            lag.forced_ms = spectate.SHED_LAG_MS + 1
            refused = stub.WatchMatch(req)
            with pytest.raises(grpc.aio.AioRpcError) as ei:
                await _first(refused)
            assert ei.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED and "busy" in (ei.value.details() or "")
            hint = int(dict(ei.value.trailing_metadata() or ())[RETRY_AFTER_KEY])
            assert spectate.REFUSE_RETRY_MS <= hint <= 2 * spectate.REFUSE_RETRY_MS
            w = RestWatch(rt, created.match_id, "127.0.0.2")
            try:
                resp = await w.open()
                assert resp.status == 429 and int(resp.headers["Retry-After"]) >= 3
            finally:
                await w.close()
            lag.forced_ms = spectate.CLOSE_LAG_MS + 1
            # the seats: a stream each, opened and read while spectators are shed, and their actions
            seat_streams = [stub.StreamMatch(game_pb2.StreamMatchRequest(match_id=created.match_id, seat=s),
                                             metadata=_auth(created.seat_tokens[s].token)) for s in range(2)]
            for s in seat_streams:
                assert (await asyncio.wait_for(s.read(), 10)).version == 1
            v = await _move(stub, created)
            for s in seat_streams:
                assert (await asyncio.wait_for(s.read(), 10)).version == v
            with pytest.raises(grpc.aio.AioRpcError) as ei:
                await _first(open_before)
            assert ei.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert int(dict(ei.value.trailing_metadata() or ())[RETRY_AFTER_KEY]) >= spectate.CLOSE_RETRY_MS
            assert await _move(stub, created) == v + 1  # the seats play on
            for s in seat_streams:
                s.cancel()
        finally:
            lag.forced_ms = None
            open_before.cancel()
        lag.forced_ms = None
        back = stub.WatchMatch(req)  # the lag gone, spectators are welcome again
        assert (await _first(back)).version == v + 1
        back.cancel()


async def test_a_slow_or_throttled_spectator_skips_to_the_newest_version(rt: Runtime,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """A spectator that does not take its frames while the match moves on gets, next, one frame of
    the newest version with every event since its last frame (nothing queued per spectator); while
    the process lags (SHED_LAG_MS) spectators get at most a frame per THROTTLE_S, coalesced alike."""
    assert rt.service is not None
    monkeypatch.setattr(spectate, "THROTTLE_S", 0.6)
    async with grpc.aio.insecure_channel(rt.target) as ch:
        stub = game_pb2_grpc.GameServiceStub(ch)
        created = await _create(stub, seed=13)
        spectators = Spectators(rt.service, spread_s=0)
        spectators.shed_min_watchers = 0
        slow = spectators.watch(created.match_id, None)
        assert (await anext(slow)).version == 1
        versions = [await _move(stub, created) for _ in range(3)]
        frame = await asyncio.wait_for(anext(slow), 10)
        assert frame.version == versions[-1] and frame.since == 1
        assert sorted({int(e["version"]) for e in frame.events}) == versions
        spectators.lag.forced_ms = spectate.SHED_LAG_MS + 1  # throttled from here on
        got: list[Any] = []

        async def take() -> None:
            async for f in slow:
                got.append(f)

        task = asyncio.create_task(take())
        await _move(stub, created)
        await asyncio.sleep(0.05)
        newest = [await _move(stub, created) for _ in range(2)][-1]
        await asyncio.sleep(0.1)
        assert len(got) <= 1  # not one frame per version
        for _ in range(100):
            if got and got[-1].version == newest:
                break
            await asyncio.sleep(0.05)
        assert got[-1].version == newest and len(got) <= 2
        assert sorted({int(e["version"]) for f in got for e in f.events}) == list(range(versions[-1] + 1, newest + 1))
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        await slow.aclose()
        await spectators.feeds.aclose()


async def test_a_delayed_frame_carries_the_version_it_shows_over_rest(rt: Runtime) -> None:
    """Under watch delay N the REST frame's summary.version and public_view.version are the version
    shown (issue 38: it carried the newest), as over gRPC (tests/api/test_watch.py)."""
    assert rt.http_port is not None
    async with grpc.aio.insecure_channel(rt.target) as ch:
        stub = game_pb2_grpc.GameServiceStub(ch)
        created = await _create(stub, seed=14, delay_moves=3)
        newest = [await _move(stub, created) for _ in range(5)][-1]
        w = RestWatch(rt, created.match_id, "127.0.0.5")
        try:
            await w.open()
            frame = (await w.line())["result"]
        finally:
            await w.close()
    assert newest == 6
    assert frame["version"] == frame["summary"]["version"] == frame["public_view"]["version"] == "3"
    assert all(int(e["version"]) <= 3 for e in frame["events"]) and not frame["summary"]["over"]


async def test_the_address_cap_refuses_before_any_read(rt: Runtime) -> None:
    """The per-address refusal comes before any read of the match (a refused caller costs nothing
    but the check)."""
    assert rt.service is not None
    spectators = Spectators(rt.service, max_per_address=1)
    held = spectators.watch("nosuchmatch0", None, peer="ipv4:10.9.8.7:5")
    with pytest.raises(Exception) as ei:  # the first gets as far as the load: NOT_FOUND
        await anext(held)
    assert type(ei.value).__name__ == "NotFoundError"
    async with grpc.aio.insecure_channel(rt.target) as ch:
        created = await _create(game_pb2_grpc.GameServiceStub(ch), seed=15)
    a = spectators.watch(created.match_id, None, peer="ipv4:10.9.8.7:5")
    assert (await anext(a)).version == 1
    with pytest.raises(ResourceExhaustedError) as ri:
        await anext(spectators.watch("nosuchmatch0", None, peer="ipv4:10.9.8.7:6"))
    assert ri.value.retry_after_ms == spectate.ADDRESS_RETRY_MS
    await a.aclose()
    await spectators.feeds.aclose()


async def test_live_frames_with_clocks_are_shared_briefly_and_carry_fresh_clocks(rt: Runtime) -> None:
    """Under a time control a live frame holds the clocks as they were when it was built: spectators
    of one version share it (one encoding) for CLOCK_REUSE_S, and a spectator who comes later gets
    clocks built then, not a stale frame."""
    assert rt.service is not None
    async with grpc.aio.insecure_channel(rt.target) as ch:
        stub = game_pb2_grpc.GameServiceStub(ch)
        created = await stub.CreateMatch(game_pb2.CreateMatchRequest(
            variant="schnapsen-at", seed=16, seats=[game_pb2.SeatSpec(name=f"s{i}") for i in range(2)],
            time_control=common_pb2.TimeControl(base_ms=60_000)))
        spectators = Spectators(rt.service, spread_s=0)
        a, b = spectators.watch(created.match_id, None), spectators.watch(created.match_id, None)
        fa, fb = await anext(a), await anext(b)
        assert fa is fb and fa.public_view.get("clocks")  # one frame object: one encoding
        await asyncio.sleep(spectate.CLOCK_REUSE_S + 0.05)
        c = spectators.watch(created.match_id, None)
        fc = await anext(c)
        assert fc is not fa and fc.version == fa.version and fc.public_view.get("clocks")
        pb0 = _encodes("pb")
        v = await _move(stub, created)
        got = [await asyncio.wait_for(anext(g), 10) for g in (a, b, c)]
        assert {f.version for f in got} == {v} and got[0] is got[1] is got[2]
        assert all(_watch_update(f) is _watch_update(got[0]) for f in got) and _encodes("pb") - pb0 == 1
        for g in (a, b, c):
            await g.aclose()
        await spectators.feeds.aclose()


async def test_the_update_budget_spaces_each_spectators_frames(rt: Runtime) -> None:
    """With a budget of 4 updates/s and two spectators, each gets a frame at most every 0.5 s:
    moves made faster come to each as fewer frames, the newest version with every event since."""
    assert rt.service is not None
    async with grpc.aio.insecure_channel(rt.target) as ch:
        stub = game_pb2_grpc.GameServiceStub(ch)
        created = await _create(stub, seed=17)
        spectators = Spectators(rt.service, spread_s=0)
        spectators.update_budget_per_s = 4
        gens = [spectators.watch(created.match_id, None) for _ in range(2)]
        for g in gens:
            assert (await anext(g)).version == 1
        got: list[list[Any]] = [[], []]

        async def take(i: int) -> None:
            async for f in gens[i]:
                got[i].append(f)

        tasks = [asyncio.create_task(take(i)) for i in range(2)]
        versions = []
        for _ in range(6):
            versions.append(await _move(stub, created))
            await asyncio.sleep(0.05)
        for _ in range(100):
            if all(fs and fs[-1].version == versions[-1] for fs in got):
                break
            await asyncio.sleep(0.05)
        for fs in got:
            assert fs[-1].version == versions[-1] and len(fs) <= 3  # 6 versions in 0.3 s: 1-3 frames
            assert sorted({int(e["version"]) for f in fs for e in f.events}) == versions
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for g in gens:
            await g.aclose()
        await spectators.feeds.aclose()

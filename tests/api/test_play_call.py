"""``Play`` (issue 26, the stream path): a seat's updates and actions on one bidirectional call.
A whole match is played on it; the commit of the seat's own action comes back as an update on the
call; an action the server refuses ends the call with its status and changes nothing."""

from __future__ import annotations

import asyncio
import random

import grpc
import pytest

from bummerl.app import Runtime
from bummerl_client import AsyncClient, BummerlError


async def test_a_match_is_played_on_play_calls(rt: Runtime) -> None:
    async with AsyncClient(rt.target) as c:
        cm = await c.create_match("santase", seed=4)

        async def seat(s: int) -> list[int]:
            rng, seen = random.Random(s), []
            async with c.play(cm.match_id, s, cm.tokens[s]) as call:
                async for upd in call:
                    info = upd["information_set"]
                    seen.append(int(upd["version"]))
                    if info["match"]["over"]:
                        return seen
                    if info["deal"]["to_act"] == s and info["legal_actions"]:
                        await call.send(int(info["version"]), rng.choice(info["legal_actions"])["id"])
            return seen

        v0, v1 = await asyncio.wait_for(asyncio.gather(seat(0), seat(1)), 60)
        rec = await c.match_record(cm.match_id)
    assert rec["over"] and v0[-1] == v1[-1] == int(rec["version"])
    assert v0 == sorted(set(v0)) and v0 == list(range(1, v0[-1] + 1))  # every version, once, in order


async def test_a_refused_action_ends_the_call_and_changes_nothing(rt: Runtime) -> None:
    async with AsyncClient(rt.target) as c:
        cm = await c.create_match("schnapsen-at", seed=4)
        info = await c.information_set(cm.match_id, 0, cm.tokens[0])
        seat = int(info["deal"]["to_act"])
        legal = {int(a["id"]) for a in (await c.information_set(cm.match_id, seat, cm.tokens[seat]))["legal_actions"]}
        illegal = next(a for a in range(24) if a not in legal)
        with pytest.raises(BummerlError) as ei:
            async with c.play(cm.match_id, seat, cm.tokens[seat]) as call:
                async for upd in call:
                    await call.send(int(upd["version"]), illegal)
        assert ei.value.code == grpc.StatusCode.FAILED_PRECONDITION
        assert int((await c.information_set(cm.match_id, seat, cm.tokens[seat]))["version"]) == 1
        with pytest.raises(BummerlError) as ei:
            async with c.play(cm.match_id, seat, "not-a-token") as call:
                async for _ in call:
                    pass
        assert ei.value.code == grpc.StatusCode.UNAUTHENTICATED


async def test_a_stream_that_dies_ends_the_call_instead_of_leaving_it_silent(rt: Runtime) -> None:
    """If the seat's update stream ends with a CancelledError that is not the call's own end (the
    stream hub once handed one waiter's cancellation to the others), the Play call ends
    (UNAVAILABLE, which the SDK's runner retries) instead of waiting forever for an update."""
    service = rt.service  # type: ignore[attr-defined]
    real = service.stream

    async def dying(*args, **kwargs):  # type: ignore[no-untyped-def]
        async for u in real(*args, **kwargs):
            yield u
            raise asyncio.CancelledError  # after the snapshot: as a lost stream did

    async with AsyncClient(rt.target) as c:
        cm = await c.create_match("schnapsen-at", seed=4)
        service.stream = dying
        try:
            with pytest.raises(BummerlError) as ei:
                async with c.play(cm.match_id, 0, cm.tokens[0]) as call:
                    await asyncio.wait_for(_drain(call), 10)
        finally:
            service.stream = real
    assert ei.value.code == grpc.StatusCode.UNAVAILABLE and "call Play again" in ei.value.details


async def _drain(call) -> None:  # type: ignore[no-untyped-def]
    async for _ in call:
        pass


async def test_malformed_play_calls_are_invalid_argument_and_change_nothing(rt: Runtime) -> None:
    """A hostile-client walkthrough: an action in the first request was dropped without a word (the
    version stayed 1), a later request naming another match was played on the first one, and a
    call with no request at all ended OK."""
    from bummerl.v1 import game_pb2, game_pb2_grpc

    async with AsyncClient(rt.target) as c:
        cm = await c.create_match("schnapsen-at", seed=4)
        info = await c.information_set(cm.match_id, 0, cm.tokens[0])
        seat = int(info["deal"]["to_act"])
        legal = int((await c.information_set(cm.match_id, seat, cm.tokens[seat]))["legal_actions"][0]["id"])
    meta = (("authorization", f"Bearer {cm.tokens[seat]}"),)
    first = game_pb2.PlayRequest(match_id=cm.match_id, seat=seat)
    cases = {
        "no request": [],
        "an action in the first request": [game_pb2.PlayRequest(match_id=cm.match_id, seat=seat, expected_version=1,
                                                                action_id=legal)],
        "another match later": [first, game_pb2.PlayRequest(match_id="zzz", expected_version=1, action_id=legal)],
        "another seat later": [first, game_pb2.PlayRequest(seat=1 - seat or 7, expected_version=1, action_id=legal)],
    }
    async with grpc.aio.insecure_channel(rt.target) as ch:
        stub = game_pb2_grpc.GameServiceStub(ch)
        for name, requests in cases.items():
            async def gen(reqs=requests):  # type: ignore[no-untyped-def]
                for r in reqs:
                    yield r
                    await asyncio.sleep(0.2)  # the later request after the snapshot went out

            call = stub.Play(gen(), metadata=meta)
            with pytest.raises(grpc.aio.AioRpcError) as ei:
                async for _ in call:
                    pass
            assert ei.value.code() == grpc.StatusCode.INVALID_ARGUMENT, name
            assert "Play" in (ei.value.details() or ""), (name, ei.value.details())
    async with AsyncClient(rt.target) as c:
        assert int((await c.information_set(cm.match_id, seat, cm.tokens[seat]))["version"]) == 1


async def test_a_bad_action_with_a_bad_token_is_unauthenticated_and_a_finished_match_says_so(rt: Runtime) -> None:
    """The token is checked before the action (an action id out of range with a wrong token said
    INVALID_ARGUMENT, with a right one UNAUTHENTICATED); a stale version of a finished match is
    MATCH_OVER, not "stale: fetch the current version"."""
    async with AsyncClient(rt.target) as c:
        cm = await c.create_match("schnapsen-at", seed=4)
        for action in (99, "play XX"):
            with pytest.raises(BummerlError) as ei:
                await c.submit_action(cm.match_id, 0, "wrong-token", 1, action)
            assert ei.value.code == grpc.StatusCode.UNAUTHENTICATED, action
            with pytest.raises(BummerlError) as ei:  # with the right token: the action's own error
                await c.submit_action(cm.match_id, 0, cm.tokens[0], 1, action)
            assert ei.value.code == grpc.StatusCode.INVALID_ARGUMENT, action
        await c.resign(cm.match_id, 1, cm.tokens[1])
        with pytest.raises(BummerlError) as ei:
            await c.submit_action(cm.match_id, 0, cm.tokens[0], 1, 0)
        assert ei.value.code == grpc.StatusCode.FAILED_PRECONDITION and ei.value.reason == "MATCH_OVER"
        assert "the match is over (at version 2)" in ei.value.details


async def test_a_negative_from_version_is_invalid_argument(rt: Runtime) -> None:
    """StreamMatch, Play and WatchMatch answered a from_version of -5 with the snapshot."""
    async with AsyncClient(rt.target) as c:
        cm = await c.create_match("santase")
        for opened in (lambda: c.stream(cm.match_id, 0, cm.tokens[0], from_version=-5),
                       lambda: c.watch(cm.match_id, from_version=-5)):
            with pytest.raises(BummerlError) as ei:
                async for _ in opened():
                    pass
            assert ei.value.code == grpc.StatusCode.INVALID_ARGUMENT
            assert "from_version must be at least 0 (0 = from the start), got -5" in ei.value.details
        with pytest.raises(BummerlError) as ei:
            async with c.play(cm.match_id, 0, cm.tokens[0], from_version=-5) as call:
                async for _ in call:
                    pass
        assert ei.value.code == grpc.StatusCode.INVALID_ARGUMENT

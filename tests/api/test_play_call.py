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

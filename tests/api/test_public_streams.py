"""Public streams cannot starve bots (issue 25): 150 anonymous StreamLadder calls used to take a
pooled Redis connection each, and every bot's StreamAssignments then failed with UNAVAILABLE.
Watchers of one ladder now share one reader; bots have their own budget; streams per peer and
per bot are capped."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import grpc
import pytest

from bummerl.app import Runtime
from bummerl.ladder.service import STREAMS_PER_BOT, STREAMS_PER_PEER
from bummerl.v1 import ladder_pb2, ladder_pb2_grpc

ADMIN = "adm"


SERVER_SETTINGS = {"admin_token": ADMIN}


async def test_many_anonymous_ladder_streams_do_not_starve_a_bot(rt: Runtime) -> None:
    channels = [grpc.aio.insecure_channel(rt.target) for _ in range(12)]  # 12 peers' worth of streams
    stub = ladder_pb2_grpc.LadderServiceStub(channels[0])
    meta = [("authorization", f"Bearer {ADMIN}")]
    bots = [await stub.RegisterBot(ladder_pb2.RegisterBotRequest(name=f"s-{uuid.uuid4().hex[:8]}"), metadata=meta)
            for _ in range(2)]
    lad = await stub.CreateLadder(ladder_pb2.CreateLadderRequest(
        name="x", variant="schnapsen-at", bot_ids=[b.bot_id for b in bots], rounds=1, deals_per_game=1,
        duplicate_deals=True, concurrency=2), metadata=meta)
    streams = [ladder_pb2_grpc.LadderServiceStub(channels[i % 12]).StreamLadder(
        ladder_pb2.StreamLadderRequest(ladder_id=lad.ladder_id)) for i in range(150)]
    try:
        # every address here is 127.0.0.1: the per-peer cap lets STREAMS_PER_PEER in, refuses the rest
        codes = []
        for s in streams:
            try:
                await asyncio.wait_for(s.read(), 20)
                codes.append("ok")
            except grpc.aio.AioRpcError as e:
                codes.append(e.code().name)
        assert codes.count("ok") == STREAMS_PER_PEER
        assert set(codes) == {"ok", "RESOURCE_EXHAUSTED"}
        def bot_stream() -> Any:
            return stub.StreamAssignments(ladder_pb2.StreamAssignmentsRequest(bot_id=bots[0].bot_id),
                                          metadata=[("authorization", f"Bearer {bots[0].bot_token}")])

        # the bot's own streams first, then one more: which of streams opened at once gets the
        # refusal depends on the order the server takes them in
        bot_streams = [bot_stream() for _ in range(STREAMS_PER_BOT)]
        got = [await asyncio.wait_for(b.read(), 10) for b in bot_streams]
        bot_streams.append(bot_stream())
        assert len({a.match_id for a in got}) == 1  # each stream gets the bot's game
        with pytest.raises(grpc.aio.AioRpcError) as ei:
            await asyncio.wait_for(bot_streams[-1].read(), 10)
        assert ei.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert rt.ladders is not None and rt.ladders.public_feeds.keys_followed == 1  # one reader, many watchers
        for b in bot_streams:
            b.cancel()
    finally:
        for s in streams:
            s.cancel()
        for c in channels:
            await c.close()

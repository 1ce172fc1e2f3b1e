"""Spectators and a duplicate set's secret (issues 20 and 25): a ladder game is watched live and
replayed only by the admin until every game of its duplicate set is over; a match's watch setting
(token only, delay) also governs its record."""

from __future__ import annotations

import asyncio
import json
import random
from typing import Any

import grpc
import pytest

from bummerl.app import Runtime
from bummerl.ladder.service import LadderSpec
from bummerl.store.keys import ladder_key
from bummerl.v1 import game_pb2, game_pb2_grpc

ADMIN = "watch-admin"
SERVER_SETTINGS = {"admin_token": ADMIN, "rate_auth_failures_per_min": 0}


async def finish(rt: Runtime, game: dict[str, Any], tokens: dict[str, str]) -> None:
    assert rt.ladders is not None
    svc, rng, mid = rt.ladders.matches, random.Random(2), game["match_id"]
    while await rt.ladders.store.is_running(mid):
        info = await svc.information_set(mid, 0, tokens[game["bots"][0]])
        seat = info["deal"]["to_act"]
        info = await svc.information_set(mid, seat, tokens[game["bots"][seat]])
        await svc.submit_action(mid, seat, tokens[game["bots"][seat]], info["version"],
                                rng.choice(info["legal_actions"])["id"])


async def test_a_ladder_game_is_not_watched_or_replayed_before_its_set_is_over(rt: Runtime) -> None:
    ladders = rt.ladders
    assert ladders is not None
    bots = [await ladders.register_bot(f"w{i}-{random.randrange(10**9)}", admin_token=ADMIN) for i in range(2)]
    tokens = {b["bot_id"]: b["bot_token"] for b in bots}
    lad = await ladders.create_ladder(LadderSpec("w", "schnapsen-at", list(tokens), deals_per_game=1, concurrency=2,
                                                 seed=3), admin_token=ADMIN)
    running_key = ladder_key(lad["ladder_id"], "running")

    async def started(not_game: int = -1) -> dict[str, Any]:
        """The leg of the set that runs now (never both at once, issue 38), once assigned."""
        for _ in range(200):
            games = [json.loads(g) for g in (await ladders.redis.hgetall(running_key)).values()]
            games = [g for g in games if g.get("assigned") and g["game"] != not_game]
            if games:
                return dict(games[0])
            await asyncio.sleep(0.05)
        raise AssertionError("no leg started")

    leg0 = await started()  # the first leg played; the other one runs once it is recorded
    await finish(rt, leg0, tokens)
    leg1 = await started(leg0["game"])
    async with grpc.aio.insecure_channel(rt.target) as ch:
        stub = game_pb2_grpc.GameServiceStub(ch)
        admin = [("authorization", f"Bearer {ADMIN}")]
        for call in (lambda md: stub.GetMatchReplay(game_pb2.GetMatchReplayRequest(match_id=leg0["match_id"]),
                                                    metadata=md),
                     lambda md: stub.WatchMatch(game_pb2.WatchMatchRequest(match_id=leg1["match_id"]),
                                                metadata=md).read()):
            with pytest.raises(grpc.aio.AioRpcError) as ei:  # leg 1 runs: neither leg is shown to anyone
                await call([("authorization", f"Bearer {tokens[leg1['bots'][0]]}")])
            assert ei.value.code() == grpc.StatusCode.FAILED_PRECONDITION
            assert await call(admin)  # the admin may look
        await finish(rt, leg1, tokens)
        for _ in range(100):  # the driver records leg 1: the set is over
            if int((await ladders.ladder(lad["ladder_id"]))["matches_played"]) == 2:
                break
            await asyncio.sleep(0.05)
        replay = await stub.GetMatchReplay(game_pb2.GetMatchReplayRequest(match_id=leg0["match_id"]))
        assert replay.record.revealed and replay.steps


async def test_the_watch_setting_governs_the_record(rt: Runtime) -> None:
    async with grpc.aio.insecure_channel(rt.target) as ch:
        stub = game_pb2_grpc.GameServiceStub(ch)
        admin = [("authorization", f"Bearer {ADMIN}")]
        secret = await stub.CreateMatch(game_pb2.CreateMatchRequest(
            variant="schnapsen-at", watch=game_pb2.WatchSettings(access="token")), metadata=admin)
        with pytest.raises(grpc.aio.AioRpcError) as ei:
            await stub.GetMatchRecord(game_pb2.GetMatchRecordRequest(match_id=secret.match_id))
        assert ei.value.code() == grpc.StatusCode.UNAUTHENTICATED
        assert await stub.GetMatchRecord(game_pb2.GetMatchRecordRequest(match_id=secret.match_id),
                                         metadata=[("authorization", f"Bearer {secret.watch_token}")])
        delayed = await stub.CreateMatch(game_pb2.CreateMatchRequest(
            variant="schnapsen-at", seed=2, watch=game_pb2.WatchSettings(delay_moves=2)), metadata=admin)
        tok = [t.token for t in delayed.seat_tokens]
        for _ in range(3):
            info = await stub.GetInformationSet(game_pb2.GetInformationSetRequest(match_id=delayed.match_id, seat=0),
                                                metadata=[("authorization", f"Bearer {tok[0]}")])
            seat = info.deal.to_act
            info = await stub.GetInformationSet(game_pb2.GetInformationSetRequest(match_id=delayed.match_id, seat=seat),
                                                metadata=[("authorization", f"Bearer {tok[seat]}")])
            await stub.SubmitAction(game_pb2.SubmitActionRequest(
                match_id=delayed.match_id, seat=seat, expected_version=info.version,
                action_id=info.legal_actions[0].id), metadata=[("authorization", f"Bearer {tok[seat]}")])
        public = await stub.GetMatchRecord(game_pb2.GetMatchRecordRequest(match_id=delayed.match_id))
        own = await stub.GetMatchRecord(game_pb2.GetMatchRecordRequest(match_id=delayed.match_id),
                                        metadata=[("authorization", f"Bearer {tok[0]}")])
        assert own.version == 4 and len(own.actions) == 3
        assert public.version == 2 and len(public.actions) == 1  # two versions behind

"""Ladder and bot ids as calls name them (issue 38): an id over :data:`MAX_ID` characters or not
of letters and digits is INVALID_ARGUMENT with a message that gives the limit, a well-formed
unknown one NOT_FOUND; never INTERNAL (an over-long id reached the store's key check, a
ValueError, and came back INTERNAL with a traceback), over gRPC and REST."""

from __future__ import annotations

import asyncio
import json
import logging
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

import grpc
import pytest

from bummerl.app import Runtime
from bummerl.ladder.ids import MAX_ID
from bummerl.v1 import ladder_pb2, ladder_pb2_grpc

ADMIN = "adm"
SERVER_SETTINGS = {"admin_token": ADMIN}

LONG = "l" + "0" * MAX_ID  # MAX_ID + 1 characters
BAD_IDS = [LONG, "x" * 5000, "l0{1}", "l 1", "l\u00e9", "l-1"]


def _grpc_calls(stub: ladder_pb2_grpc.LadderServiceStub, lid: str) -> list[Any]:
    return [
        lambda m: stub.GetLadder(ladder_pb2.GetLadderRequest(ladder_id=lid), metadata=m),
        lambda m: stub.GetLeaderboard(ladder_pb2.GetLeaderboardRequest(ladder_id=lid), metadata=m),
        lambda m: stub.GetLeaderboard(ladder_pb2.GetLeaderboardRequest(ladder_id=lid, pooled=True), metadata=m),
        lambda m: stub.ListLadderMatches(ladder_pb2.ListLadderMatchesRequest(ladder_id=lid), metadata=m),
        lambda m: stub.ListLadderGames(ladder_pb2.ListLadderGamesRequest(ladder_id=lid), metadata=m),
        lambda m: stub.StopLadder(ladder_pb2.StopLadderRequest(ladder_id=lid), metadata=m),
        lambda m: stub.PauseLadder(ladder_pb2.StopLadderRequest(ladder_id=lid), metadata=m),
        lambda m: stub.ResumeLadder(ladder_pb2.StopLadderRequest(ladder_id=lid), metadata=m),
        lambda m: stub.StreamLadder(ladder_pb2.StreamLadderRequest(ladder_id=lid), metadata=m).read(),
    ]


@pytest.mark.parametrize("lid", BAD_IDS, ids=["over-long", "very-long", "braces", "space", "non-ascii", "dash"])
async def test_bad_ladder_ids_are_invalid_argument_over_grpc(rt: Runtime, lid: str,
                                                             caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.ERROR)
    meta = [("authorization", f"Bearer {ADMIN}")]
    async with grpc.aio.insecure_channel(rt.target) as ch:
        stub = ladder_pb2_grpc.LadderServiceStub(ch)
        for call in _grpc_calls(stub, lid):
            with pytest.raises(grpc.aio.AioRpcError) as ei:
                await call(meta)
            assert ei.value.code() == grpc.StatusCode.INVALID_ARGUMENT, ei.value.details()
            assert f"1 to {MAX_ID}" in (ei.value.details() or "") and "ladder_id" in (ei.value.details() or "")
    assert not caplog.records  # no traceback


async def test_a_well_formed_unknown_ladder_id_is_not_found(rt: Runtime) -> None:
    meta = [("authorization", f"Bearer {ADMIN}")]
    async with grpc.aio.insecure_channel(rt.target) as ch:
        stub = ladder_pb2_grpc.LadderServiceStub(ch)
        for lid in ("l" + "0" * (MAX_ID - 1), "lffffffffffffffff"):
            for call in _grpc_calls(stub, lid):
                with pytest.raises(grpc.aio.AioRpcError) as ei:
                    await call(meta)
                assert ei.value.code() == grpc.StatusCode.NOT_FOUND


async def test_bad_bot_ids_are_invalid_argument(rt: Runtime) -> None:
    meta = [("authorization", f"Bearer {ADMIN}")]
    async with grpc.aio.insecure_channel(rt.target) as ch:
        stub = ladder_pb2_grpc.LadderServiceStub(ch)
        for bid in ("b" + "0" * MAX_ID, "b{1}"):
            for call in (stub.RevokeBot, stub.RotateBotToken, stub.DeleteBot):
                with pytest.raises(grpc.aio.AioRpcError) as ei:
                    await call(ladder_pb2.BotRequest(bot_id=bid), metadata=meta)
                assert ei.value.code() == grpc.StatusCode.INVALID_ARGUMENT and "bot_id" in (ei.value.details() or "")
            with pytest.raises(grpc.aio.AioRpcError) as ei:
                await stub.StreamAssignments(ladder_pb2.StreamAssignmentsRequest(bot_id=bid),
                                             metadata=[("authorization", f"Bearer {bid}.x")]).read()
            assert ei.value.code() == grpc.StatusCode.INVALID_ARGUMENT


def _http(method: str, url: str) -> tuple[int, dict[str, Any]]:
    req = urllib.request.Request(url, method=method, data=b"{}" if method == "POST" else None,
                                 headers={"Authorization": f"Bearer {ADMIN}", "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return resp.status, json.loads(resp.read().splitlines()[0])
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


@pytest.mark.parametrize("lid", [LONG, "l0{1}", "l 1"], ids=["over-long", "braces", "space"])
async def test_bad_ladder_ids_are_400_over_rest(rt: Runtime, lid: str) -> None:
    base = f"http://127.0.0.1:{rt.http_port}/v1/ladders/{urllib.parse.quote(lid, safe='')}"
    for method, path in (("GET", ""), ("GET", "/leaderboard"), ("GET", "/matches"), ("GET", "/games"),
                         ("GET", "/events"), ("POST", "/stop"), ("POST", "/pause"), ("POST", "/resume")):
        status, body = await asyncio.to_thread(_http, method, base + path)
        assert (status, body["code"]) == (400, "INVALID_ARGUMENT"), (method, path, body)
        assert f"1 to {MAX_ID}" in body["message"]

"""LadderService over REST (the gateway serves it from the proto's annotations) and its admin
rules over gRPC."""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest

from bummerl.app import Runtime
from bummerl.config import Settings
from bummerl_client import AsyncClient, BummerlError


@pytest.fixture
async def rt(redis_url: str) -> AsyncIterator[Runtime]:
    settings = Settings.from_env({}, port=0, http_port=0, metrics_port=0, redis_url=redis_url, admin_token="adm")
    async with Runtime(settings, gateway_port=0) as r:
        yield r


def call(rt: Runtime, method: str, path: str, body: dict[str, Any] | None = None,
         token: str | None = "adm") -> tuple[int, Any]:
    headers = {"content-type": "application/json", **({"authorization": f"Bearer {token}"} if token else {})}
    req = urllib.request.Request(f"http://127.0.0.1:{rt.http_port}{path}", method=method, headers=headers,
                                 data=json.dumps(body).encode() if body is not None else None)
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


async def test_register_bots_and_create_a_ladder_over_rest(rt: Runtime) -> None:
    tag = __import__("os").urandom(3).hex()
    status, a = await asyncio.to_thread(call, rt, "POST", "/v1/bots", {"name": f"rest-a-{tag}"})
    assert status == 200 and a["bot_token"].startswith(a["bot_id"] + ".")
    _, b = await asyncio.to_thread(call, rt, "POST", "/v1/bots", {"name": f"rest-b-{tag}"})
    status, _ = await asyncio.to_thread(call, rt, "POST", "/v1/bots", {"name": f"rest-c-{tag}"}, None)
    assert status == 403
    body = {"name": "r", "variant": "santase", "bot_ids": [a["bot_id"], b["bot_id"]], "rounds": 2,
            "duplicate_deals": True, "deals_per_game": 1, "format": "LADDER_FORMAT_GAUNTLET",
            "time_control": {"base_ms": "5000"}, "timeout_policy": "forfeit-deal"}
    status, lad = await asyncio.to_thread(call, rt, "POST", "/v1/ladders", body)
    assert status == 200 and lad["matches_total"] == 4 and lad["status"] == "LADDER_STATUS_RUNNING"
    assert lad["bot_names"][a["bot_id"]] == f"rest-a-{tag}" and lad["time_control"]["base_ms"] == "5000"
    status, got = await asyncio.to_thread(call, rt, "GET", f"/v1/ladders/{lad['ladder_id']}", None, None)
    assert status == 200 and got["ladder_id"] == lad["ladder_id"]
    status, board = await asyncio.to_thread(call, rt, "GET", f"/v1/ladders/{lad['ladder_id']}/leaderboard", None, None)
    assert status == 200 and len(board["entries"]) == 2
    status, listed = await asyncio.to_thread(call, rt, "GET", "/v1/ladders", None, None)
    assert status == 200 and lad["ladder_id"] in [x["ladder_id"] for x in listed["ladders"]]
    status, err = await asyncio.to_thread(call, rt, "GET", "/v1/ladders/nosuchladder", None, None)
    assert status == 404


async def test_assignment_stream_needs_the_bot_token(rt: Runtime) -> None:
    async with AsyncClient(rt.target) as c:
        bot = await c.register_bot(f"grpc-{__import__('os').urandom(3).hex()}", admin_token="adm")
        with pytest.raises(BummerlError) as e:
            async for _ in c.assignments(bot["bot_id"], "wrong"):
                pass
        assert e.value.code == grpc.StatusCode.UNAUTHENTICATED
        with pytest.raises(BummerlError) as e:
            await c.create_ladder(admin_token="nope", name="x", variant="santase", bot_ids=[bot["bot_id"]])
        assert e.value.code == grpc.StatusCode.PERMISSION_DENIED

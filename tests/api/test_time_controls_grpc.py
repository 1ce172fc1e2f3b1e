"""Time controls and the admin token over gRPC and REST (docs/DESIGN.md §5): what a remote bot sees."""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from collections.abc import AsyncIterator

import grpc
import pytest

from bummerl.app import Runtime
from bummerl.config import Settings
from bummerl.core import TimeControl
from bummerl_client import AsyncClient, BummerlError


@pytest.fixture
async def rt(redis_url: str) -> AsyncIterator[Runtime]:
    settings = Settings.from_env({}, port=0, http_port=0, metrics_port=0, redis_url=redis_url, admin_token="adm1n")
    async with Runtime(settings, gateway_port=0) as r:
        yield r


async def test_create_match_needs_the_admin_token_when_configured(rt: Runtime) -> None:
    async with AsyncClient(rt.target) as client:
        for token in (None, "wrong"):
            with pytest.raises(BummerlError) as e:
                await client.create_match("schnapsen-at", seed=3, admin_token=token)
            assert e.value.code == grpc.StatusCode.PERMISSION_DENIED
        created = await client.create_match("schnapsen-at", admin_token="adm1n")
        assert created.match_id


async def test_time_control_is_echoed_and_clocks_are_sent_over_grpc_and_rest(rt: Runtime) -> None:
    tc = TimeControl.parse("30+0.5,move=10,scope=deal").to_dict()
    async with AsyncClient(rt.target) as client:
        created = await client.create_match("santase", time_control=tc, timeout_policy="forfeit-deal",
                                            admin_token="adm1n")
        assert int(created.summary["time_control"]["base_ms"]) == 30_000
        assert created.summary["time_control"]["scope"] in ("deal", "TIME_CONTROL_SCOPE_DEAL")
        assert created.summary["timeout_policy"] == "forfeit-deal"
        info = await client.information_set(created.match_id, 0, created.tokens[0])
        clocks = info["clocks"]
        assert [c["seat"] for c in clocks] == [0, 1]
        running = [c for c in clocks if c.get("running")]
        assert len(running) == 1 and 0 < int(running[0]["move_remaining_ms"]) <= 10_000
        assert int(info["time_control"]["increment_ms"]) == 500
        record = await client.match_record(created.match_id)
        assert record["timeout_policy"] == "forfeit-deal" and int(record["time_control"]["move_cap_ms"]) == 10_000
    url = f"http://127.0.0.1:{rt.http_port}/v1/matches/{created.match_id}/seats/0/information-set"
    req = urllib.request.Request(url, headers={"authorization": f"Bearer {created.tokens[0]}"})
    body = json.loads(await asyncio.to_thread(lambda: urllib.request.urlopen(req, timeout=10).read()))
    assert len(body["clocks"]) == 2 and body["time_control"]["base_ms"] == "30000"


async def test_rest_create_match_with_time_control_and_bad_policy(rt: Runtime) -> None:
    base = f"http://127.0.0.1:{rt.http_port}/v1/matches"

    def post(body: dict[str, object], token: str | None = "adm1n") -> tuple[int, dict[str, object]]:
        headers = {"content-type": "application/json", **({"authorization": f"Bearer {token}"} if token else {})}
        req = urllib.request.Request(base, data=json.dumps(body).encode(), headers=headers, method="POST")
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                return r.status, json.loads(r.read())
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read())

    status, body = await asyncio.to_thread(
        post, {"variant": "schnapsen-at", "time_control": {"base_ms": "5000", "increment_ms": "100"}})
    assert status == 200 and body["summary"]["time_control"]["base_ms"] == "5000"  # type: ignore[index]
    status, body = await asyncio.to_thread(
        post, {"variant": "schnapsen-at", "time_control": {"base_ms": "5000"}, "timeout_policy": "nap"})
    assert status == 400 and "timeout_policy" in json.dumps(body)
    status, _ = await asyncio.to_thread(post, {"variant": "schnapsen-at"}, None)
    assert status == 403

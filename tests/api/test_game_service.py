"""GameService over real gRPC against a real (embedded) Valkey: every error case of the API,
each checked to leave the stored match unchanged, plus retries, streams, resign and records."""

from __future__ import annotations

import asyncio
import json
import urllib.request
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from bummerl.app import Runtime
from bummerl.rules import MatchState, find_variant, information_set
from bummerl_client import AsyncClient, BummerlError


@pytest.fixture
async def client(rt: Runtime) -> AsyncIterator[AsyncClient]:
    async with AsyncClient(rt.target) as c:
        yield c


async def stored(rt: Runtime, match_id: str) -> tuple[int, bytes, dict[str, Any], int]:
    """(version, state blob, meta, stream length) exactly as Redis holds them."""
    assert rt.store is not None
    m = await rt.store.load(match_id)
    assert m is not None
    n = len(await rt.store.events_since(match_id, 0))
    return m.version, m.state, m.meta, n


async def expect_error(coro: Any, code: grpc.StatusCode) -> BummerlError:
    with pytest.raises(BummerlError) as ei:
        await coro
    assert ei.value.code == code, ei.value
    return ei.value


async def test_create_match_and_information_set_hide_the_opponent_hand(client: AsyncClient, rt: Runtime) -> None:
    cm = await client.create_match("schnapsen-at", seed=11)
    assert len(cm.tokens) == 2 and cm.tokens[0] != cm.tokens[1]
    i0 = await client.information_set(cm.match_id, 0, cm.tokens[0])
    i1 = await client.information_set(cm.match_id, 1, cm.tokens[1])
    assert int(i0["version"]) == 1 and i0["variant"] == "schnapsen-at"
    assert len(i0["deal"]["hand"]) == 5 and set(i0["deal"]["hand"]).isdisjoint(i1["deal"]["hand"])
    raw0 = json.dumps(i0)
    for card in i1["deal"]["hand"]:  # seat 1's cards appear nowhere in seat 0's view
        assert f'"{card}"' not in raw0
    # the served information set is the engine's (same seed -> same cards)
    ref = MatchState(find_variant("schnapsen-at").configure({}), 11)
    assert i0["deal"]["hand"] == information_set(ref, 0)["deal"]["hand"]


async def test_list_variants_reports_options_with_rule_ids(client: AsyncClient) -> None:
    vs = {v["id"]: v for v in await client.list_variants()}
    assert {"schnapsen-at", "snaps-original66"} <= set(vs)
    assert "sixty-six" in vs["snaps-original66"]["aliases"]
    opts = {o["name"]: o for o in vs["schnapsen-at"]["options"]}
    assert opts["exchange_min_talon"]["default_value"] == "4"
    assert "OPEN-AT-2" in opts["exchange_min_talon"]["rule_ids"]
    assert len(vs["snaps-original66"]["deck"]) == 24 and vs["schnapsen-at"]["deck"][0]["local_names"]["de"]
    # the language of each variant's own card names comes from its spec (the web page reads it)
    assert {v: vs[v]["card_language"] for v in ("schnapsen-at", "snapszer-hu-4p", "santase", "snaps-obican")} == {
        "schnapsen-at": "de", "snapszer-hu-4p": "hu", "santase": "bg", "snaps-obican": "hr"}
    assert all(vs[v]["card_language"] in vs[v]["deck"][0]["local_names"] for v in vs)


@pytest.mark.parametrize(
    ("variant", "options", "needle"),
    [
        ("no-such-game", {}, "no-such-game"),
        ("schnapsen-at", {"no_such_option": "1"}, "no_such_option"),
        ("schnapsen-at", {"close_min_talon": "5"}, "close_min_talon"),
        ("schnapsen-at", {"auto_declare": "maybe"}, "auto_declare"),
    ],
)
async def test_create_match_rejects_bad_variant_or_option(client: AsyncClient, variant: str, options: dict[str, str], needle: str) -> None:
    err = await expect_error(client.create_match(variant, options), grpc.StatusCode.INVALID_ARGUMENT)
    assert needle in err.details


async def test_create_match_rejects_wrong_seat_count(client: AsyncClient) -> None:
    await expect_error(client.create_match("schnapsen-at", seats=["a", "b", "c"]), grpc.StatusCode.INVALID_ARGUMENT)


async def test_illegal_action_is_failed_precondition_and_changes_nothing(client: AsyncClient, rt: Runtime) -> None:
    cm = await client.create_match("schnapsen-at", seed=5)
    info = await client.information_set(cm.match_id, 0, cm.tokens[0])
    seat = int(info["deal"]["to_act"])
    info = await client.information_set(cm.match_id, seat, cm.tokens[seat])
    other = await client.information_set(cm.match_id, 1 - seat, cm.tokens[1 - seat])
    before = await stored(rt, cm.match_id)
    not_mine = f"play {other['deal']['hand'][0]}"
    await expect_error(client.submit_action(cm.match_id, seat, cm.tokens[seat], 1, not_mine), grpc.StatusCode.FAILED_PRECONDITION)
    # the seat not to act: also FAILED_PRECONDITION
    await expect_error(
        client.submit_action(cm.match_id, 1 - seat, cm.tokens[1 - seat], 1, f"play {other['deal']['hand'][0]}"),
        grpc.StatusCode.FAILED_PRECONDITION,
    )
    assert await stored(rt, cm.match_id) == before


async def test_malformed_actions_are_invalid_argument_and_change_nothing(client: AsyncClient, rt: Runtime) -> None:
    cm = await client.create_match("schnapsen-at", seed=5)
    seat = int((await client.information_set(cm.match_id, 0, cm.tokens[0]))["deal"]["to_act"])
    before = await stored(rt, cm.match_id)
    for bad in ("play ZZ", "dance", 999):
        await expect_error(client.submit_action(cm.match_id, seat, cm.tokens[seat], 1, bad), grpc.StatusCode.INVALID_ARGUMENT)
    await expect_error(client.information_set(cm.match_id, 7, cm.tokens[0]), grpc.StatusCode.INVALID_ARGUMENT)
    assert await stored(rt, cm.match_id) == before


async def test_tokens_unauthenticated_and_permission_denied(client: AsyncClient, rt: Runtime) -> None:
    cm = await client.create_match("schnapsen-at", seed=5)
    seat = int((await client.information_set(cm.match_id, 0, cm.tokens[0]))["deal"]["to_act"])
    info = await client.information_set(cm.match_id, seat, cm.tokens[seat])
    a = info["legal_actions"][0]["id"]
    before = await stored(rt, cm.match_id)
    await expect_error(client.submit_action(cm.match_id, seat, "", 1, a), grpc.StatusCode.UNAUTHENTICATED)
    await expect_error(client.submit_action(cm.match_id, seat, "not-a-token", 1, a), grpc.StatusCode.UNAUTHENTICATED)
    await expect_error(client.submit_action(cm.match_id, seat, cm.tokens[1 - seat], 1, a), grpc.StatusCode.PERMISSION_DENIED)
    await expect_error(client.information_set(cm.match_id, 1 - seat, cm.tokens[seat]), grpc.StatusCode.PERMISSION_DENIED)
    assert await stored(rt, cm.match_id) == before
    # tokens are stored hashed only
    assert all(t not in json.dumps(before[2]) for t in cm.tokens)


async def test_unknown_match_is_not_found(client: AsyncClient) -> None:
    await expect_error(client.information_set("ffffffffffffffffffffffff", 0, "x"), grpc.StatusCode.NOT_FOUND)
    await expect_error(client.match_record("ffffffffffffffffffffffff"), grpc.StatusCode.NOT_FOUND)


async def test_stale_version_is_aborted_with_current_version_and_retry_is_not_applied_twice(client: AsyncClient, rt: Runtime) -> None:
    cm = await client.create_match("schnapsen-at", seed=9)
    seat = int((await client.information_set(cm.match_id, 0, cm.tokens[0]))["deal"]["to_act"])
    info = await client.information_set(cm.match_id, seat, cm.tokens[seat])
    a = next(x["id"] for x in info["legal_actions"] if x["kind"] == "play")
    r1 = await client.submit_action(cm.match_id, seat, cm.tokens[seat], 1, a)
    assert int(r1["version"]) == 2 and not r1["duplicate"]
    assert any("card_played" in e for e in r1["events"])
    after_first = await stored(rt, cm.match_id)
    r2 = await client.submit_action(cm.match_id, seat, cm.tokens[seat], 1, a)  # the same request again
    assert r2["duplicate"] and int(r2["version"]) == 2
    assert await stored(rt, cm.match_id) == after_first
    other = await client.information_set(cm.match_id, 1 - seat, cm.tokens[1 - seat])
    b = other["legal_actions"][0]["id"]
    err = await expect_error(client.submit_action(cm.match_id, 1 - seat, cm.tokens[1 - seat], 1, b), grpc.StatusCode.ABORTED)
    assert err.current_version == 2 and "2" in err.details
    assert await stored(rt, cm.match_id) == after_first


async def play_out(client: AsyncClient, match_id: str, tokens: list[str], limit: int = 2000) -> dict[str, Any]:
    info: dict[str, Any] = {}
    for _ in range(limit):
        info = await client.information_set(match_id, 0, tokens[0])
        if info["match"]["over"]:
            return info
        s = int(info["deal"]["to_act"])
        mine = await client.information_set(match_id, s, tokens[s])
        await client.submit_action(match_id, s, tokens[s], int(mine["version"]), mine["legal_actions"][0]["id"])
    raise AssertionError("match did not end")


async def test_record_hides_seed_and_decks_until_the_match_is_over(client: AsyncClient, rt: Runtime) -> None:
    cm = await client.create_match("schnapsen-at", seed=21, options={"match_target": "2"})
    rec = await client.match_record(cm.match_id)
    assert "seed" not in rec or rec.get("seed") in (None, "0", 0)
    assert all(not d["deck_order"] for d in rec["deals"])
    final = await play_out(client, cm.match_id, cm.tokens)
    rec = await client.match_record(cm.match_id)
    assert rec["over"] and int(rec["seed"]) == 21
    assert all(len(d["deck_order"]) == 20 for d in rec["deals"])
    assert len(rec["actions"]) == int(final["version"]) - 1
    assert [int(a["version"]) for a in rec["actions"]] == list(range(2, int(final["version"]) + 1))
    # actions after the end: FAILED_PRECONDITION, nothing changes
    before = await stored(rt, cm.match_id)
    await expect_error(client.submit_action(cm.match_id, 0, cm.tokens[0], int(final["version"]), 0), grpc.StatusCode.FAILED_PRECONDITION)
    await expect_error(client.resign(cm.match_id, 0, cm.tokens[0]), grpc.StatusCode.FAILED_PRECONDITION)
    assert await stored(rt, cm.match_id) == before


async def test_resign_ends_the_match_for_the_other_seat(client: AsyncClient) -> None:
    cm = await client.create_match("snaps-original66", seed=3)
    r = await client.resign(cm.match_id, 1, cm.tokens[1])
    assert int(r["match_result"]["winner"]) == 0 and r["match_result"]["reason"] == "resigned"
    info = await client.information_set(cm.match_id, 0, cm.tokens[0])
    assert info["match"]["over"] and not info["legal_actions"]


async def test_stream_starts_with_snapshot_and_delivers_each_version(client: AsyncClient) -> None:
    cm = await client.create_match("schnapsen-at", seed=8)
    seen: list[dict[str, Any]] = []

    async def watch() -> None:
        async for upd in client.stream(cm.match_id, 0, cm.tokens[0], from_version=0):
            seen.append(upd)
            if len(seen) == 3:
                return

    task = asyncio.create_task(watch())
    await asyncio.sleep(0.2)
    for _ in range(2):
        s = int((await client.information_set(cm.match_id, 0, cm.tokens[0]))["deal"]["to_act"])
        info = await client.information_set(cm.match_id, s, cm.tokens[s])
        a = next(x["id"] for x in info["legal_actions"] if x["kind"] == "play")
        await client.submit_action(cm.match_id, s, cm.tokens[s], int(info["version"]), a)
    await asyncio.wait_for(task, 10)
    assert [int(u["version"]) for u in seen] == [1, 2, 3]
    assert any("deal_started" in e for e in seen[0]["events"])  # snapshot from version 0
    assert all(int(e["version"]) == 2 for e in seen[1]["events"]) and seen[1]["events"]
    # resuming from version 2 replays only what came after
    async for upd in client.stream(cm.match_id, 0, cm.tokens[0], from_version=2):
        assert int(upd["version"]) == 3 and all(int(e["version"]) == 3 for e in upd["events"])
        break


async def test_health_service_reports_serving(rt: Runtime) -> None:
    async with grpc.aio.insecure_channel(rt.target) as ch:
        resp = await health_pb2_grpc.HealthStub(ch).Check(health_pb2.HealthCheckRequest(service="bummerl.v1.GameService"))
    assert resp.status == health_pb2.HealthCheckResponse.SERVING


async def test_rest_gateway_plays_the_same_api(rt: Runtime) -> None:
    base = f"http://127.0.0.1:{rt.http_port}"

    def call(method: str, path: str, body: dict[str, Any] | None = None, token: str | None = None) -> tuple[int, Any]:
        req = urllib.request.Request(base + path, method=method, data=json.dumps(body).encode() if body is not None else None)
        req.add_header("Content-Type", "application/json")
        if token:
            req.add_header("Authorization", f"Bearer {token}")
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                return r.status, json.loads(r.read())
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read())

    status, created = await asyncio.to_thread(call, "POST", "/v1/matches", {"variant": "sixty-six", "seed": "4"})
    assert status == 200 and created["summary"]["variant"] == "snaps-original66"
    mid = created["match_id"]
    tokens = {t["seat"]: t["token"] for t in created["seat_tokens"]}
    status, info = await asyncio.to_thread(call, "GET", f"/v1/matches/{mid}/seats/0/information-set", None, tokens.get(0))
    assert status == 200 and len(info["deal"]["hand"]) == 6
    seat = int(info["deal"]["to_act"])
    status, mine = await asyncio.to_thread(call, "GET", f"/v1/matches/{mid}/seats/{seat}/information-set", None, tokens.get(seat))
    action = mine["legal_actions"][0]["text"]
    status, res = await asyncio.to_thread(
        call, "POST", f"/v1/matches/{mid}/seats/{seat}/actions", {"expected_version": "1", "action_text": action}, tokens.get(seat)
    )
    assert status == 200 and int(res["version"]) == 2
    status, err = await asyncio.to_thread(
        call, "POST", f"/v1/matches/{mid}/seats/{seat}/actions", {"expected_version": "1", "action_text": "close"}, tokens.get(seat)
    )
    assert status == 409 and err["code"] == "ABORTED"
    status, err = await asyncio.to_thread(call, "GET", f"/v1/matches/{mid}/seats/0/information-set")
    assert status == 401


async def test_stream_loses_no_event_when_actions_come_fast(client: AsyncClient) -> None:
    """Every committed version's events reach the stream exactly once, in order, even when
    several commits land while the stream is between reads."""
    cm = await client.create_match("schnapsen-at", seed=31, options={"match_target": 2})
    versions: list[int] = []
    final: dict[str, Any] = {}

    async def watch() -> None:
        nonlocal final
        async for upd in client.stream(cm.match_id, 1, cm.tokens[1], from_version=0):
            versions.extend(int(e["version"]) for e in upd["events"])
            final = upd
            if upd["information_set"]["match"]["over"]:
                return

    task = asyncio.create_task(watch())
    await play_out(client, cm.match_id, cm.tokens)
    await asyncio.wait_for(task, 20)
    last = int(final["version"])
    assert sorted(set(versions)) == list(range(1, last + 1))
    assert versions == sorted(versions)

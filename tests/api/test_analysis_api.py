"""GetMatchAnalysis (issue 39) over real gRPC and REST: gated like the replay (a running match, a
ladder game whose duplicate set is not over: FAILED_PRECONDITION), "pending" with a retry hint
while one server computes it, then "done" with every decision valued as the core's analysis values
it; computed once per match however many callers (and replicas) ask at once."""

from __future__ import annotations

import asyncio
import json
import random
import threading
import urllib.error
import urllib.request
from collections import Counter
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest

from bummerl.api import codec
from bummerl.app import Runtime
from bummerl.config import Settings
from bummerl.core.analysis import AnalysisSettings, analyse_log, timed_values
from bummerl.core.analysis_store import Analyses, cache_key
from bummerl.v1 import game_pb2, game_pb2_grpc

ADMIN = "analysis-admin"
FAST = AnalysisSettings(samples=4, budget_ms=0, seed=3)


@pytest.fixture
async def rt(redis_url: str) -> AsyncIterator[Runtime]:
    settings = Settings.from_env({}, port=0, http_port=0, metrics_port=0, redis_url=redis_url, admin_token=ADMIN,
                                 house_workers=0)
    async with Runtime(settings, gateway_port=0) as runtime:
        yield runtime


class Gate:
    """A valuation of one decision (thread mode) that counts its calls by decision seed (one seed
    per version) and waits until opened."""

    def __init__(self) -> None:
        self.open = threading.Event()
        self.seeds: Counter[int] = Counter()
        self.lock = threading.Lock()

    @property
    def calls(self) -> int:
        return sum(self.seeds.values())

    def __call__(self, info: dict[str, Any], settings: AnalysisSettings, seed: int) -> tuple[Any, float]:
        with self.lock:
            self.seeds[seed] += 1
        assert self.open.wait(30)
        return timed_values(info, settings, seed)


def analyses(rt: Runtime, gate: Gate) -> Analyses:
    assert rt.spectators is not None
    a = Analyses.of(rt.spectators)
    a.workers, a.settings, a.value_fn = 0, FAST, gate
    return a


async def new_match(rt: Runtime, seed: int, ladder_id: str = "") -> tuple[str, list[str]]:
    assert rt.service is not None
    created = await rt.service.create_match("schnapsen-at", seat_names=["alice", "bob"], seed=seed, trusted=True,
                                            ladder_id=ladder_id)
    return created.match_id, list(created.tokens)


async def finish(rt: Runtime, mid: str, tokens: list[str], seed: int = 1) -> None:
    """Play the match to its end in the process (random legal actions)."""
    svc, rng = rt.service, random.Random(seed)
    assert svc is not None
    while True:
        info = await svc.information_set(mid, 0, tokens[0])
        if info["match"]["over"]:
            return
        seat = info["deal"]["to_act"]
        info = await svc.information_set(mid, seat, tokens[seat])
        await svc.submit_action(mid, seat, tokens[seat], info["version"], rng.choice(info["legal_actions"])["id"])


def rest(rt: Runtime, mid: str) -> tuple[int, dict[str, Any], dict[str, str]]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{rt.http_port}/v1/matches/{mid}/analysis", timeout=10) as r:
            return r.status, json.loads(r.read()), dict(r.headers)
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"{}"), dict(e.headers)


async def test_pending_then_done_over_grpc_and_rest(rt: Runtime) -> None:
    gate = Gate()
    an = analyses(rt, gate)
    mid, tokens = await new_match(rt, 7)
    async with grpc.aio.insecure_channel(rt.target) as ch:
        stub = game_pb2_grpc.GameServiceStub(ch)
        req = game_pb2.GetMatchAnalysisRequest(match_id=mid)
        with pytest.raises(grpc.aio.AioRpcError) as ei:  # a running match: nothing computed, nothing leaked
            await stub.GetMatchAnalysis(req)
        assert ei.value.code() == grpc.StatusCode.FAILED_PRECONDITION and "not over" in (ei.value.details() or "")
        status, body, _ = await asyncio.to_thread(rest, rt, mid)
        assert status == 409 and body["reason"] == "REPLAY_NOT_AVAILABLE"
        await finish(rt, mid, tokens)

        call = stub.GetMatchAnalysis(req)
        got = await call
        assert got.state == "pending" and got.retry_after_ms > 0 and not got.decisions
        assert ("bummerl-retry-after-ms", str(got.retry_after_ms)) in list(await call.trailing_metadata())
        status, body, headers = await asyncio.to_thread(rest, rt, mid)
        assert status == 200 and body["state"] == "pending" and body["retry_after_ms"] == str(got.retry_after_ms)
        assert headers.get("bummerl-retry-after-ms") == str(got.retry_after_ms)

        gate.open.set()
        await an.wait_idle()
        done = await stub.GetMatchAnalysis(req)
    assert an.computed == 1 and set(gate.seeds.values()) == {1}  # each decision valued once
    assert done.state == "done" and done.retry_after_ms == 0 and done.match_id == mid
    assert [s.name for s in done.seats] == ["alice", "bob"]
    assert done.settings.samples == FAST.samples and done.settings.blunder > done.settings.mistake > 0
    # the same values as the core's analysis of the stored match
    assert rt.service is not None
    ld = await rt.service._load(mid)
    ref = analyse_log(ld.state.to_dict(actions=False), 2, ld.entries, FAST)
    assert [d.version for d in done.decisions] == [d["version"] for d in ref["decisions"]]
    valued = [d for d in done.decisions if d.valued]
    assert valued and all(d.legal_actions >= 2 for d in valued)
    for d, r in zip(done.decisions, ref["decisions"], strict=True):
        assert d.action_id == r["action"] and d.seat == r["seat"] and d.phase == r["phase"]
        if d.valued:
            values = {v.action_id: v.value for v in d.values}
            assert values == {int(a): x for a, x in r["values"].items()} and len(values) == d.legal_actions
            assert [v.value for v in d.values] == sorted(values.values(), reverse=True)  # best first
            assert d.best_action_id == d.values[0].action_id or values[d.best_action_id] == d.values[0].value
            assert abs(d.loss - (d.values[0].value - values[d.action_id])) < 1e-3
            assert d.action_text and all(v.action_text for v in d.values)
        else:
            assert not d.values and d.best_action_id == -1 and d.loss == 0 and d.kind == ""
    for s in done.seats:
        mine = [d for d in valued if d.seat == s.seat]
        assert s.decisions == len(mine) and abs(s.total_loss - sum(d.loss for d in mine)) < 1e-2
        assert [p.phase for p in s.phases] == ["talon_open", "talon_closed", "endgame"]
        assert sum(p.inaccuracies + p.mistakes + p.blunders for p in s.phases) == sum(1 for d in mine if d.kind)
    status, body, _ = await asyncio.to_thread(rest, rt, mid)
    assert status == 200 and body["state"] == "done" and body["retry_after_ms"] == "0" and body["match_id"] == mid
    assert [(d["version"], d["action_id"], d["loss"], d["kind"]) for d in body["decisions"]] == \
        [(str(d.version), d.action_id, d.loss, d.kind) for d in done.decisions]
    assert body["seats"] == codec.pb_to_dict(done)["seats"]
    # cached with the match's retention
    ttl = await rt.service.store.client.pttl(cache_key(mid))
    assert ttl > 0 and abs(ttl - await rt.service.store.client.pttl(rt.service.store.layout.state_key(mid))) < 60_000


async def test_computed_once_under_concurrent_callers_and_replicas(rt: Runtime) -> None:
    """Twelve callers at once, over gRPC, REST and a second replica's Analyses on the same Redis:
    one computation (counted by the compute function itself and by each replica), the same answer."""
    gate = Gate()
    an = analyses(rt, gate)
    assert rt.spectators is not None
    other = Analyses(rt.spectators, FAST, workers=0, value_fn=gate)  # another replica's, same Redis
    mid, tokens = await new_match(rt, 9)
    await finish(rt, mid, tokens, seed=4)
    async with grpc.aio.insecure_channel(rt.target) as ch:
        stub = game_pb2_grpc.GameServiceStub(ch)
        req = game_pb2.GetMatchAnalysisRequest(match_id=mid)
        first = await asyncio.gather(*(stub.GetMatchAnalysis(req) for _ in range(4)),
                                     *(asyncio.to_thread(rest, rt, mid) for _ in range(4)),
                                     *(other.get(mid, None) for _ in range(4)))
        assert {f.state if hasattr(f, "state") else f[1]["state"] if isinstance(f, tuple) else f["state"]
                for f in first} == {"pending"}
        gate.open.set()
        await an.wait_idle()
        await other.wait_idle()
        again = await asyncio.gather(*(stub.GetMatchAnalysis(req) for _ in range(3)), other.get(mid, None))
    assert an.computed + other.computed == 1 and set(gate.seeds.values()) == {1}
    assert all(a.state == "done" for a in again[:3]) and again[3]["state"] == "done"
    assert again[0] == again[1] and len(again[3]["decisions"]) == len(again[0].decisions)


async def test_a_ladder_game_waits_for_its_duplicate_set(rt: Runtime) -> None:
    """A finished ladder game whose set is not over: FAILED_PRECONDITION for anyone, over gRPC and
    REST, and nothing is computed (the analysis names the cards played: hidden cards of the set's
    other games). The admin may have it (as the replay)."""
    gate = Gate()
    gate.open.set()
    an = analyses(rt, gate)
    mid, tokens = await new_match(rt, 5, ladder_id="l0123456789abcdef")
    await finish(rt, mid, tokens)
    async with grpc.aio.insecure_channel(rt.target) as ch:
        stub = game_pb2_grpc.GameServiceStub(ch)
        for token in (None, tokens[0]):
            with pytest.raises(grpc.aio.AioRpcError) as ei:
                await stub.GetMatchAnalysis(game_pb2.GetMatchAnalysisRequest(match_id=mid),
                                            metadata=[("authorization", f"Bearer {token}")] if token else None)
            assert ei.value.code() == grpc.StatusCode.FAILED_PRECONDITION
            assert "duplicate set" in (ei.value.details() or "")
        status, body, _ = await asyncio.to_thread(rest, rt, mid)
        assert status == 409 and "duplicate set" in body["message"]
        assert gate.calls == 0 and an.computed == 0
        got = await stub.GetMatchAnalysis(game_pb2.GetMatchAnalysisRequest(match_id=mid),
                                          metadata=[("authorization", f"Bearer {ADMIN}")])
        assert got.state == "pending"
        await an.wait_idle()
        assert an.computed == 1 and gate.calls > 0


async def test_unknown_and_malformed_ids(rt: Runtime) -> None:
    async with grpc.aio.insecure_channel(rt.target) as ch:
        stub = game_pb2_grpc.GameServiceStub(ch)
        for mid, code in (("nosuchmatch0", grpc.StatusCode.NOT_FOUND), ("bad-id!", grpc.StatusCode.INVALID_ARGUMENT)):
            with pytest.raises(grpc.aio.AioRpcError) as ei:
                await stub.GetMatchAnalysis(game_pb2.GetMatchAnalysisRequest(match_id=mid))
            assert ei.value.code() == code


async def test_bummerl_match_analyse_json_and_table(rt: Runtime, capsys: Any) -> None:
    """``bummerl match analyse ID --json``: pending (exit 75) at once; with ``--wait`` the done
    analysis, the same as the SDK's; without ``--json`` the per-seat table and the worst decisions."""
    from bummerl_cli.main import main
    from bummerl_client import AsyncClient

    gate = Gate()
    an = analyses(rt, gate)
    mid, tokens = await new_match(rt, 12)
    await finish(rt, mid, tokens, seed=8)

    async def cli(*argv: str) -> tuple[int, str]:
        capsys.readouterr()
        code = await asyncio.to_thread(main, ["match", "analyse", mid, "--server", rt.target, *argv])
        return code, capsys.readouterr().out

    code, out = await cli("--json")
    assert code == 75 and json.loads(out)["state"] == "pending"
    threading.Timer(0.3, gate.open.set).start()
    code, out = await cli("--json", "--wait", "30")
    got = json.loads(out)
    assert code == 0 and got["state"] == "done" and an.computed == 1
    async with AsyncClient(rt.target) as c:
        assert await c.analysis(mid) == got
    code, out = await cli("--worst", "3")
    assert code == 0 and "alice" in out and "bob" in out and "Worst 3 decisions" in out and "mean loss" in out


async def test_the_default_path_a_worker_process(rt: Runtime) -> None:
    """The server's own path: each decision valued in a spawned worker process (lower priority);
    the answer is the core's analysis of the match."""
    assert rt.spectators is not None and rt.service is not None
    an = Analyses.of(rt.spectators)
    an.settings = FAST
    assert an.workers == 1
    mid, tokens = await new_match(rt, 21)
    await finish(rt, mid, tokens, seed=6)
    try:
        assert (await an.get(mid, None))["state"] == "pending"
        await asyncio.wait_for(an.wait_idle(), 120)
        got = await an.get(mid, None)
    finally:
        await an.close()
    ld = await rt.service._load(mid)
    ref = analyse_log(ld.state.to_dict(actions=False), 2, ld.entries, FAST)
    assert got["state"] == "done" and got["cpu_ms"] > 0
    assert [(d["version"], d["loss"]) for d in got["decisions"]] == \
        [(r["version"], r.get("loss", 0.0)) for r in ref["decisions"]]


async def test_a_token_match_is_analysed_for_its_tokens_only(rt: Runtime) -> None:
    """A match watched by token only: without its token (none, a wrong one) the call is denied and
    nothing is computed, as its replay; its watch token gets the analysis."""
    from bummerl.core.spectate import new_watch

    an = analyses(rt, Gate())
    an.value_fn = timed_values
    assert rt.service is not None
    meta, watch_token = new_watch("token")
    created = await rt.service.create_match("schnapsen-at", seat_names=["a", "b"], seed=3, trusted=True,
                                            watch_meta=meta)
    await finish(rt, created.match_id, list(created.tokens))
    async with grpc.aio.insecure_channel(rt.target) as ch:
        stub = game_pb2_grpc.GameServiceStub(ch)
        req = game_pb2.GetMatchAnalysisRequest(match_id=created.match_id)
        for token in (None, "wrong"):
            with pytest.raises(grpc.aio.AioRpcError) as ei:
                await stub.GetMatchAnalysis(req, metadata=[("authorization", f"Bearer {token}")] if token else None)
            assert ei.value.code() in (grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.PERMISSION_DENIED)
        assert an.computed == 0
        got = await stub.GetMatchAnalysis(req, metadata=[("authorization", f"Bearer {watch_token}")])
        assert got.state == "pending"
        await an.wait_idle()
        got = await stub.GetMatchAnalysis(req, metadata=[("authorization", f"Bearer {watch_token}")])
        assert got.state == "done" and got.decisions

"""WatchMatch and GetMatchReplay over real gRPC and REST against the embedded Valkey: spectators see
the engine's public view (docs/RULES.md §14.3) at every version, the watch settings (token
access, delay) are enforced, and the full replay is served only once the match is over."""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest

from bummerl.api import codec
from bummerl.app import Runtime
from bummerl.bots import make_bot
from bummerl.config import Settings
from bummerl.core.spectate import replay_public, state_at
from bummerl.rules import MatchState, find_variant, public_view
from bummerl.v1 import game_pb2, game_pb2_grpc
from bummerl_client import AsyncClient, play_seat


@pytest.fixture
async def rt(redis_url: str) -> AsyncIterator[Runtime]:
    """The server with house-bot decisions in a thread (no decision process to spawn per test)."""
    settings = Settings.from_env({}, port=0, http_port=0, metrics_port=0, redis_url=redis_url, house_workers=0)
    async with Runtime(settings, gateway_port=0) as runtime:
        yield runtime


def _log_state(variant: str, seed: int, actions: list[dict[str, Any]], upto: int) -> MatchState:
    """The engine's match replayed from the record's first ``upto`` card actions."""
    m = MatchState(find_variant(variant).configure({}), seed)
    for a in actions[:upto]:
        if int(a["action_id"]) >= 0:
            m.apply(int(a["action_id"]))
    return m


def _view_dict(pb: Any) -> dict[str, Any]:
    d = codec.information_set_to_dict(pb)
    for k in ("match_id", "version"):
        d.pop(k, None)
    return d


async def _create(stub: Any, variant: str = "schnapsen-at", seed: int = 5, **watch: Any) -> game_pb2.CreateMatchResponse:
    req = game_pb2.CreateMatchRequest(variant=variant, seed=seed,
                                      seats=[game_pb2.SeatSpec(name=f"bot{i}") for i in range(2)])
    if watch:
        req.watch.CopyFrom(game_pb2.WatchSettings(**watch))
    return await stub.CreateMatch(req)


async def _play(rt: Runtime, created: Any, bots: tuple[str, str] = ("greedy", "random")) -> None:
    async with AsyncClient(rt.target) as client:
        await asyncio.gather(*(play_seat(client, created.match_id, s, created.seat_tokens[s].token, make_bot(b, seed=s))
                               for s, b in enumerate(bots)))


async def test_watch_follows_a_bot_match_with_the_engine_public_view(rt: Runtime) -> None:
    """A spectator of a live bot match gets one update per version to the end; each shows the
    engine's public_view of that version (so never a hidden card: the engine is tested for that,
    tests/rules/spectator.py), and the last one the record's final score."""
    async with grpc.aio.insecure_channel(rt.target) as ch:
        stub = game_pb2_grpc.GameServiceStub(ch)
        created = await _create(stub, seed=21)
        frames: list[game_pb2.WatchUpdate] = []

        async def watch() -> None:
            async for u in stub.WatchMatch(game_pb2.WatchMatchRequest(match_id=created.match_id)):
                frames.append(u)

        watcher = asyncio.create_task(watch())
        await asyncio.sleep(0.05)
        await _play(rt, created)
        await asyncio.wait_for(watcher, 10)
        rec = await stub.GetMatchRecord(game_pb2.GetMatchRecordRequest(match_id=created.match_id))
    assert frames[0].summary.seats[0].name == "bot0" and frames[0].summary.watch.access == "public"
    versions = [f.version for f in frames]
    assert versions == sorted(set(versions)) and versions[-1] == rec.version
    events = [e for f in frames for e in f.events]
    assert [e.version for e in events] == sorted(e.version for e in events) and events[0].version == 1
    actions = [codec.pb_to_dict(a) for a in rec.actions]
    for f in frames:
        assert f.public_view.seat == -1 and not f.public_view.deal.hand and not f.public_view.legal_actions
        ref = _log_state("schnapsen-at", rec.seed, actions, f.version - 1)
        assert _view_dict(f.public_view) == public_view(ref)
    last = frames[-1].public_view
    assert last.match.over and list(last.match.game_points) == list(rec.match_result.game_points)


async def test_watch_token_access_and_delay(rt: Runtime) -> None:
    """access "token": no token -> UNAUTHENTICATED, a foreign one -> PERMISSION_DENIED; the watch
    token or a seat token may watch; a delay of N moves shows version max(1, v - N) until the
    end, then the last version; the frame's summary is of the version shown."""
    async with grpc.aio.insecure_channel(rt.target) as ch:
        stub = game_pb2_grpc.GameServiceStub(ch)
        created = await _create(stub, seed=3, access="token", delay_moves=3)
        assert len(created.watch_token) == 64 and created.summary.watch.delay_moves == 3
        req = game_pb2.WatchMatchRequest(match_id=created.match_id)

        async def first(token: str | None) -> game_pb2.WatchUpdate:
            call = stub.WatchMatch(req, metadata=[("authorization", f"Bearer {token}")] if token else None)
            try:
                async for u in call:
                    return u
            finally:
                call.cancel()
            raise AssertionError("no update")

        for token, code in ((None, grpc.StatusCode.UNAUTHENTICATED), ("f" * 64, grpc.StatusCode.PERMISSION_DENIED)):
            with pytest.raises(grpc.aio.AioRpcError) as ei:
                await first(token)
            assert ei.value.code() == code
        assert (await first(created.watch_token)).version == 1
        tok0 = created.seat_tokens[0].token
        version = 1
        for _ in range(5):  # five moves by whoever is to act
            info = None
            for s in range(2):
                got = await stub.GetInformationSet(game_pb2.GetInformationSetRequest(match_id=created.match_id, seat=s),
                                                   metadata=[("authorization", f"Bearer {created.seat_tokens[s].token}")])
                if got.legal_actions:
                    info = (s, got)
            assert info is not None
            s, got = info
            r = await stub.SubmitAction(game_pb2.SubmitActionRequest(
                match_id=created.match_id, seat=s, expected_version=got.version, action_id=got.legal_actions[0].id),
                metadata=[("authorization", f"Bearer {created.seat_tokens[s].token}")])
            version = r.version
        u = await first(tok0)
        # the summary too is of the version shown (issue 38: it said 6, a number from the future)
        assert version == 6 and u.version == 3 and u.summary.version == 3 and not u.summary.over
        assert u.public_view.version == 3 and all(e.version <= 3 for e in u.events)
        await stub.Resign(game_pb2.ResignRequest(match_id=created.match_id, seat=0),
                          metadata=[("authorization", f"Bearer {tok0}")])
        u = await first(created.watch_token)
        assert u.version == 7 and u.public_view.match.over and u.summary.version == 7 and u.summary.over


async def test_replay_only_once_over_and_every_card_open(rt: Runtime) -> None:
    """GetMatchReplay: FAILED_PRECONDITION (REPLAY_NOT_AVAILABLE) while the match runs; after it,
    one step per version whose hands at version 1 are the record's first deck as dealt, whose
    events are the match's event stream, whose seat views are each seat's information set, and
    whose public view is the engine's."""
    async with grpc.aio.insecure_channel(rt.target) as ch:
        stub = game_pb2_grpc.GameServiceStub(ch)
        created = await _create(stub, seed=8)
        with pytest.raises(grpc.aio.AioRpcError) as ei:
            await stub.GetMatchReplay(game_pb2.GetMatchReplayRequest(match_id=created.match_id))
        assert ei.value.code() == grpc.StatusCode.FAILED_PRECONDITION and "not over" in (ei.value.details() or "")
        await _play(rt, created)
        replay = await stub.GetMatchReplay(game_pb2.GetMatchReplayRequest(match_id=created.match_id, seat_views=True))
    rec = replay.record
    assert rec.over and rec.seed == 8 and len(replay.steps) == rec.version
    assert [s.version for s in replay.steps] == list(range(1, rec.version + 1))
    first = replay.steps[0]
    dealt = {c for h in first.hands for c in h.cards} | set(first.talon)
    assert dealt == set(rec.deals[0].deck_order) and all(len(h.cards) == 5 for h in first.hands)
    assert first.talon[-1] == first.public_view.deal.trump_card  # the face-up card lies at the bottom
    assert rt.store is not None
    stored = [json.loads(p) for _, p in await rt.store.events_since(rec.match_id, 0)]
    assert [codec.event_to_dict(e) for s in replay.steps for e in s.events] == \
        [codec.event_to_dict(codec.event_to_pb(e)) for e in stored]
    actions = [codec.pb_to_dict(a) for a in rec.actions]
    for st in replay.steps[:: max(1, len(replay.steps) // 7)]:
        ref = _log_state("schnapsen-at", rec.seed, actions, st.version - 1)
        assert _view_dict(st.public_view) == public_view(ref)
        assert [sorted(h.cards) for h in st.hands] == [sorted(_view_dict(v)["deal"]["hand"]) for v in st.seat_views]
        if st.version >= 2:
            assert st.action.version == st.version


def test_replay_public_gate() -> None:
    """The one gate of full replays: over, and not a ladder game (whose duplicate set decides)."""
    assert replay_public({"over": True})
    assert not replay_public({"over": False})
    # a ladder game also waits for its duplicate set: Spectators.replay_allowed asks the ladders


def test_state_at_replays_the_log() -> None:
    m = MatchState(find_variant("santase").configure({}), 4)
    entries = []
    final = m
    for _ in range(6):
        a = final.legal_actions()[0]
        entries.append([final.to_act, a, 0, final.deal_number, "NORMAL", -1, -1])
        final = final.copy()
        final.apply(a)
    assert state_at(final, entries, 7) is final
    assert public_view(state_at(final, entries, 3)) == public_view(_replayed(m, entries[:2]))


def _replayed(m: MatchState, entries: list[list[Any]]) -> MatchState:
    for e in entries:
        m = m.copy()
        m.apply(e[1])
    return m


async def test_watch_and_replay_over_rest(rt: Runtime) -> None:
    """REST: /watch as NDJSON (and SSE), /replay as JSON; a bad watch setting is a 400."""
    base = f"http://127.0.0.1:{rt.http_port}"
    async with grpc.aio.insecure_channel(rt.target) as ch:
        stub = game_pb2_grpc.GameServiceStub(ch)
        created = await _create(stub, seed=2)
        await _play(rt, created)

    def get(path: str, accept: str = "") -> tuple[int, str, bytes]:
        req = urllib.request.Request(base + path, headers={"Accept": accept} if accept else {})
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                return r.status, r.headers["Content-Type"], r.read()
        except urllib.error.HTTPError as e:
            return e.code, e.headers["Content-Type"], e.read()

    status, ctype, body = await asyncio.to_thread(get, f"/v1/matches/{created.match_id}/watch")
    lines = [json.loads(x) for x in body.decode().splitlines()]
    assert status == 200 and ctype == "application/x-ndjson" and len(lines) == 1
    assert lines[0]["result"]["public_view"]["seat"] == -1 and lines[0]["result"]["public_view"]["match"]["over"]
    status, ctype, body = await asyncio.to_thread(get, f"/v1/matches/{created.match_id}/watch", "text/event-stream")
    assert status == 200 and ctype == "text/event-stream" and body.startswith(b"data: {")
    status, _, body = await asyncio.to_thread(get, f"/v1/matches/{created.match_id}/replay")
    replay = json.loads(body)
    assert status == 200 and len(replay["steps"]) == int(replay["record"]["version"])

    def post(body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        req = urllib.request.Request(base + "/v1/matches", data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                return r.status, json.loads(r.read())
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read())

    status, err = await asyncio.to_thread(post, {"variant": "schnapsen-at", "watch": {"access": "friends"}})
    assert status == 400 and "watch.access" in err["message"]
    status, ok = await asyncio.to_thread(post, {"variant": "schnapsen-at", "watch": {"delay_moves": 2}})
    assert status == 200 and ok["summary"]["watch"] == {"access": "public", "delay_moves": 2} and ok["watch_token"] == ""


async def test_sdk_watch_and_replay(rt: Runtime) -> None:
    """The Python SDK's AsyncClient.watch and match_replay (JSON dicts, int64 as strings)."""
    async with AsyncClient(rt.target) as client:
        created = await client.create_match("santase", seats=["house:random", "house:greedy"],
                                            options={"match_target": 2})
        frames = [u async for u in client.watch(created.match_id)]
        assert frames[-1]["public_view"]["match"]["over"] and frames[-1]["public_view"]["seat"] == -1
        replay = await client.match_replay(created.match_id, seat_views=True)
    assert len(replay["steps"]) == int(replay["record"]["version"]) == int(frames[-1]["version"])
    assert all(len(st["seat_views"]) == 2 for st in replay["steps"])


async def test_list_matches_running_and_recent_public_only(rt: Runtime) -> None:
    """ListMatches (GET /v1/matches): created matches, newest first, running ones among the
    running; a match watched by token only is never listed; a bad limit is INVALID_ARGUMENT."""
    async with grpc.aio.insecure_channel(rt.target) as ch:
        stub = game_pb2_grpc.GameServiceStub(ch)
        a = await _create(stub, seed=1)
        b = await _create(stub, seed=2)
        hidden = await _create(stub, seed=3, access="token")
        assert rt.service is not None  # a ladder's game is listed by its ladder, not here (it was among "running")
        ladder_game = await rt.service.create_match("schnapsen-at", seed=5, trusted=True, ladder_id="l0123456789abcdef")
        await stub.Resign(game_pb2.ResignRequest(match_id=a.match_id, seat=0),
                          metadata=[("authorization", f"Bearer {a.seat_tokens[0].token}")])
        got = await stub.ListMatches(game_pb2.ListMatchesRequest(limit=100))
        with pytest.raises(grpc.aio.AioRpcError) as ei:
            await stub.ListMatches(game_pb2.ListMatchesRequest(limit=1000))
        assert ei.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    recent = [m.match_id for m in got.recent]
    assert recent.index(b.match_id) < recent.index(a.match_id) and hidden.match_id not in recent
    running = {m.match_id for m in got.running}
    assert b.match_id in running and a.match_id not in running and hidden.match_id not in running
    assert ladder_game.match_id not in running | set(recent)
    listed = next(m for m in got.recent if m.match_id == a.match_id)
    assert listed.over and list(listed.seat_names) == ["bot0", "bot1"] and listed.variant == "schnapsen-at"


async def test_watchers_per_match_are_capped(rt: Runtime) -> None:
    """Beyond max_watchers open streams of one match a new watch is RESOURCE_EXHAUSTED; a closed
    stream frees its place."""
    from bummerl.core.errors import ResourceExhaustedError
    from bummerl.core.spectate import Spectators

    assert rt.service is not None
    spectators = Spectators(rt.service, max_watchers=1)
    async with grpc.aio.insecure_channel(rt.target) as ch:
        created = await _create(game_pb2_grpc.GameServiceStub(ch), seed=4)
    first = spectators.watch(created.match_id, None)
    assert (await anext(first)).version == 1
    with pytest.raises(ResourceExhaustedError):
        await anext(spectators.watch(created.match_id, None))
    await first.aclose()
    again = spectators.watch(created.match_id, None)
    assert (await anext(again)).version == 1
    await again.aclose()


async def test_watch_resumes_after_from_version(rt: Runtime) -> None:
    """A spectator that reconnects with from_version gets only the events after it."""
    async with AsyncClient(rt.target) as client:
        created = await client.create_match("schnapsen-at", seats=["house:greedy", "house:random"],
                                            options={"match_target": 1})
        everything = [u async for u in client.watch(created.match_id)]
        later = [u async for u in client.watch(created.match_id, from_version=3)]
    assert len(later) == 1 and later[0]["version"] == everything[-1]["version"]
    versions = [int(e["version"]) for e in later[0]["events"]]
    assert versions and min(versions) == 4 and versions == sorted(versions)


async def test_spectators_gauge_counts_open_watch_streams(rt: Runtime) -> None:
    from prometheus_client import REGISTRY

    def gauge() -> float:
        return REGISTRY.get_sample_value("bummerl_spectators") or 0.0

    async with grpc.aio.insecure_channel(rt.target) as ch:
        created = await _create(game_pb2_grpc.GameServiceStub(ch), seed=6)
    assert rt.service is not None
    from bummerl.core.spectate import Spectators

    before = gauge()
    stream = Spectators(rt.service).watch(created.match_id, None)
    await anext(stream)
    assert gauge() == before + 1
    await stream.aclose()
    assert gauge() == before


@pytest.mark.parametrize("variant", ["talonschnapsen", "snapszer-hu-3p-sopron"])
async def test_watch_a_match_with_face_down_lay_aways_TS_TAL_1_HU3S_TAL_1(rt: Runtime, variant: str) -> None:
    """A card laid away face down makes no public event (keys.NO_EVENT, an empty payload in the
    match's stream): a spectator following the match live, and one who opens it once it is over,
    both get every frame to the end, never an INTERNAL error (it was one from the first lay-away
    on, over gRPC and REST alike)."""
    async with grpc.aio.insecure_channel(rt.target) as ch:
        stub = game_pb2_grpc.GameServiceStub(ch)
        created = await stub.CreateMatch(game_pb2.CreateMatchRequest(
            variant=variant, seed=9, seats=[game_pb2.SeatSpec(name=f"bot{i}") for i in range(3)]))

        async def watch() -> list[game_pb2.WatchUpdate]:
            return [u async for u in stub.WatchMatch(game_pb2.WatchMatchRequest(match_id=created.match_id))]

        live = asyncio.create_task(watch())
        await asyncio.sleep(0.05)
        async with AsyncClient(rt.target) as client:
            await asyncio.gather(*(play_seat(client, created.match_id, s, created.seat_tokens[s].token,
                                             make_bot("greedy", seed=s)) for s in range(3)))
        frames = await asyncio.wait_for(live, 10)
        after = await asyncio.wait_for(watch(), 10)
        rec = await stub.GetMatchRecord(game_pb2.GetMatchRecordRequest(match_id=created.match_id))
    silent = set(range(2, rec.version + 1)) - {e.version for f in frames for e in f.events}
    assert silent  # versions that made no public event (the cards laid away face down) were watched through
    for got in (frames, after):
        assert got[-1].version == rec.version and got[-1].public_view.match.over
    assert [e for f in after for e in f.events] == [e for f in frames for e in f.events]  # the same events

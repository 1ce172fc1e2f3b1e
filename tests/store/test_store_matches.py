"""MatchStore against a real Valkey: create, load, compare-and-set commit, delete, helpers."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
import redis.asyncio as aioredis

from bummerl.store import (
    MatchExistsError,
    MatchNotFoundError,
    MatchStore,
    StoredMatch,
    StoreError,
    VersionConflictError,
)

META: dict[str, Any] = {
    "variant": "schnapsen-at",
    "seats": [],  # an empty list must stay a list
    "ratio": 0.1 + 0.2,  # floats round-trip exactly
    "big": 2**63 + 1,  # so do big ints
    "names": {"0": "Grüß Gott", "1": "bot"},
    "none": None,
}


async def stream_ids(store: MatchStore, match_id: str) -> list[bytes]:
    entries: Any = await store.client.xrange(store.layout.events_key(match_id))
    return [eid for eid, _fields in entries]


async def test_create_load_round_trip(store: MatchStore, match_id: str) -> None:
    assert await store.load(match_id) is None
    assert not await store.exists(match_id)
    assert await store.create(match_id, b"\x00state\xff", META, [b"e0", b"e1"]) == 1
    loaded = await store.load(match_id)
    assert loaded == StoredMatch(match_id=match_id, version=1, state=b"\x00state\xff", meta=META)
    assert await store.exists(match_id)
    assert await stream_ids(store, match_id) == [b"1-0", b"1-1"]


async def test_create_without_events_or_meta(store: MatchStore, match_id: str) -> None:
    await store.create(match_id, b"", {}, [])
    assert await store.load(match_id) == StoredMatch(match_id, 1, b"", {})
    assert await store.events_since(match_id, 0) == []
    assert await store.commit(match_id, 1, b"s2", [b"a"]) == 2
    assert await store.events_since(match_id, 0) == [(2, b"a")]


async def test_create_twice_raises_and_keeps_the_first(store: MatchStore, match_id: str) -> None:
    await store.create(match_id, b"first", {"a": 1}, [b"e"])
    with pytest.raises(MatchExistsError) as info:
        await store.create(match_id, b"second", {"a": 2}, [b"x"])
    assert info.value.match_id == match_id
    assert await store.load(match_id) == StoredMatch(match_id, 1, b"first", {"a": 1})
    assert await store.events_since(match_id, 0) == [(1, b"e")]


async def test_commit_increments_version_appends_events_and_merges_meta(
    store: MatchStore, match_id: str
) -> None:
    await store.create(match_id, b"s1", {"a": 1, "b": [1]}, [b"start"])
    assert await store.commit(match_id, 1, b"s2", [b"p0", b"p1", b"p2"], {"b": [], "c": "new"}) == 2
    assert await store.commit(match_id, 2, b"s3", [b"q0"]) == 3
    loaded = await store.load(match_id)
    assert loaded == StoredMatch(match_id, 3, b"s3", {"a": 1, "b": [], "c": "new"})
    assert await stream_ids(store, match_id) == [b"1-0", b"2-0", b"2-1", b"2-2", b"3-0"]
    assert await store.events_since(match_id, 0) == [
        (1, b"start"),
        (2, b"p0"),
        (2, b"p1"),
        (2, b"p2"),
        (3, b"q0"),
    ]


async def test_stale_commit_raises_and_changes_nothing(store: MatchStore, match_id: str) -> None:
    await store.create(match_id, b"s1", {"a": 1}, [b"e1"])
    await store.commit(match_id, 1, b"s2", [b"e2"])
    before_hash = await store.client.hgetall(store.layout.state_key(match_id))
    before_stream = await store.client.xrange(store.layout.events_key(match_id))
    for stale in (1, 3, 99):
        with pytest.raises(VersionConflictError) as info:
            await store.commit(match_id, stale, b"bad", [b"bad"], {"a": "bad"})
        assert info.value.current_version == 2
        assert info.value.expected_version == stale
        assert info.value.match_id == match_id
    assert await store.client.hgetall(store.layout.state_key(match_id)) == before_hash
    assert await store.client.xrange(store.layout.events_key(match_id)) == before_stream
    assert await store.load(match_id) == StoredMatch(match_id, 2, b"s2", {"a": 1})


async def test_commit_to_missing_match_raises_not_found(store: MatchStore, match_id: str) -> None:
    with pytest.raises(MatchNotFoundError) as info:
        await store.commit(match_id, 1, b"s", [b"e"])
    assert info.value.match_id == match_id
    assert not await store.client.exists(store.layout.state_key(match_id), store.layout.events_key(match_id))


async def test_concurrent_commits_exactly_one_wins(store: MatchStore, match_id: str) -> None:
    await store.create(match_id, b"s1", {}, [b"e"])

    async def attempt(i: int) -> int | VersionConflictError:
        try:
            return await store.commit(match_id, 1, f"s-{i}".encode(), [f"ev-{i}".encode()], {"winner": i})
        except VersionConflictError as exc:
            return exc

    results = await asyncio.gather(*(attempt(i) for i in range(20)))
    winners = [i for i, r in enumerate(results) if r == 2]
    assert len(winners) == 1
    losers = [r for r in results if isinstance(r, VersionConflictError)]
    assert len(losers) == 19 and all(r.current_version == 2 for r in losers)
    (w,) = winners
    assert await store.load(match_id) == StoredMatch(match_id, 2, f"s-{w}".encode(), {"winner": w})
    assert await store.events_since(match_id, 0) == [(1, b"e"), (2, f"ev-{w}".encode())]


async def test_commit_refuses_when_stream_is_ahead(store: MatchStore, match_id: str) -> None:
    await store.create(match_id, b"s1", {}, [b"e"])
    await store.client.xadd(store.layout.events_key(match_id), {b"e": b"alien"}, id="5-0")
    with pytest.raises(StoreError):
        await store.commit(match_id, 1, b"s2", [b"x"])
    assert await store.load(match_id) == StoredMatch(match_id, 1, b"s1", {})
    assert await stream_ids(store, match_id) == [b"1-0", b"5-0"]


async def test_invalid_arguments(store: MatchStore, match_id: str) -> None:
    with pytest.raises(ValueError):
        await store.load("bad{id}")
    with pytest.raises(ValueError):
        await store.commit(match_id, 0, b"s", [])
    with pytest.raises(TypeError):
        await store.create(match_id, b"s", {}, ["not bytes"])  # type: ignore[list-item]
    with pytest.raises(TypeError):
        await store.create(match_id, b"s", {"x": object()}, [])
    assert await store.load(match_id) is None


async def test_delete(store: MatchStore, match_id: str) -> None:
    await store.create(match_id, b"s", {}, [b"e"])
    assert await store.delete(match_id) is True
    assert await store.load(match_id) is None
    assert await store.events_since(match_id, 0) == []
    assert await store.delete(match_id) is False
    await store.create(match_id, b"again", {}, [b"e2"])  # the id is free again
    assert await store.events_since(match_id, 0) == [(1, b"e2")]


async def test_json_helpers(store: MatchStore, match_id: str) -> None:
    key = f"bm:test:{match_id}"
    assert await store.get_json(key) is None
    await store.set_json(key, {"a": [1, 2], "b": "ü"})
    assert await store.get_json(key) == {"a": [1, 2], "b": "ü"}
    assert await store.client.ttl(key) == -1
    await store.set_json(key, [1], ttl_s=30)
    assert 0 < await store.client.pttl(key) <= 30_000
    assert await store.delete_json(key) is True
    assert await store.get_json(key) is None
    for bad in (store.layout.state_key(match_id), "elsewhere:x"):
        with pytest.raises(ValueError):
            await store.set_json(bad, 1)
    with pytest.raises(ValueError):
        await store.set_json(key, 1, ttl_s=0)


async def test_ping(store: MatchStore, tmp_path: Any) -> None:
    assert await store.ping() is True
    dead = MatchStore(aioredis.from_url(f"unix://{tmp_path}/nothing.sock"))
    try:
        assert await dead.ping() is False
    finally:
        await dead.aclose()
        await dead.client.aclose()


async def test_rejects_decoding_client(redis_url: str) -> None:
    client = aioredis.from_url(redis_url, decode_responses=True)
    try:
        with pytest.raises(ValueError):
            MatchStore(client)
    finally:
        await client.aclose()


@pytest.mark.single_node
async def test_from_url_owns_its_client(redis_url: str, match_id: str) -> None:
    async with MatchStore.from_url(redis_url) as s:
        await s.create(match_id, b"s", {}, [])
        assert (await s.load(match_id)) is not None
        await s.delete(match_id)


@pytest.mark.single_node
async def test_resp3_client(redis_url: str, match_id: str) -> None:
    async with MatchStore.from_url(redis_url, protocol=3) as s:
        await s.create(match_id, b"s", {"k": [1]}, [b"a"])
        await s.commit(match_id, 1, b"t", [b"b", b"c"])
        assert await s.load(match_id) == StoredMatch(match_id, 2, b"t", {"k": [1]})
        assert await s.events_since(match_id, 1) == [(2, b"b"), (2, b"c")]
        assert await s.wait_events(match_id, 0, 50) == [(1, b"a"), (2, b"b"), (2, b"c")]


async def test_a_claim_round_claims_every_shard_and_tells_the_next_deadline(redis_client: Any, match_id: str) -> None:
    """One script call per shard claims what is due and returns the earliest deadline left, so a
    reaper's round is S commands, not 2 S (the reaper sleeps until that deadline)."""
    from bummerl.store.keys import KeyLayout

    layout = KeyLayout(4, tag=f"t{match_id[-12:]}")
    s = MatchStore(redis_client, layout=layout)
    ids = {}
    i = 0
    while len(ids) < 2:  # two matches on two shards
        ids.setdefault(layout.shard_of(f"{match_id}c{i}"), f"{match_id}c{i}")
        i += 1
    due, later = ids.values()
    try:
        await s.create(due, b"s", {}, [b"e"], deadline_ms=5_000)
        await s.create(later, b"s", {}, [b"e"], deadline_ms=9_000)
        assert await s.claim_round(4_000, 60_000) == ([], 5_000)
        assert await s.claim_round(6_000, 60_000) == ([due], 9_000)  # the claimed one is leased to 66,000
        assert await s.claim_round(10_000, 1_000) == ([later], 11_000)
        claimed, nxt = await s.claim_round(100_000, 1_000)  # shard by shard: no order across shards
        assert sorted(claimed) == sorted([due, later]) and nxt == 101_000
    finally:
        for m in (due, later):
            await s.delete(m)
        for k in range(4):
            await redis_client.delete(layout.active_key(k))
            await redis_client.delete(layout.feed_key(k))
        await s.aclose()


@pytest.mark.single_node  # a lone node has no replica to confirm
async def test_replicated_durability_waits_for_a_replica_and_says_when_none_confirmed(
        redis_client: Any, match_id: str) -> None:
    """``durability = replicated`` sends WAIT behind each create and commit: on a node without a
    replica nothing confirms, so the caller hears ReplicationTimeoutError (UNAVAILABLE), while the
    write itself stands and a retry meets the new version (never applied twice)."""
    from bummerl.store.errors import ReplicationTimeoutError

    s = MatchStore(redis_client, durability="replicated", replica_wait_ms=50)
    try:
        with pytest.raises(ReplicationTimeoutError) as e:
            await s.create(match_id, b"s1", {}, [b"e1"])
        assert (e.value.match_id, e.value.version) == (match_id, 1)
        with pytest.raises(ReplicationTimeoutError) as e:
            await s.commit(match_id, 1, b"s2", [b"e2"])
        assert e.value.version == 2
        stored = await s.load(match_id)
        assert stored is not None and stored.version == 2  # the commit stands
        with pytest.raises(VersionConflictError):
            await s.commit(match_id, 1, b"s2", [b"e2"])  # the retry is not applied twice
    finally:
        await s.delete(match_id)
        await s.aclose()


@pytest.mark.single_node  # a lone node has no replica to confirm
async def test_a_create_no_replica_confirmed_is_taken_back_so_a_retry_leaves_no_orphan(redis_client: Any) -> None:
    """CreateMatch under ``durability = replicated`` that no replica confirms answers UNAVAILABLE
    (ReplicationTimeoutError); nobody has the new id or its tokens, and the client will retry, so
    the match is deleted (state, events, deadline, active set) instead of running on unseen beside
    the one the retry creates."""
    from bummerl.core import MatchService, TimeControl
    from bummerl.store.errors import ReplicationTimeoutError

    s = MatchStore(redis_client, durability="replicated", replica_wait_ms=30)
    try:
        active_before = await s.active_count()
        svc = MatchService(s)
        with pytest.raises(ReplicationTimeoutError) as e:
            await svc.create_match("schnapsen-at", seed=3, time_control=TimeControl.parse("60+1"))
        mid = e.value.match_id
        assert await s.load(mid) is None
        assert await s.active_count() == active_before
        shard = s.layout.shard_of(mid)
        assert await redis_client.zscore(s.layout.deadlines_key(shard), mid) is None
        assert await redis_client.exists(*s.layout.match_keys(mid)) == 0
    finally:
        await s.aclose()

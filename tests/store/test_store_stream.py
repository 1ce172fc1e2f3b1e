"""Event streams: events_since (XRANGE) and wait_events (XREAD BLOCK)."""

from __future__ import annotations

import asyncio
import time

import pytest

from bummerl.store import MatchStore
from bummerl.store.keys import NO_EVENT


async def make_match(store: MatchStore, match_id: str) -> None:
    """Versions 1..4 with events 1:[a] 2:[b0,b1,b2] 3:[] 4:[d] (3 is stored as one NO_EVENT entry)."""
    await store.create(match_id, b"s1", {}, [b"a"])
    await store.commit(match_id, 1, b"s2", [b"b0", b"b1", b"b2"])
    await store.commit(match_id, 2, b"s3", [])
    await store.commit(match_id, 3, b"s4", [b"d"])


async def test_events_since(store: MatchStore, match_id: str) -> None:
    await make_match(store, match_id)
    everything = [(1, b"a"), (2, b"b0"), (2, b"b1"), (2, b"b2"), (3, NO_EVENT), (4, b"d")]
    assert await store.events_since(match_id, 0) == everything
    assert await store.events_since(match_id, 1) == everything[1:]
    assert await store.events_since(match_id, 2) == [(3, NO_EVENT), (4, b"d")]
    assert await store.events_since(match_id, 3) == [(4, b"d")]
    assert await store.events_since(match_id, 4) == []
    assert await store.events_since("no-such-match", 0) == []
    with pytest.raises(ValueError):
        await store.events_since(match_id, -1)


async def test_events_since_count_never_splits_a_version(store: MatchStore, match_id: str) -> None:
    await make_match(store, match_id)
    assert await store.events_since(match_id, 0, count=1) == [(1, b"a")]
    assert await store.events_since(match_id, 0, count=2) == [(1, b"a"), (2, b"b0"), (2, b"b1"), (2, b"b2")]
    assert await store.events_since(match_id, 1, count=1) == [(2, b"b0"), (2, b"b1"), (2, b"b2")]
    assert await store.events_since(match_id, 1, count=3) == [(2, b"b0"), (2, b"b1"), (2, b"b2")]
    assert await store.events_since(match_id, 1, count=4) == [(2, b"b0"), (2, b"b1"), (2, b"b2"), (3, NO_EVENT)]


async def test_wait_events_returns_at_once_when_events_exist(store: MatchStore, match_id: str) -> None:
    await make_match(store, match_id)
    start = time.perf_counter()
    assert await store.wait_events(match_id, 1, 5_000) == [(2, b"b0"), (2, b"b1"), (2, b"b2"), (3, NO_EVENT),
                                                            (4, b"d")]
    assert time.perf_counter() - start < 1.0


async def test_a_version_without_events_wakes_a_waiting_stream(store: MatchStore, match_id: str) -> None:
    """A commit that makes no public event (one card of a lay-away, TS-TAL-1) still wakes the
    streams: they must send that version's information set (the seat may be to act again)."""
    await store.create(match_id, b"s1", {}, [b"a"])

    async def writer() -> None:
        await asyncio.sleep(0.1)
        await store.commit(match_id, 1, b"s2", [])

    task = asyncio.create_task(writer())
    assert await store.wait_events(match_id, 1, 5_000) == [(2, NO_EVENT)]
    await task


async def test_wait_events_wakes_on_commit(store: MatchStore, match_id: str) -> None:
    await store.create(match_id, b"s1", {}, [b"a"])

    async def writer() -> None:
        await asyncio.sleep(0.1)
        await store.commit(match_id, 1, b"s2", [b"x", b"y"])

    task = asyncio.create_task(writer())
    start = time.perf_counter()
    got = await store.wait_events(match_id, 1, 5_000)
    elapsed = time.perf_counter() - start
    await task
    assert got == [(2, b"x"), (2, b"y")]
    assert 0.05 < elapsed < 2.0


async def test_many_waiters_all_wake(store: MatchStore, match_id: str) -> None:
    await store.create(match_id, b"s1", {}, [b"a"])
    waiters = [asyncio.create_task(store.wait_events(match_id, 1, 5_000)) for _ in range(10)]
    await asyncio.sleep(0.1)
    assert not any(w.done() for w in waiters)
    # the blocking reads hold their own connections: ordinary commands still flow
    assert (await store.load(match_id)) is not None
    await store.commit(match_id, 1, b"s2", [b"x"])
    assert await asyncio.gather(*waiters) == [[(2, b"x")]] * 10


async def test_wait_events_times_out_empty(store: MatchStore, match_id: str) -> None:
    await store.create(match_id, b"s1", {}, [b"a"])
    start = time.perf_counter()
    assert await store.wait_events(match_id, 1, 150) == []
    assert 0.1 < time.perf_counter() - start < 2.0
    with pytest.raises(ValueError):
        await store.wait_events(match_id, 1, 0)


async def test_cancelled_wait_leaves_store_usable(store: MatchStore, match_id: str) -> None:
    await store.create(match_id, b"s1", {}, [b"a"])
    waiter = asyncio.create_task(store.wait_events(match_id, 1, 5_000))
    await asyncio.sleep(0.05)
    waiter.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiter
    await store.commit(match_id, 1, b"s2", [b"x"])
    assert await store.wait_events(match_id, 1, 1_000) == [(2, b"x")]

"""What a running reaper asks Redis (issue 40): a shard's deadlines only when the earliest one it knows
there is due, when its own process indexed an earlier one, or when it has not looked for ``sweep_ms``;
before, every reaper claimed from every shard every 50 ms, S × K scripts per poll for K servers.
Every deadline is still reaped: its own at the deadline, another process's within the sweep, one
whose claimer died after the lease. A fake clock; no test sleeps. Runs on both stores."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Iterable
from typing import Any

import pytest

from bummerl.core import MatchService, Reaper, TimeControl
from bummerl.store import MatchStore
from bummerl.store.keys import KeyLayout

T0 = 1_700_000_000_000


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> int:
        return self.now


class CountingStore(MatchStore):
    """A real store that counts the shards its claims look at (one script call each)."""

    claims = 0

    async def claim_shards(self, now_ms: int, lease_ms: int, limit: int,
                           shards: Iterable[int]) -> tuple[list[str], dict[int, int | None]]:
        wanted = list(shards)
        self.claims += len(wanted)
        return await super().claim_shards(now_ms, lease_ms, limit, wanted)


@pytest.fixture
async def layout(redis_client: Any, test_layout: KeyLayout) -> AsyncIterator[KeyLayout]:
    lay = KeyLayout(test_layout.shards, tag=f"r{uuid.uuid4().hex[:12]}")  # deadlines of its own
    yield lay
    for k in range(lay.shards):
        await redis_client.delete(lay.deadlines_key(k), lay.active_key(k), lay.feed_key(k))


def process(redis_client: Any, layout: KeyLayout, clock: Clock) -> tuple[CountingStore, MatchService]:
    """One server process's store and service (processes share Redis and the layout, not memory)."""
    store = CountingStore(redis_client, layout=layout)
    return store, MatchService(store, now_ms=clock)


async def timed_match(svc: MatchService, tc: str = "5+0") -> Any:
    return await svc.create_match("schnapsen-at", seed=3, time_control=TimeControl.parse(tc))


async def over(svc: MatchService, match_id: str) -> bool:
    return bool((await svc.record(match_id))["over"])


async def test_a_running_reaper_claims_only_when_a_deadline_may_be_due(redis_client: Any, layout: KeyLayout) -> None:
    clock = Clock()
    store, svc = process(redis_client, layout, clock)
    reaper = Reaper(svc, sweep_ms=1000)
    created = await timed_match(svc)  # its deadline: T0 + 5 s, indexed by this process
    assert await reaper.run_due() == 0 and store.claims == layout.shards  # the first round looks everywhere
    for _ in range(9):  # 900 ms of 100 ms polls: nothing due, no sweep yet: not one command
        clock.now += 100
        assert await reaper.run_due() == 0
    assert store.claims == layout.shards
    clock.now = T0 + 5_001
    assert await reaper.run_due() == 1  # at the deadline, not a sweep later
    assert await over(svc, created.match_id)
    assert store.claims <= 2 * layout.shards + 1


async def test_a_deadline_of_its_own_process_is_claimed_without_waiting_for_a_sweep(
        redis_client: Any, layout: KeyLayout) -> None:
    clock = Clock()
    store, svc = process(redis_client, layout, clock)
    reaper = Reaper(svc, sweep_ms=60_000)
    assert await reaper.run_due() == 0  # looked everywhere: no deadline at all
    created = await timed_match(svc, "1+0")  # indexed after that look: the reaper learns it in memory
    clock.now += 999
    assert await reaper.run_due() == 0
    clock.now += 2
    assert await reaper.run_due() == 1
    assert await over(svc, created.match_id)


async def test_a_deadline_another_process_indexed_is_reaped_within_the_sweep(
        redis_client: Any, layout: KeyLayout) -> None:
    clock = Clock()
    _a_store, a = process(redis_client, layout, clock)
    b_store, b = process(redis_client, layout, clock)
    reaper_b = Reaper(b, sweep_ms=1000)
    assert await reaper_b.run_due() == 0  # B looked before A's match existed
    created = await timed_match(a, "0.2+0")  # A has no reaper running (it died): B must reap it
    clock.now += 500
    assert await reaper_b.run_due() == 0  # due, but B has not heard of it yet
    claims = b_store.claims
    clock.now += 500
    assert await reaper_b.run_due() == 1  # the sweep found it
    assert b_store.claims == claims + layout.shards
    assert await over(a, created.match_id)


async def test_a_deadline_whose_claimer_died_is_reaped_after_the_lease(redis_client: Any, layout: KeyLayout) -> None:
    clock = Clock()
    a_store, a = process(redis_client, layout, clock)
    _b_store, b = process(redis_client, layout, clock)
    created = await timed_match(a, "1+0")
    clock.now += 1_001
    assert await a_store.claim_due(clock.now, lease_ms=5_000) == [created.match_id]  # A claims, then dies
    reaper_b = Reaper(b, sweep_ms=1000, lease_ms=5_000)
    assert await reaper_b.run_due() == 0  # leased to A: B learns when the lease ends
    clock.now += 4_999
    assert await reaper_b.run_due() == 0
    clock.now += 1
    assert await reaper_b.run_due() == 1
    assert await over(b, created.match_id)


async def test_running_reapers_of_several_processes_commit_each_timeout_once(
        redis_client: Any, layout: KeyLayout) -> None:
    clock = Clock()
    procs = [process(redis_client, layout, clock) for _ in range(3)]
    reapers = [Reaper(svc, sweep_ms=1000, batch=2) for _store, svc in procs]
    made = [await timed_match(procs[i % 3][1], "1+0") for i in range(7)]
    for r in reapers:
        assert await r.run_due() == 0
    clock.now += 1_001
    done = await asyncio.gather(*(r.run_due() for r in reapers), *(r.run_due() for r in reapers))
    assert sum(done) == len(made)
    for m in made:
        record = await procs[0][1].record(m.match_id)
        assert record["over"] and [a["kind"] for a in record["actions"]].count("TIMEOUT") == 1

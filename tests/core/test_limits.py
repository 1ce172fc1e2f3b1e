"""Rate limits (service/bummerl/core/limits.py): a sliding window in Redis, against a real Valkey
with an injected clock (no test sleeps)."""

from __future__ import annotations

import asyncio
import uuid

import pytest

from bummerl.core.errors import ResourceExhaustedError
from bummerl.core.limits import Limit, RateLimiter
from bummerl.store import MatchStore

from .conftest import T0, FakeClock


def limiter(store: MatchStore, clock: FakeClock, calls: int = 5, window_ms: int = 1000) -> RateLimiter:
    return RateLimiter(store, {"action": Limit(calls, window_ms), "create": Limit(2, 60_000)}, clock)


async def admitted(rl: RateLimiter, kind: str, caller: str, n: int) -> int:
    got = 0
    for _ in range(n):
        try:
            await rl.check(kind, caller)
            got += 1
        except ResourceExhaustedError:
            pass
    return got


async def test_no_window_of_the_limit_lets_more_through_across_a_boundary(tstore: MatchStore, clock: FakeClock) -> None:
    """5 calls per second: 5 at 0.9 s and 5 more at 1.0 s were all admitted by the fixed window
    (10 in 0.1 s); the sliding window refuses the second five until the first leave it."""
    rl, caller = limiter(tstore, clock), uuid.uuid4().hex
    clock.now = T0 - T0 % 1000 + 900  # 100 ms before a fixed window's boundary
    assert await admitted(rl, "action", caller, 5) == 5
    clock.advance(100)  # the next fixed window
    with pytest.raises(ResourceExhaustedError, match="at most 5 SubmitAction calls per 1 s") as e:
        await rl.check("action", caller)
    assert e.value.retry_after_ms == 900  # when the first call leaves the window
    clock.advance(899)
    assert await admitted(rl, "action", caller, 3) == 0
    clock.advance(1)  # all five are a full window old
    assert await admitted(rl, "action", caller, 7) == 5  # refused calls were not counted


async def test_calls_spread_over_the_window_slide_out_one_by_one(tstore: MatchStore, clock: FakeClock) -> None:
    rl, caller = limiter(tstore, clock, calls=3, window_ms=1000), uuid.uuid4().hex
    for _ in range(3):
        await rl.check("action", caller)
        clock.advance(300)
    # t = 900: calls at 0, 300, 600 are in the window
    with pytest.raises(ResourceExhaustedError) as e:
        await rl.check("action", caller)
    assert e.value.retry_after_ms == 100
    clock.advance(100)
    await rl.check("action", caller)  # the call at 0 left; now 300, 600, 1000
    with pytest.raises(ResourceExhaustedError) as e:
        await rl.check("action", caller)
    assert e.value.retry_after_ms == 300


async def test_kinds_and_callers_count_apart_and_no_limit_is_no_check(tstore: MatchStore, clock: FakeClock) -> None:
    rl = limiter(tstore, clock)
    a, b = uuid.uuid4().hex, uuid.uuid4().hex
    assert await admitted(rl, "create", a, 4) == 2
    assert await admitted(rl, "create", b, 4) == 2
    assert await admitted(rl, "action", a, 6) == 5
    assert await admitted(rl, "unlimited-kind", a, 50) == 50
    assert await admitted(RateLimiter(tstore, {"action": Limit(0, 1000)}, clock), "action", a, 50) == 50


async def test_concurrent_calls_of_several_processes_never_pass_the_limit(tstore: MatchStore, clock: FakeClock) -> None:
    """Two limiters (two server processes) on one Redis, 40 calls at once: exactly the limit passes
    (the check and the record are one Lua script)."""
    caller = uuid.uuid4().hex
    rls = [limiter(tstore, clock, calls=7), limiter(tstore, clock, calls=7)]
    results = await asyncio.gather(*(rls[i % 2].check("action", caller) for i in range(40)), return_exceptions=True)
    assert sum(r is None for r in results) == 7
    assert all(isinstance(r, ResourceExhaustedError) for r in results if r is not None)

"""Fixtures of the core tests: a fake clock (ms since the epoch, moved only by the test) and a
store with its own deadlines sorted set, so that reapers never see another test's matches."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest
import redis.asyncio as aioredis

from bummerl.core import MatchService, TimeControl
from bummerl.store import MatchStore
from bummerl.store.keys import KeyLayout

T0 = 1_700_000_000_000


class FakeClock:
    """Milliseconds since the epoch, moved only by the test."""

    def __init__(self, now: int = T0) -> None:
        self.now = now

    def __call__(self) -> int:
        return self.now

    def advance(self, ms: int) -> None:
        self.now += ms


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
async def tstore(redis_client: aioredis.Redis, test_layout: KeyLayout) -> AsyncIterator[MatchStore]:
    s = MatchStore(redis_client, layout=KeyLayout(test_layout.shards, tag=f"t{uuid.uuid4().hex}"))  # deadlines of its own
    try:
        yield s
    finally:
        for k in range(s.layout.shards):
            await redis_client.delete(s.layout.deadlines_key(k))
            await redis_client.delete(s.layout.active_key(k))
            await redis_client.delete(s.layout.feed_key(k))
        await s.aclose()


@pytest.fixture
def svc(tstore: MatchStore, clock: FakeClock) -> MatchService:
    return MatchService(tstore, now_ms=clock)


async def new_match(svc: MatchService, tc: str | None = "10+1", policy: str | None = None, **kw: Any) -> Any:
    return await svc.create_match("schnapsen-at", seed=7, time_control=TimeControl.parse(tc) if tc else None,
                                  timeout_policy=policy, **kw)


async def to_act(svc: MatchService, created: Any) -> tuple[int, dict[str, Any]]:
    info = await svc.information_set(created.match_id, 0, created.tokens[0])
    seat = info["deal"]["to_act"]
    return seat, await svc.information_set(created.match_id, seat, created.tokens[seat])


async def act(svc: MatchService, created: Any, seat: int, info: dict[str, Any]) -> Any:
    return await svc.submit_action(created.match_id, seat, created.tokens[seat], info["version"],
                                   info["legal_actions"][0]["id"])

"""Shared fixtures of the ladder tests (a real Redis: the embedded one unless BUMMERL_REDIS_URL)."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator

import pytest
import redis.asyncio as aioredis

from bummerl.core import MatchService
from bummerl.ladder.service import LadderService
from bummerl.store import MatchStore
from bummerl.store.keys import KeyLayout


@pytest.fixture
async def ladders(redis_client: aioredis.Redis, test_layout: KeyLayout) -> AsyncIterator[LadderService]:
    """A :class:`LadderService` (admin token ``"adm"``) on the test Redis, with its own deadline key."""
    store = MatchStore(redis_client, layout=KeyLayout(test_layout.shards, tag=f"t{uuid.uuid4().hex}"))
    ladders = LadderService(MatchService(store, admin_token="adm"))
    try:
        yield ladders
    finally:
        await ladders.aclose()
        await store.aclose()

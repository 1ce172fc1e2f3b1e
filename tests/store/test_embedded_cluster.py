"""EmbeddedValkeyCluster: a real 3-master, 3-replica Valkey Cluster serves a cluster client, runs a
Lua script on hash-tagged keys, and survives the SIGKILL of a master with the replicated writes
intact (then takes the killed node back as a replica).  Real processes, no mocks."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from redis.asyncio.cluster import RedisCluster

from bummerl_bench.valkey_cluster import (
    SLOT_COUNT,
    EmbeddedClusterError,
    EmbeddedValkeyCluster,
)

PREFIX = "bm:test:cluster"


@pytest.fixture(scope="module")
def cluster() -> Iterator[EmbeddedValkeyCluster]:
    with EmbeddedValkeyCluster(masters=3, replicas_per_master=1) as c:
        yield c


def _node_client(host: str, port: int) -> redis.Redis:
    return redis.Redis(host=host, port=port, decode_responses=True)


def _cmd(client: redis.Redis, *args: str | int) -> Any:
    return client.execute_command(*args)  # type: ignore[no-untyped-call]


async def _keys_on_every_master(client: RedisCluster, masters: set[int], name: str) -> dict[int, str]:
    """One key per master port: ``{port: key}``."""
    await client.initialize()  # loads the slot map
    found: dict[int, str] = {}
    i = 0
    while set(found) != masters:
        key = f"{PREFIX}:{name}:{i}"
        node = client.get_node_from_key(key)
        assert node is not None
        found.setdefault(int(node.port), key)
        i += 1
    return found


def test_every_node_reports_a_healthy_cluster(cluster: EmbeddedValkeyCluster) -> None:
    assert cluster.url.startswith("redis://127.0.0.1:")
    masters, replicas = cluster.masters(), cluster.replicas()
    assert len(masters) == 3 and len(replicas) == 3 and len(cluster.nodes) == 6
    assert cluster.url.endswith(f":{masters[0].port}")
    assert {n.role for n in masters} == {"master"} and {n.role for n in replicas} == {"replica"}
    master_ids = {n.node_id for n in masters}
    for node in cluster.nodes:
        client = _node_client(node.host, node.port)
        try:
            info = _cmd(client, "CLUSTER", "INFO")
            assert "cluster_state:ok" in info
            assert f"cluster_slots_assigned:{SLOT_COUNT}" in info and "cluster_known_nodes:6" in info
            replication = client.info("replication")
            if node.role == "replica":
                assert replication["master_link_status"] == "up"
                lines = _cmd(client, "CLUSTER", "NODES").splitlines()
                myself = next(line.split() for line in lines if "myself" in line)
                assert myself[3] in master_ids
            else:
                assert replication["connected_slaves"] == 1
        finally:
            client.close()


async def test_cluster_client_reads_and_writes_on_every_master(cluster: EmbeddedValkeyCluster) -> None:
    client = RedisCluster.from_url(cluster.url)
    try:
        master_ports = {n.port for n in cluster.masters()}
        keys = await _keys_on_every_master(client, master_ports, "rw")
        for port, key in keys.items():
            assert await client.set(key, f"on-{port}")
        for port, key in keys.items():
            assert await client.get(key) == f"on-{port}".encode()
    finally:
        await client.aclose()


async def test_evalsha_on_two_keys_with_one_hash_tag(cluster: EmbeddedValkeyCluster) -> None:
    script = "redis.call('SET', KEYS[1], ARGV[1]); redis.call('SET', KEYS[2], ARGV[2]); " \
             "return {redis.call('GET', KEYS[1]), redis.call('GET', KEYS[2])}"
    client = RedisCluster.from_url(cluster.url)
    try:
        sha = await client.script_load(script)
        for tag in ("m1", "m2", "m3"):
            a, b = f"{PREFIX}:{{{tag}}}:a", f"{PREFIX}:{{{tag}}}:b"
            assert await client.evalsha(sha, 2, a, b, f"{tag}-a", f"{tag}-b") == [
                f"{tag}-a".encode(), f"{tag}-b".encode()]
            assert await client.get(b) == f"{tag}-b".encode()
    finally:
        await client.aclose()


async def test_failover_keeps_replicated_writes_and_takes_new_ones(cluster: EmbeddedValkeyCluster) -> None:
    client = RedisCluster.from_url(cluster.url)  # lives across the failover, as a server's would
    try:
        masters = cluster.masters()
        keys = await _keys_on_every_master(client, {n.port for n in masters}, "failover")
        for port, key in keys.items():
            await client.set(key, f"before-{port}")
        victim = masters[1]  # not the URL's node, so fresh clients can still bootstrap from it
        # A write straight on the victim, acknowledged by its replica (WAIT on the writing connection).
        direct = redis.Redis(host=victim.host, port=victim.port, single_connection_client=True)
        try:
            direct_key = f"{{{keys[victim.port]}}}:direct"  # hash tag: the slot of the victim's key
            direct_node = client.get_node_from_key(direct_key)
            assert direct_node is not None and direct_node.port == victim.port
            direct.set(direct_key, b"acked")
            assert _cmd(direct, "WAIT", 1, 5000) == 1
        finally:
            direct.close()
        cluster.wait_for_replication()
        old_replica_ports = {n.port for n in cluster.replicas()}

        started = time.monotonic()
        host, port = cluster.kill_master(victim.port)
        assert (host, port) == (victim.host, victim.port)
        new_master = cluster.wait_for_failover(port, timeout_s=20)
        took = time.monotonic() - started
        assert took < 20
        assert new_master.role == "master" and new_master.port in old_replica_ports
        assert port not in {n.port for n in cluster.nodes}
        assert cluster.masters()[1] == new_master  # it owns the victim's slot range

        for p, key in keys.items():
            assert await client.get(key) == f"before-{p}".encode()
        assert await client.get(direct_key) == b"acked"
        fresh = RedisCluster.from_url(cluster.url)
        try:
            for p, key in keys.items():
                assert await fresh.set(key, f"after-{p}")
                assert await fresh.get(key) == f"after-{p}".encode()
            assert await client.get(keys[victim.port]) == f"after-{victim.port}".encode()
        finally:
            await fresh.aclose()

        back = cluster.restart_node(port)
        assert back.port == port and back.role == "replica"
        assert len(cluster.masters()) == 3 and len(cluster.replicas()) == 3
    finally:
        await client.aclose()


def test_single_master_lifecycle_and_cleanup(tmp_path: Path) -> None:
    c = EmbeddedValkeyCluster(masters=1, replicas_per_master=0, base_dir=tmp_path)
    with pytest.raises(RuntimeError):
        _ = c.url
    url = c.start()
    try:
        data_dir = c.data_dir
        assert data_dir is not None and data_dir.parent == tmp_path
        with pytest.raises(RuntimeError):
            c.start()
        (only,) = c.nodes
        assert only.role == "master" and url.endswith(f":{only.port}")
        client = redis.Redis.from_url(url)
        assert client.set(f"{PREFIX}:single", b"x") and client.get(f"{PREFIX}:single") == b"x"
        client.close()
        with pytest.raises(ValueError):
            c.wait_for_failover(only.port)  # not killed by kill_master
    finally:
        c.stop()
    assert not c.running and not data_dir.exists()
    c.stop()  # a second stop is a no-op


def test_a_node_that_cannot_start_reports_its_log(tmp_path: Path) -> None:
    c = EmbeddedValkeyCluster(masters=1, replicas_per_master=0, base_dir=tmp_path,
                              config={"no-such-directive": "yes"})
    with pytest.raises(EmbeddedClusterError, match="no-such-directive"):
        c.start()
    assert not c.running and list(tmp_path.iterdir()) == []


def test_managed_options_are_refused() -> None:
    with pytest.raises(ValueError, match="port"):
        EmbeddedValkeyCluster(config={"port": 7000})

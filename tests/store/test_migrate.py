"""``bummerl migrate``: a deployment that upgrades keeps its running matches and ladders.

Each test runs on a Valkey of its own (migration works on the whole database). The layout-1 data
is what the code before the sharded layout wrote: a running match with a clock and a running
ladder, made with today's services and then renamed to the layout-1 key names, as documented in
:mod:`bummerl.store.keys` and :mod:`bummerl.store.migrate`.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
import redis.asyncio as aioredis

from bummerl.core import MatchService
from bummerl.ladder.driver import LadderDriver
from bummerl.ladder.service import LadderService, LadderSpec
from bummerl.store import EmbeddedValkey, MatchStore, keys
from bummerl.store.errors import LayoutError
from bummerl.store.layout import read_layout
from bummerl.store.migrate import migrate

ADMIN = "adm"


@pytest.fixture
def own_url() -> Iterator[str]:
    server = EmbeddedValkey()
    try:
        yield server.start()
    finally:
        server.stop()


@pytest.fixture
async def client(own_url: str) -> AsyncIterator[aioredis.Redis]:
    c = aioredis.from_url(own_url)
    try:
        yield c
    finally:
        await c.aclose()


async def _running_world(client: aioredis.Redis) -> dict[str, Any]:
    """A clocked match after three actions and a ladder of two bundled bots with games running, in
    layout 2 (one shard); returns what a later check needs."""
    store = MatchStore(client)
    svc = MatchService(store, admin_token=ADMIN)
    created = await svc.create_match("schnapsen-at", seed=5, admin_token=ADMIN,
                                     time_control={"base_ms": 600_000, "increment_ms": 0})
    for _ in range(3):
        info = await svc.information_set(created.match_id, 0, created.tokens[0])
        seat = info["deal"]["to_act"]
        info = await svc.information_set(created.match_id, seat, created.tokens[seat])
        await svc.submit_action(created.match_id, seat, created.tokens[seat], info["version"],
                                info["legal_actions"][0]["id"])
    ladders = LadderService(svc)
    bots = [await ladders.register_bot(f"mig{i}", admin_token=ADMIN) for i in range(2)]
    lad = await ladders.create_ladder(LadderSpec("m", "schnapsen-at", [b["bot_id"] for b in bots], rounds=2,
                                                 deals_per_game=1, concurrency=1, seed=3), admin_token=ADMIN)
    await LadderDriver(ladders).run_once()
    before = await ladders.ladder(lad["ladder_id"])
    version = (await svc.information_set(created.match_id, 0, created.tokens[0]))["version"]
    await ladders.aclose()
    await store.aclose()
    return {"match": created, "version": version, "ladder": lad["ladder_id"], "ladder_before": before,
            "deadline": await client.zscore(keys.KeyLayout().deadlines_key(0), created.match_id)}


async def _to_layout_1(client: aioredis.Redis) -> None:
    """Rename every key to the name the code before layout 2 gave it."""
    for raw in [k async for k in client.scan_iter(match="bm:*")]:
        key = raw.decode()
        if key.startswith("bm:{s0}:m:"):
            match_id, _, kind = key[len("bm:{s0}:m:"):].rpartition(":")
            await client.rename(key, f"bm:{{{match_id}}}:{kind}")
        elif key.startswith("bm:{s0}:"):
            await client.rename(key, "bm:" + key[len("bm:{s0}:"):])  # deadlines, active, feed
        elif key.startswith("bm:ladder:{"):
            lid, _, rest = key[len("bm:ladder:{"):].partition("}")
            await client.rename(key, f"bm:ladder:{lid}{rest}")
        elif key.startswith("bm:botq:{"):
            bot, _, rest = key[len("bm:botq:{"):].partition("}")
            if rest.startswith(":assigned:"):
                await client.rename(key, "bm:assigned:" + rest[len(":assigned:"):])
            else:
                await client.rename(key, f"bm:botq:{bot}")
    await client.delete(keys.LAYOUT_KEY)


async def test_layout_1_data_is_refused_then_migrated_and_its_match_and_ladder_go_on(client: aioredis.Redis) -> None:
    world = await _running_world(client)
    await _to_layout_1(client)
    assert await client.exists("bm:deadlines", "bm:active") == 2
    with pytest.raises(LayoutError, match="bummerl migrate"):
        await read_layout(client)

    report = await migrate(client)
    assert report.from_layout == (1, 1) and report.to_layout == (2, 1)
    assert report.matches >= 2 and report.ladders == 1 and report.bot_queues >= 1  # the match + the ladder's game
    assert not await client.exists("bm:deadlines", "bm:active", "bm:feed")
    layout = await read_layout(client)
    assert layout == keys.KeyLayout(1)
    created = world["match"]
    assert await client.zscore(layout.deadlines_key(0), created.match_id) == world["deadline"]

    store = MatchStore(client, layout=layout)
    svc = MatchService(store, admin_token=ADMIN)
    info = await svc.information_set(created.match_id, 0, created.tokens[0])
    assert info["version"] == world["version"]  # nothing lost, and it plays on
    seat = info["deal"]["to_act"]
    info = await svc.information_set(created.match_id, seat, created.tokens[seat])
    update = await svc.submit_action(created.match_id, seat, created.tokens[seat], info["version"],
                                     info["legal_actions"][0]["id"])
    assert update.version == world["version"] + 1
    ladders = LadderService(svc)
    lad = await ladders.ladder(world["ladder"])
    before = world["ladder_before"]
    assert (lad["status"], lad["matches_running"], lad["matches_total"]) == (
        "running", before["matches_running"], before["matches_total"])
    queues = [k async for k in client.scan_iter(match="bm:botq:{*}")]
    assert queues and all(b"assigned" not in k for k in queues)
    await ladders.aclose()
    await store.aclose()

    again = await migrate(client)  # idempotent
    assert again.keys_moved == 0 and again.from_layout == (2, 1)


async def test_resharding_moves_each_match_with_its_deadline(client: aioredis.Redis) -> None:
    world = await _running_world(client)
    created = world["match"]
    dry = await migrate(client, 4, dry_run=True)
    assert dry.to_layout == (2, 4) and (await read_layout(client)).shards == 1  # nothing written
    report = await migrate(client, 4)
    assert report.from_layout == (2, 1) and report.to_layout == (2, 4)
    layout = await read_layout(client)
    assert layout.shards == 4
    shard = layout.shard_of(created.match_id)
    assert await client.zscore(layout.deadlines_key(shard), created.match_id) == world["deadline"]
    assert await client.sismember(layout.active_key(shard), created.match_id)
    with pytest.raises(LayoutError, match="--shards"):
        await read_layout(client, shards=2)
    store = MatchStore(client, layout=layout)
    svc = MatchService(store, admin_token=ADMIN)
    info = await svc.information_set(created.match_id, 0, created.tokens[0])
    assert info["version"] == world["version"]
    await store.aclose()


def test_the_migrate_command_reports_what_it_moved(own_url: str) -> None:
    import asyncio

    async def prepare() -> None:
        c = aioredis.from_url(own_url)
        try:
            await _running_world(c)
            await _to_layout_1(c)
        finally:
            await c.aclose()

    asyncio.run(prepare())
    out = subprocess.run([sys.executable, "-m", "bummerl_cli", "migrate", "--redis-url", own_url, "--json"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout.strip().splitlines()[-1])
    assert report["from_layout"] == [1, 1] and report["to_layout"] == [2, 1] and report["ladders"] == 1


def test_serve_on_a_layout_1_data_dir_names_the_migrate_command_for_that_dir(tmp_path: Any) -> None:
    """An upgraded ``bummerl serve`` on the embedded Valkey's data dir of an older version refuses
    to start (LayoutError, exit 2) and names the command that converts that very dir (the
    embedded Valkey has no URL to give); after ``bummerl migrate --data-dir`` it starts."""
    import redis

    data = tmp_path / "data"
    server = EmbeddedValkey(data_dir=data)
    try:
        c = redis.Redis.from_url(server.start())
        c.hset("bm:ladder:old1", mapping={"name": "an old ladder"})  # a layout 1 key
        c.close()
    finally:
        server.stop()
    cmd = [sys.executable, "-m", "bummerl_cli"]
    ports = ["--port", "0", "--http-port", "0", "--metrics-port", "0"]
    out = subprocess.run([*cmd, "serve", "--data-dir", str(data), *ports], capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and f"bummerl migrate --data-dir {data}" in out.stderr, out.stderr
    mig = subprocess.run([*cmd, "migrate", "--data-dir", str(data), "--json"], capture_output=True, text=True, timeout=60)
    assert mig.returncode == 0, mig.stderr
    assert json.loads(mig.stdout.strip().splitlines()[-1])["to_layout"] == [2, 1]
    proc = subprocess.Popen([*cmd, "serve", "--data-dir", str(data), *ports], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        assert any("gRPC listening" in line for line in iter(proc.stdout.readline, "")), proc.stderr
    finally:
        proc.terminate()
        proc.wait(30)


@pytest.mark.parametrize("flags, says", [
    (["--redis-url", "redis://127.0.0.1:1", "--shards", "16385"], "16384"),
    (["--redis-url", "redis://127.0.0.1:1", "--shards", "100000000"], "16384"),
    (["--redis-url", "redis://127.0.0.1:1", "--shards", "0"], "16384"),
    (["--data-dir", "MISSING"], "no such directory"),
    (["--redis-url", "redis://127.0.0.1:1", "--data-dir", "."], "not both"),
])
def test_the_migrate_command_refuses_bad_flags_at_once(tmp_path: Any, flags: list[str], says: str) -> None:
    """Shards outside serve's range 1..16384, a data dir that is not there (it is not created)
    and both places of the data at once: exit 2 with one error line (argparse's usage aside),
    nothing started or written."""
    missing = tmp_path / "nope"
    flags = [str(missing) if f == "MISSING" else f for f in flags]
    out = subprocess.run([sys.executable, "-m", "bummerl_cli", "migrate", *flags], capture_output=True, text=True,
                         timeout=30)
    assert out.returncode == 2, out
    lines = [ln for ln in out.stderr.strip().splitlines() if not ln.startswith(("usage:", " "))]
    assert len(lines) == 1 and says in lines[0], out.stderr
    assert not missing.exists()


async def test_migrate_refuses_more_shards_than_serve_takes(client: aioredis.Redis) -> None:
    from bummerl.store.migrate import MAX_SHARDS
    with pytest.raises(ValueError, match="1..16384"):
        await migrate(client, MAX_SHARDS + 1)

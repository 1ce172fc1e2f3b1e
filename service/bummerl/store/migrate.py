"""``bummerl migrate``: move a deployment's Redis data to the key layout this code serves.

Two moves, both one-shot and run with **every server stopped** (a running server would write keys
in the old places meanwhile):

* **layout 1 -> 2** (before the sharded layout): match keys ``bm:{<id>}:state|events`` go to
  their shard (``bm:{s<k>}:m:<id>:...``), ``bm:deadlines`` and ``bm:active`` are split by shard,
  ``bm:feed`` (a notification feed, not a record) is dropped, a ladder's keys
  ``bm:ladder:<id>[:<part>]`` get its hash tag (``bm:ladder:{<id>}[:<part>]``), a bot's queue
  ``bm:botq:<bot>`` becomes ``bm:botq:{<bot>}`` and the once-markers of its assignments
  ``bm:assigned:<match>:<seat>`` move next to it, and the house bots' two keys share a tag.
* **S -> S' shards** (layout 2): every match whose shard changes moves with its deadline and its
  place in the active set; the old shards' feeds are dropped.

Keys keep their time to live. On a single node a key moves with ``RENAME`` (atomic); on Redis
Cluster, where source and target may live on different nodes, with ``DUMP``/``RESTORE``/``DEL``.
Running again after it finished changes nothing (``bm:layout`` says it is done); a move that was
interrupted can be run again: a key already moved is not found at its old place any more.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from redis.asyncio.cluster import RedisCluster

import bummerl.store.keys as keys
from bummerl.store.layout import LEGACY_KEYS, stored_layout

__all__ = ["MAX_SHARDS", "MigrationReport", "migrate"]

MAX_SHARDS = keys.MAX_SHARDS

LEGACY_DEADLINES, LEGACY_ACTIVE, LEGACY_FEED = LEGACY_KEYS[:3]
LEGACY_HOUSE = {"bm:house:leases": "bm:house:{h}:leases", "bm:house:tokens": "bm:house:{h}:tokens"}


@dataclass
class MigrationReport:
    """What :func:`migrate` did (or, with ``dry_run``, would do).

    Attributes:
        from_layout, to_layout: ``(version, shards)`` before and after.
        matches: matches moved; ladders: ladders whose keys moved; bot_queues: bot queues moved.
        keys_moved: every key moved (a match has two); deadlines: deadlines re-indexed.
        dry_run: nothing was written.
    """

    from_layout: tuple[int, int]
    to_layout: tuple[int, int]
    matches: int = 0
    ladders: int = 0
    bot_queues: int = 0
    keys_moved: int = 0
    deadlines: int = 0
    dry_run: bool = False
    notes: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {"from_layout": list(self.from_layout), "to_layout": list(self.to_layout), "matches": self.matches,
                "ladders": self.ladders, "bot_queues": self.bot_queues, "keys_moved": self.keys_moved,
                "deadlines": self.deadlines, "dry_run": self.dry_run, "notes": self.notes}


def _text(x: Any) -> str:
    return x.decode() if isinstance(x, bytes) else str(x)


class _Mover:
    def __init__(self, client: Any, report: MigrationReport, progress: Callable[[str], None] | None) -> None:
        self.client = client
        self.cluster = isinstance(client, RedisCluster)
        self.report = report
        self.progress = progress or (lambda _msg: None)

    async def scan(self, pattern: str) -> list[str]:
        return sorted({_text(k) async for k in self.client.scan_iter(match=pattern, count=1000)})

    async def move(self, src: str, dst: str) -> bool:
        """Move one key (keeping its TTL); False if ``src`` is gone (moved by an earlier run)."""
        if src == dst:
            return False
        if self.report.dry_run:
            found = bool(await self.client.exists(src))
            self.report.keys_moved += found
            return found
        if not self.cluster:
            try:
                await self.client.rename(src, dst)
            except Exception as e:  # noqa: BLE001 - "no such key" from RENAME: moved before
                if "no such key" in str(e).lower():
                    return False
                raise
        else:
            dumped = await self.client.dump(src)
            if dumped is None:
                return False
            ttl = int(await self.client.pttl(src))
            await self.client.restore(dst, max(ttl, 0), dumped, replace=True)
            await self.client.delete(src)
        self.report.keys_moved += 1
        return True


async def migrate(client: Any, shards: int | None = None, *, dry_run: bool = False,
                  progress: Callable[[str], None] | None = None) -> MigrationReport:
    """Move the data on ``client`` (a ``redis.asyncio`` Redis or RedisCluster with bytes responses)
    to layout :data:`keys.LAYOUT_VERSION` with ``shards`` shards (default: the stored count, or 1
    on a single node / :data:`keys.CLUSTER_SHARDS` on a cluster for layout 1 data) and write
    ``bm:layout``. ``progress`` gets one line per step. Returns the :class:`MigrationReport`.
    An empty database only gets its layout key. Raises ``ValueError`` for ``shards`` outside 1..:data:`MAX_SHARDS` and the
    Redis errors of the connection; run it with every server stopped."""
    if shards is not None and (isinstance(shards, bool) or not 1 <= shards <= MAX_SHARDS):
        raise ValueError(f"shards must be in 1..{MAX_SHARDS}, got {shards!r}")
    version, stored = await stored_layout(client)
    default = keys.CLUSTER_SHARDS if isinstance(client, RedisCluster) else 1
    target = shards or (stored if version == keys.LAYOUT_VERSION else default)
    report = MigrationReport((version, stored), (keys.LAYOUT_VERSION, target), dry_run=dry_run)
    mover = _Mover(client, report, progress)
    layout = keys.KeyLayout(target)
    if version == 1:
        await _from_layout_1(mover, layout)
    elif version == keys.LAYOUT_VERSION and stored != target:
        await _reshard(mover, keys.KeyLayout(stored), layout)
    elif version not in (0, keys.LAYOUT_VERSION):
        raise ValueError(f"unknown stored layout {version}; this code knows 1 and {keys.LAYOUT_VERSION}")
    if not dry_run:
        await client.hset(keys.LAYOUT_KEY, mapping={"version": keys.LAYOUT_VERSION, "shards": target})
    mover.progress(f"layout {report.from_layout} -> {report.to_layout}: {report.matches} matches, "
                   f"{report.ladders} ladders, {report.bot_queues} bot queues, {report.keys_moved} keys moved")
    return report


async def _from_layout_1(mover: _Mover, layout: keys.KeyLayout) -> None:
    client, report = mover.client, mover.report
    for key in await mover.scan("bm:{*}:state"):
        if key.count(":") != 2:
            continue
        match_id = key[len("bm:{"):-len("}:state")]
        moved = await mover.move(key, layout.state_key(match_id))
        moved = await mover.move(f"bm:{{{match_id}}}:events", layout.events_key(match_id)) or moved
        report.matches += moved
    mover.progress(f"{report.matches} matches moved to {layout.shards} shard(s)")
    deadlines: Any = await client.zrange(LEGACY_DEADLINES, 0, -1, withscores=True)
    for member, score in deadlines or []:
        match_id = _text(member)
        report.deadlines += 1
        if not report.dry_run:
            await client.zadd(layout.deadlines_key(layout.shard_of(match_id)), {match_id: int(score)})
    for member in await client.smembers(LEGACY_ACTIVE) or ():
        match_id = _text(member)
        if not report.dry_run:
            await client.sadd(layout.active_key(layout.shard_of(match_id)), match_id)
    if not report.dry_run:
        await client.delete(LEGACY_DEADLINES)
        await client.delete(LEGACY_ACTIVE)
        await client.delete(LEGACY_FEED)
    ladders: set[str] = set()
    for key in await mover.scan("bm:ladder:[^{]*"):
        ladder_id, _, part = key[len("bm:ladder:"):].partition(":")
        await mover.move(key, keys.ladder_key(ladder_id, *([part] if part else [])))
        ladders.add(ladder_id)
    report.ladders = len(ladders)
    for key in await mover.scan("bm:botq:[^{]*"):
        bot_id = key[len("bm:botq:"):]
        new_queue = keys.botq_key(bot_id)
        entries: Any = await client.xrange(key) if not report.dry_run else []
        if await mover.move(key, new_queue):
            report.bot_queues += 1
        for _eid, fields in entries:  # the once-markers of its assignments move next to it
            try:
                a = json.loads(fields[b"a"])
                old = keys.aux_key("assigned", str(a["match_id"]), str(a["seat"]))
            except (KeyError, ValueError, TypeError):
                continue
            await mover.move(old, keys.botq_key(bot_id, "assigned", str(a["match_id"]), str(a["seat"])))
    for old, new in LEGACY_HOUSE.items():
        await mover.move(old, new)
    leftover = await mover.scan("bm:assigned:*")
    if leftover and not report.dry_run:
        await client.delete(*leftover)  # markers of no queued assignment: their queue entry is gone
        report.notes.append(f"{len(leftover)} assignment markers without a queued assignment dropped")


async def _reshard(mover: _Mover, old: keys.KeyLayout, new: keys.KeyLayout) -> None:
    client, report = mover.client, mover.report
    for shard in range(old.shards):
        prefix = old.shard_prefix(shard)
        for key in await mover.scan(prefix + "m:*:state"):  # braces are not special in Redis globs
            match_id = key[len(prefix) + 2:-len(":state")]
            if new.state_key(match_id) == key:
                continue
            moved = await mover.move(key, new.state_key(match_id))
            moved = await mover.move(old.events_key(match_id), new.events_key(match_id)) or moved
            report.matches += moved
        deadlines: Any = await client.zrange(old.deadlines_key(shard), 0, -1, withscores=True)
        active = [_text(m) for m in await client.smembers(old.active_key(shard)) or ()]
        if report.dry_run:
            report.deadlines += len(deadlines or [])
            continue
        for member, score in deadlines or []:
            match_id = _text(member)
            if new.deadlines_key(new.shard_of(match_id)) != old.deadlines_key(shard):
                await client.zadd(new.deadlines_key(new.shard_of(match_id)), {match_id: int(score)})
                await client.zrem(old.deadlines_key(shard), match_id)
                report.deadlines += 1
        for match_id in active:
            if new.active_key(new.shard_of(match_id)) != old.active_key(shard):
                await client.sadd(new.active_key(new.shard_of(match_id)), match_id)
                await client.srem(old.active_key(shard), match_id)
        if shard >= new.shards:
            await client.delete(old.deadlines_key(shard), old.active_key(shard))
        await client.delete(old.feed_key(shard))
    mover.progress(f"{report.matches} matches moved from {old.shards} to {new.shards} shards")

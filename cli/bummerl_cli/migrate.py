"""``bummerl migrate``: move the data in Redis to this version's key layout, one-shot, with every
server stopped: layout 1 (one global deadlines set, feed and active set) to layout 2 (sharded,
Redis Cluster ready), or layout 2 from S to ``--shards`` shards (:func:`bummerl.store.migrate.migrate`;
a cluster is detected with ``INFO cluster``). Running it again changes nothing.

    bummerl migrate --redis-url URL | --data-dir DIR [--shards S] [--dry-run] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
from typing import Any

from bummerl.store import EmbeddedValkey
from bummerl.store.migrate import MAX_SHARDS, migrate
from bummerl.store.redis_store import open_client


def add_parser(sub: Any) -> None:
    mg = sub.add_parser("migrate", help="move the data in Redis to this version's key layout (servers stopped)",
                        description="One-shot: layout 1 (one global deadlines set, feed and active set) to layout 2 "
                                    "(sharded, Redis Cluster ready), or layout 2 from S to --shards shards. Run it with "
                                    "every server stopped; running it again changes nothing.")
    mg.add_argument("--redis-url", default=None,
                    help="the deployment's Redis or a node of its cluster (default: BUMMERL_REDIS_URL)")
    mg.add_argument("--data-dir", default=None, help="or: the data dir of `bummerl serve`'s embedded Valkey")
    mg.add_argument("--shards", type=shard_count, default=None,
                    help=f"target shard count, 1..{MAX_SHARDS} (default: keep, or 1 / 16 on a cluster)")
    mg.add_argument("--dry-run", action="store_true", help="count what would move, write nothing")
    mg.add_argument("--json", action="store_true", help="print the report as one JSON object")


def shard_count(text: str) -> int:
    """argparse type of ``--shards``: an int in 1..:data:`MAX_SHARDS` (the range ``serve`` takes)."""
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if not 1 <= n <= MAX_SHARDS:
        raise argparse.ArgumentTypeError(f"must be in 1..{MAX_SHARDS}, not {n}")
    return n


def run(args: argparse.Namespace) -> int:
    if args.data_dir and args.redis_url:
        raise ValueError("give --redis-url or --data-dir, not both")
    if args.data_dir and not os.path.isdir(args.data_dir):
        raise ValueError(f"--data-dir {args.data_dir}: no such directory (the data dir of `bummerl serve`)")
    return asyncio.run(migrate_cmd(args))


async def migrate_cmd(args: argparse.Namespace) -> int:
    """:func:`bummerl.store.migrate.migrate` on the given Redis; prints the report."""
    embedded = None
    url = args.redis_url or (None if args.data_dir else os.environ.get("BUMMERL_REDIS_URL"))
    if args.data_dir:
        embedded = EmbeddedValkey(args.data_dir)
        url = embedded.start()
    if not url:
        raise ValueError("say where the data is: --redis-url URL (or BUMMERL_REDIS_URL) or --data-dir DIR")
    try:
        client = await open_client(url)
        try:
            report = await migrate(client, args.shards, dry_run=args.dry_run,
                                   progress=None if args.json else lambda line: print(line, flush=True))
        finally:
            await client.aclose()
    finally:
        if embedded is not None:
            embedded.stop()
    if args.json:
        print(json.dumps(report.as_dict()))
    return 0

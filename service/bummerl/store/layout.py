"""Reading the deployment's key layout from Redis (:data:`bummerl.store.keys.LAYOUT_KEY`).

:func:`read_layout` returns the :class:`~bummerl.store.keys.KeyLayout` every process serves (an
empty database gets layout 2, written once); :func:`stored_layout` says what the data in Redis is
(layout 1 is recognized by :data:`LEGACY_KEYS` and untagged keys). Used by
:meth:`~bummerl.store.redis_store.MatchStore.connect` and :mod:`bummerl.store.migrate`;
re-exported by :mod:`bummerl.store.redis_store`.
"""

from __future__ import annotations

from typing import Any

import bummerl.store.keys as keys
from bummerl.store.errors import LayoutError

__all__ = ["LEGACY_KEYS", "read_layout", "stored_layout"]

_WRITE_ONCE = """
if redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('HSET', KEYS[1], 'version', ARGV[1], 'shards', ARGV[2])
end
return 1
"""
"""Writes the layout's two fields at once if the key is absent: a reader sees all of it or none."""


LEGACY_KEYS = ("bm:deadlines", "bm:active", "bm:feed", "bm:house:leases", "bm:house:tokens")
"""Keys only layout 1 has (global deadlines, active set, feed; the house bots' untagged keys)."""


def _text(x: Any) -> str:
    return x.decode() if isinstance(x, bytes) else str(x)


async def stored_layout(client: Any) -> tuple[int, int]:
    """``(version, shards)`` of the data in Redis: from :data:`keys.LAYOUT_KEY`; else ``(1, 1)`` if a
    key only layout 1 writes exists (:data:`LEGACY_KEYS`, an untagged ladder or bot-queue key, a
    match key ``bm:{<id>}:state``); else ``(0, 0)``, nothing of Bummerl's matches or ladders yet.
    Without the layout key this scans the keyspace (``SCAN``, once per database's life)."""
    raw: Any = await client.hgetall(keys.LAYOUT_KEY)
    if raw:
        return int(raw.get(b"version", 0)), int(raw.get(b"shards", 0))
    for key in LEGACY_KEYS:
        if await client.exists(key):
            return 1, 1
    for pattern in ("bm:ladder:[^{]*", "bm:botq:[^{]*", "bm:{*}:state"):
        async for k in client.scan_iter(match=pattern, count=1000):
            if pattern != "bm:{*}:state" or _text(k).count(":") == 2:  # not bm:{s<k>}:m:<id>:state
                return 1, 1
    return 0, 0


async def read_layout(client: Any, shards: int | None = None, default_shards: int = 1) -> keys.KeyLayout:
    """The deployment's key layout, from :data:`keys.LAYOUT_KEY`; an empty database gets layout 2
    with ``shards`` (or ``default_shards``) shards, written once, both fields in one script that
    writes only if the key is absent, so that processes starting together agree on the first
    writer's count and none reads a half-written layout.

    Raises :class:`LayoutError` if the database holds layout 1 data (:func:`stored_layout`) or a
    layout whose version or shard count (when ``shards`` is given) differs; ``bummerl migrate``
    converts.
    """
    version, stored = await stored_layout(client)
    if version == 1:
        raise LayoutError("this Redis holds Bummerl data in key layout 1; stop every server and run "
                          "`bummerl migrate --redis-url URL` to move it to layout 2")
    if version == 0:
        await client.eval(_WRITE_ONCE, 1, keys.LAYOUT_KEY, keys.LAYOUT_VERSION, shards or default_shards)
        version, stored = await stored_layout(client)
    if version != keys.LAYOUT_VERSION or stored < 1:
        raise LayoutError(f"this Redis holds key layout {version} (shards {stored}); this server serves layout "
                          f"{keys.LAYOUT_VERSION}: run `bummerl migrate`")
    if shards is not None and shards != stored:
        raise LayoutError(f"this Redis is laid out in {stored} shards, not the {shards} configured; run "
                          f"`bummerl migrate --shards {shards}` with every server stopped, or configure {stored}")
    return keys.KeyLayout(stored)

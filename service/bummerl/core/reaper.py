"""The reaper: applies timeout policies when deadlines pass (docs/DESIGN.md §5).

Every server process runs one :class:`Reaper`. It claims expired deadlines from the store's
deadlines sorted set with one atomic script (:meth:`MatchStore.claim_due`: a claimed entry is
leased to that process for ``lease_ms``), then calls :meth:`MatchService.expire` for each, which
commits the policy through the match's version compare-and-set. With any number of processes
exactly one acts on a deadline: the claim gives it to one reaper, and the compare-and-set stops a
late action, or a second reaper after a lease ran out, from committing a second outcome.

What a running reaper sends to Redis does not grow with the load or the polling rate (issue 40):
it looks at a shard's deadlines only when the earliest one it knows there is due (each claim
tells it the shard's earliest deadline left), when its own process indexed an earlier one
(:meth:`MatchStore.take_deadline_hints`, no command), or when it has not looked for ``sweep_ms``
(deadlines that other processes indexed, left by a process that died). Before, every reaper
claimed from every shard every ``poll_ms``: S × K scripts per 50 ms for K servers.

Units: milliseconds. The clock is the service's injected ``now_ms``; tests drive
:meth:`Reaper.run_once` directly and never sleep.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from redis.exceptions import RedisError

from .errors import NotFoundError

if TYPE_CHECKING:
    from .matches import MatchService

log = logging.getLogger(__name__)


class Reaper:
    """Claims and applies expired deadlines for ``service`` (its store and clock).

    ``poll_ms``: longest sleep between two looks at what this process indexed (no Redis command;
    a deadline of its own is claimed at most ``poll_ms`` late); ``sweep_ms``: longest time between
    two claims on one shard (a deadline another process indexed earlier than any this reaper knows
    of is claimed at most ``sweep_ms`` late; so is one whose claimer died, after its lease);
    ``lease_ms``: how long a claimed deadline belongs to this process before another may retry it;
    ``batch``: deadlines claimed per round trip. All in milliseconds; ``ValueError`` below 1.
    """

    def __init__(self, service: MatchService, poll_ms: int = 50, lease_ms: int = 5000, batch: int = 64,
                 sweep_ms: int = 1000) -> None:
        if poll_ms < 1 or lease_ms < 1 or batch < 1 or sweep_ms < 1:
            raise ValueError("poll_ms, lease_ms, batch and sweep_ms must be >= 1")
        self.service = service
        self.poll_ms = poll_ms
        self.sweep_ms = sweep_ms
        self.lease_ms = lease_ms
        self.batch = batch
        self.applied = 0
        """Timeouts this reaper committed (for tests and logs)."""
        self._next: int | None = None
        self._next_at: dict[int, int | None] = {}  # shard -> its earliest deadline at our last look
        self._looked_at: dict[int, int] = {}  # shard -> now_ms of our last look

    async def run_once(self) -> int:
        """Claim every deadline due now on every shard and apply it; returns how many timeouts
        were committed. One script call per shard (more while a shard has a full batch due)."""
        return await self._claim_and_apply(list(range(self.service.store.layout.shards)), self.service.now_ms())

    async def run_due(self) -> int:
        """One round of the running reaper: claim on the shards that may hold a due deadline (see
        the module docstring) and apply what is due; returns how many timeouts were committed.
        Sends nothing to Redis when no shard is due."""
        store = self.service.store
        now = self.service.now_ms()
        for shard, hint in store.take_deadline_hints().items():
            known = self._next_at.get(shard)
            self._next_at[shard] = hint if known is None else min(known, hint)
        shards = [k for k in range(store.layout.shards)
                  if now - self._looked_at.get(k, now - self.sweep_ms) >= self.sweep_ms
                  or ((n := self._next_at.get(k)) is not None and n <= now)]
        return await self._claim_and_apply(shards, now)

    async def _claim_and_apply(self, shards: list[int], now: int) -> int:
        store = self.service.store
        done = 0
        while shards:
            due, nexts = await store.claim_shards(now, self.lease_ms, self.batch, shards)
            for k, n in nexts.items():
                self._next_at[k] = n
                self._looked_at[k] = now
            done += sum(await asyncio.gather(*(self._expire(m) for m in due)))
            if len(due) < self.batch:
                break
            now = self.service.now_ms()  # a full batch: there may be more, on any of these shards
        self.applied += done
        known = [n for n in self._next_at.values() if n is not None]
        self._next = min(known) if known else None
        return done

    def _wake_in_ms(self) -> int:
        """Until the next due deadline known or the next sweep of a shard, at most ``poll_ms``."""
        now = self.service.now_ms()
        soonest = now + self.poll_ms
        if self._next is not None:
            soonest = min(soonest, self._next)
        if self._looked_at:
            soonest = min(soonest, min(self._looked_at.values()) + self.sweep_ms)
        return max(1, soonest - now + 1)

    async def _expire(self, match_id: str) -> int:
        try:
            return 0 if await self.service.expire(match_id) is None else 1
        except NotFoundError:
            return 0
        except Exception:  # noqa: BLE001 - one bad match must not stop the reaper; the lease retries it
            log.exception("reaper: applying the deadline of a match failed; it is retried after the lease")
            return 0

    async def run(self, stop: asyncio.Event) -> None:
        """Loop until ``stop`` is set: apply due deadlines (:meth:`run_due`), sleep until the next
        one or the next sweep (at most ``poll_ms``). Redis errors are logged and retried after a
        second."""
        while not stop.is_set():
            try:
                await self.run_due()
                wait = self._wake_in_ms() / 1000
            except (RedisError, OSError) as e:
                log.warning("reaper: redis unavailable (%s); retrying", type(e).__name__)
                wait = 1.0
            try:
                await asyncio.wait_for(stop.wait(), timeout=wait)
            except TimeoutError:
                pass

"""The reaper: applies timeout policies when deadlines pass (docs/DESIGN.md §5).

Every server process runs one :class:`Reaper`. It claims expired deadlines from the store's
deadlines sorted set with one atomic script (:meth:`MatchStore.claim_due`: a claimed entry is
leased to that process for ``lease_ms``), then calls :meth:`MatchService.expire` for each, which
commits the policy through the match's version compare-and-set. With any number of processes
exactly one acts on a deadline: the claim gives it to one reaper, and the compare-and-set stops a
late action, or a second reaper after a lease ran out, from committing a second outcome.

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

    ``poll_ms``: longest sleep between two looks at the deadlines (it sleeps less when the next
    deadline is sooner); ``lease_ms``: how long a claimed deadline belongs to this process before
    another may retry it; ``batch``: deadlines claimed per round trip.
    """

    def __init__(self, service: MatchService, poll_ms: int = 50, lease_ms: int = 5000, batch: int = 64) -> None:
        if poll_ms < 1 or lease_ms < 1 or batch < 1:
            raise ValueError("poll_ms, lease_ms and batch must be >= 1")
        self.service = service
        self.poll_ms = poll_ms
        self.lease_ms = lease_ms
        self.batch = batch
        self.applied = 0
        """Timeouts this reaper committed (for tests and logs)."""
        self._next: int | None = None

    async def run_once(self) -> int:
        """Claim every deadline due now and apply it; returns how many timeouts were committed."""
        store = self.service.store
        done = 0
        while True:
            due, self._next = await store.claim_round(self.service.now_ms(), self.lease_ms, self.batch)
            done += sum(await asyncio.gather(*(self._expire(m) for m in due)))
            if len(due) < self.batch:
                break
        self.applied += done
        return done

    async def _expire(self, match_id: str) -> int:
        try:
            return 0 if await self.service.expire(match_id) is None else 1
        except NotFoundError:
            return 0
        except Exception:  # noqa: BLE001 - one bad match must not stop the reaper; the lease retries it
            log.exception("reaper: applying the deadline of a match failed; it is retried after the lease")
            return 0

    async def _sleep_s(self) -> float:
        """Until the next deadline the last round saw (claims push theirs by the lease), at most
        ``poll_ms``: a deadline another process adds is seen within ``poll_ms``."""
        nxt = self._next
        wait = self.poll_ms if nxt is None else min(self.poll_ms, max(1, nxt - self.service.now_ms() + 1))
        return wait / 1000

    async def run(self, stop: asyncio.Event) -> None:
        """Loop until ``stop`` is set: apply due deadlines, sleep until the next one (at most
        ``poll_ms``). Redis errors are logged and retried after a second."""
        while not stop.is_set():
            try:
                await self.run_once()
                wait = await self._sleep_s()
            except (RedisError, OSError) as e:
                log.warning("reaper: redis unavailable (%s); retrying", type(e).__name__)
                wait = 1.0
            try:
                await asyncio.wait_for(stop.wait(), timeout=wait)
            except TimeoutError:
                pass

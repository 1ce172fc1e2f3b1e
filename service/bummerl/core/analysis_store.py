"""The post-game analysis as the API serves it (``GetMatchAnalysis``, issue 39): gated like the
replay, computed once per match by whichever server process takes its lock, cached in Redis as
long as the match is kept.

* **Gate** (:meth:`Analyses.get`): the match's watch access (:func:`bummerl.core.spectate.authorize_watch`:
  a token-only match to its watch, seat or admin tokens), then the match must be over (for
  everyone, the admin too) and the replay gate must pass (:meth:`bummerl.core.spectate.Spectators.replay_allowed`:
  a ladder game only once its whole duplicate set is over, or for the admin). Otherwise
  ReplayNotAvailableError (FAILED_PRECONDITION, reason ``REPLAY_NOT_AVAILABLE``). The analysis
  of a decision uses only that seat's information set (:mod:`bummerl.core.analysis`), but the
  decisions taken name the cards played, so it is served no earlier than the replay that shows
  every card.
* **Once per match**: the first caller that finds no cached analysis takes the lock
  ``bm:analysis:<match>:lock`` (``SET NX PX`` :data:`LOCK_MS`, holding a random token; renewed every
  :data:`LOCK_MS`/3 while the computation runs or waits for a worker) and starts the computation in
  the background; every caller meanwhile gets state ``"pending"`` with ``retry_after_ms``
  (:data:`RETRY_MS`). A replica that dies while computing leaves the lock to expire; the next
  caller after that starts it again. A computation that fails keeps the lock until it expires, so
  a failing match is tried at most once per :data:`LOCK_MS`.
* **Off the event loop**: the search runs in a process pool of ``workers`` processes (spawned
  when first needed, at a lower priority, ``nice`` +:data:`NICE`: seats come first; 0 = one worker
  thread), one decision at a time (a unit of work of at most ``budget_ms``), so the CPU it takes is
  bounded by the workers whatever the number of callers, and a process that stops leaves at most
  one decision running.
* **Cache**: ``bm:analysis:<match>``, the ``MatchAnalysis`` message as JSON (state ``"done"``),
  expiring with the match (the match key's remaining time to live; the service's retention when the
  match key has none left to read; kept when matches are kept).

Cost: at most ``budget_ms`` of wall time per decision with a choice
(:class:`bummerl.core.analysis.AnalysisSettings`, 32 worlds, 150 ms by default).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import multiprocessing
import os
import secrets
import weakref
from collections.abc import Callable, Sequence
from typing import Any

import orjson

from bummerl.store.keys import aux_key

from .analysis import (
    AnalysisSettings,
    decision_seed,
    decision_steps,
    finish,
    timed_values,
    to_message,
    valuable,
    with_values,
)
from .errors import ReplayNotAvailableError
from .spectate import Spectators, authorize_watch

log = logging.getLogger(__name__)

RETRY_MS = 2000
"""``retry_after_ms`` of a pending answer: when to ask again, milliseconds."""
LOCK_MS = 60_000
"""Time to live of the computing process's lock, milliseconds (renewed every third of it)."""

_RENEW = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end return 0"
_RELEASE = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0"

NICE = 10
"""Niceness added to the analysis worker processes."""

ValueFn = Callable[[dict[str, Any], AnalysisSettings, int], tuple[dict[int, float] | None, float]]
"""The valuation of one decision: ``(information set, settings, seed) -> (values or None, CPU ms)``."""


def _lower_priority() -> None:
    with contextlib.suppress(OSError, AttributeError):
        os.nice(NICE)


def cache_key(match_id: str) -> str:
    """``bm:analysis:<match>``: the cached ``MatchAnalysis`` JSON."""
    return aux_key("analysis", match_id)


def lock_key(match_id: str) -> str:
    """``bm:analysis:<match>:lock``: the token of the process computing it."""
    return aux_key("analysis", match_id, "lock")


_REGISTRY: weakref.WeakKeyDictionary[Spectators, Analyses] = weakref.WeakKeyDictionary()


class Analyses:
    """The analyses of one server process over its :class:`~bummerl.core.spectate.Spectators`
    (same store, same gate). ``settings``: the search's
    (:class:`~bummerl.core.analysis.AnalysisSettings`); ``workers``: processes of the pool (0 = a
    worker thread); ``value_fn``: the valuation of one decision (picklable when ``workers`` > 0).
    :attr:`computed` counts the computations of a match this process started."""

    def __init__(self, spectators: Spectators, settings: AnalysisSettings | None = None, workers: int = 1,
                 value_fn: ValueFn = timed_values) -> None:
        self.spectators = spectators
        self.matches = spectators.matches
        self.settings = settings or AnalysisSettings()
        self.workers = workers
        self.value_fn = value_fn
        self.computed = 0
        self.retry_ms = RETRY_MS
        self.lock_ms = LOCK_MS
        self._pool: concurrent.futures.Executor | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    @classmethod
    def of(cls, spectators: Spectators) -> Analyses:
        """The one :class:`Analyses` of ``spectators`` (made with the defaults on first use)."""
        got = _REGISTRY.get(spectators)
        if got is None:
            got = _REGISTRY[spectators] = cls(spectators)
        return got

    @property
    def redis(self) -> Any:
        """The store's Redis client."""
        return self.matches.store.client

    def pending(self, match_id: str) -> dict[str, Any]:
        """The ``MatchAnalysis`` dict of an analysis not there yet (state ``"pending"``)."""
        s = self.settings
        return {"match_id": match_id, "state": "pending", "retry_after_ms": self.retry_ms, "decisions": [],
                "seats": [], "cpu_ms": 0.0,
                "settings": {"samples": s.samples, "budget_ms": float(s.budget_ms), "seed": s.seed}}

    async def get(self, match_id: str, token: str | None) -> dict[str, Any]:
        """The ``MatchAnalysis`` dict of a finished match: state ``"done"`` with every decision
        and seat, or ``"pending"`` (``retry_after_ms``) while it is computed (this call starts it
        when nobody has). Raises NotFoundError, InvalidArgumentError (a malformed id), the access
        errors of :func:`authorize_watch` and ReplayNotAvailableError (the match is not over, or
        a ladder game's duplicate set is not)."""
        ld = await self.matches._load(match_id)
        authorize_watch(ld.meta, token, self.matches.is_admin(token))
        if not ld.state.over:
            raise ReplayNotAvailableError("no analysis yet: the match is not over")
        if not await self.spectators.replay_allowed(ld, token):
            raise ReplayNotAvailableError("no analysis yet: its ladder's duplicate set is not over")
        raw = await self.redis.get(cache_key(match_id))
        if raw is not None:
            done: dict[str, Any] = orjson.loads(raw)
            return done
        lock = secrets.token_hex(8)
        if await self.redis.set(lock_key(match_id), lock, nx=True, px=self.lock_ms):
            raw = await self.redis.get(cache_key(match_id))  # finished between our read and the lock
            if raw is not None:
                await self.redis.eval(_RELEASE, 1, lock_key(match_id), lock)
                again: dict[str, Any] = orjson.loads(raw)
                return again
            names = [str(n) for n in ld.meta.get("seats") or []]
            task = asyncio.create_task(self._run(match_id, ld.state.to_dict(actions=False), ld.state.num_seats,
                                                 [list(e) for e in ld.entries], names, lock),
                                       name=f"bummerl-analysis-{match_id}")
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        return self.pending(match_id)

    def _executor(self) -> concurrent.futures.Executor:
        if self._pool is None:
            if self.workers > 0:
                self._pool = concurrent.futures.ProcessPoolExecutor(
                    self.workers, mp_context=multiprocessing.get_context("spawn"), initializer=_lower_priority)
            else:
                self._pool = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="bummerl-analysis")
        return self._pool

    async def _run(self, match_id: str, log_: dict[str, Any], num_seats: int, entries: list[list[Any]],
                   names: Sequence[str], lock: str) -> None:
        renew = asyncio.create_task(self._renew(match_id, lock))
        ok = False
        try:
            self.computed += 1
            msg = to_message(await self._compute(log_, num_seats, entries), match_id, names)
            ttl = await self._ttl_ms(match_id)
            await self.redis.set(cache_key(match_id), orjson.dumps(msg), px=ttl or None)
            ok = True
        except asyncio.CancelledError:
            raise
        except Exception:  # noqa: BLE001 - logged; the lock runs out and a later caller tries again
            log.exception("analysis of match %s failed", match_id)
        finally:
            renew.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await renew
            if ok:
                with contextlib.suppress(Exception):
                    await self.redis.eval(_RELEASE, 1, lock_key(match_id), lock)

    async def _compute(self, log_: dict[str, Any], num_seats: int, entries: list[list[Any]]) -> dict[str, Any]:
        """The :func:`bummerl.core.analysis.analyse_log` result, each valued decision a unit of
        work of the pool (the match is replayed here: ~60 us a version, yielding every 32)."""
        loop = asyncio.get_running_loop()
        settings, cpu_ms, decisions = self.settings, 0.0, []
        for n, (row, info) in enumerate(decision_steps(log_, entries)):
            values = None
            if n % 32 == 31:
                await asyncio.sleep(0)  # ~60 us a step: a long match without a valued decision still yields
            if valuable(info):
                values, ms = await loop.run_in_executor(self._executor(), self.value_fn, info, settings,
                                                        decision_seed(settings, row["version"]))
                cpu_ms += ms
            decisions.append(with_values(row, values))
        return finish(decisions, num_seats, cpu_ms, settings)

    async def _renew(self, match_id: str, lock: str) -> None:
        while True:
            await asyncio.sleep(self.lock_ms / 3000)
            with contextlib.suppress(Exception):
                await self.redis.eval(_RENEW, 1, lock_key(match_id), lock, self.lock_ms)

    async def _ttl_ms(self, match_id: str) -> int:
        """The match key's remaining time to live (ms); 0 = no expiry; the service's retention
        when the key is gone."""
        left = int(await self.redis.pttl(self.matches.store.layout.state_key(match_id)))
        if left > 0:
            return left
        return 0 if left == -1 else int(self.matches.retention_ms)

    async def wait_idle(self) -> None:
        """Wait for the computations this process runs (tests, shutdown)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    async def close(self) -> None:
        """Cancel the running computations and shut the workers down."""
        for t in list(self._tasks):
            t.cancel()
        await self.wait_idle()
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None

"""House bots: seats the server plays itself with a bundled bot (``random``, ``greedy``,
``strong``), so that a person in a browser or a remote bot in any language can play one without
running anything.

A ``CreateMatch`` seat named ``house:<bot spec>`` (``house:greedy``, ``house:strong:budget_ms=100``)
is played by the server process that created the match: it follows the seat's own event stream
(:meth:`MatchService.stream`) and submits like any client, so the match is an ordinary one (same
checks, clocks, record). Which bots are offered, how much time a ``strong`` bot may think per
decision and how many house seats a process plays at once are settings
(:class:`bummerl.config.Settings`: ``house_bots``, ``house_budget_ms``, ``house_max_seats``);
decisions run in a process pool (``house_workers``; 0 = a worker thread), never on the event loop.
A house seat's token is kept by the server, not returned to the creator. If the process that plays
a house seat stops, the seat no longer moves: the match's clock or idle limit ends it.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import multiprocessing
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bummerl import metrics
from bummerl_client.bot import InfoSet
from bummerl_client.bots import make_bot
from bummerl_client.bots.strong import parse_options

from .errors import (
    InvalidArgumentError,
    MatchOverError,
    ResourceExhaustedError,
    StaleVersionError,
    TimeoutLostError,
)
from .matches import MatchService

log = logging.getLogger(__name__)

PREFIX = "house:"
"""Seat names starting with this are played by the server."""


def _decide(spec: str, seed: int, info: dict[str, Any]) -> int | str:
    """One decision of a fresh bundled bot (runs in a worker process or thread)."""
    choice: int | str = make_bot(spec, seed).choose(InfoSet(info))
    return choice


@dataclass(frozen=True)
class HouseSettings:
    """``bots``: the bundled bot names offered; ``budget_ms``: the most a ``strong`` bot may think
    per decision (milliseconds); ``workers``: decision processes (0 = a thread);
    ``max_seats``: house seats of running matches played at once by this process."""

    bots: tuple[str, ...] = ("random", "greedy", "strong")
    budget_ms: int = 200
    workers: int = 1
    max_seats: int = 32


class HouseBots:
    """Plays the ``house:`` seats of the matches this process creates."""

    def __init__(self, matches: MatchService, settings: HouseSettings = HouseSettings()) -> None:
        self.matches = matches
        self.settings = settings
        self._tasks: set[asyncio.Task[None]] = set()
        self._pool: concurrent.futures.Executor | None = None

    def plan(self, names: Sequence[str]) -> dict[int, str]:
        """The seats of ``names`` that are house seats -> their bot spec, the budget cut to the
        setting. Raises InvalidArgumentError for a bot that is not offered or a bad option, and
        ResourceExhaustedError when this process already plays ``max_seats`` house seats."""
        out: dict[int, str] = {}
        for i, name in enumerate(names):
            if not name.startswith(PREFIX):
                continue
            bot, _, opts = name[len(PREFIX):].partition(":")
            if bot not in self.settings.bots:
                offered = ", ".join(PREFIX + b for b in self.settings.bots) or "none"
                raise InvalidArgumentError(f"seat {i}: no house bot {bot[:32]!r} on this server; offered: {offered}")
            try:
                options = parse_options(opts)
                if bot == "strong":
                    asked = float(options.get("budget_ms", "0") or 0)
                    cap = self.settings.budget_ms
                    options["budget_ms"] = f"{min(asked, cap) if asked > 0 else cap:g}"
                spec = bot + (":" + ",".join(f"{k}={v}" for k, v in options.items()) if options else "")
                make_bot(spec, 0)
            except ValueError as e:
                raise InvalidArgumentError(f"seat {i}: {e}") from None
            out[i] = spec
        if out and len(self._tasks) + len(out) > self.settings.max_seats:
            raise ResourceExhaustedError(f"this server plays {len(self._tasks)} house seats already "
                                         f"(at most {self.settings.max_seats}); retry later", retry_after_ms=5000)
        return out

    def start(self, match_id: str, seats: dict[int, str], tokens: Sequence[str]) -> None:
        """Play the planned ``seats`` (seat -> spec) of the new match with their seat ``tokens``."""
        for seat, spec in seats.items():
            task = asyncio.create_task(self._play(match_id, seat, tokens[seat], spec), name=f"house-{match_id}-{seat}")
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    @property
    def active(self) -> int:
        """House seats being played now."""
        return len(self._tasks)

    def _executor(self) -> concurrent.futures.Executor:
        if self._pool is None:
            if self.settings.workers > 0:
                self._pool = concurrent.futures.ProcessPoolExecutor(
                    self.settings.workers, mp_context=multiprocessing.get_context("spawn"))
            else:
                self._pool = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="house-bot")
        return self._pool

    async def _play(self, match_id: str, seat: int, token: str, spec: str) -> None:
        seed = secrets.randbits(32)
        loop = asyncio.get_running_loop()
        try:
            async for u in self.matches.stream(match_id, seat, token):
                info = u.information_set
                if not info["legal_actions"] or u.match_over:
                    continue
                version = int(info["version"])
                answer = await loop.run_in_executor(self._executor(), _decide, spec, seed + version, dict(info))
                metrics.house_decision(spec.partition(":")[0])
                legal = {a["text"]: a["id"] for a in info["legal_actions"]}
                action = legal.get(answer, answer) if isinstance(answer, str) else answer
                await self._submit(match_id, seat, token, version, action)
        except asyncio.CancelledError:
            raise
        except Exception:  # a broken bot must not take the server down: the seat resigns
            log.exception("house bot %s of match %s seat %d failed; resigning the seat", spec, match_id, seat)
            with contextlib.suppress(Exception):
                await self.matches.resign(match_id, seat, token, "disconnect")

    async def _submit(self, match_id: str, seat: int, token: str, version: int, action: int | str) -> None:
        """Submit like a client: a stale version, a lost clock or an ended match just moves on to
        the next update; a rate limit (``BUMMERL_RATE_ACTIONS_PER_S``) is waited out."""
        for _ in range(20):
            try:
                with contextlib.suppress(StaleVersionError, TimeoutLostError, MatchOverError):
                    await self.matches.submit_action(match_id, seat, token, version, action)
                return
            except ResourceExhaustedError as e:
                await asyncio.sleep(max(e.retry_after_ms, 50) / 1000)

    async def close(self) -> None:
        """Stop playing (the seats stay in their matches) and shut the decision workers down."""
        for t in list(self._tasks):
            t.cancel()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None

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
A house seat's token is kept by the server, not returned to the creator.

A house seat survives the process that plays it: the seat is leased in Redis (``bm:house:leases``,
a sorted set ``<match>|<seat>|<spec>`` -> lease expiry in ms, renewed every :data:`LEASE_MS`/3 by the
process playing it; its token in ``bm:house:tokens``, server-internal, never given out), and every
process's :meth:`HouseBots.run` takes over the seats whose lease has run out (a process that died)
and plays them on, up to its ``max_seats``. A seat leaves both keys when its match ends.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import hashlib
import hmac
import logging
import multiprocessing
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bummerl import metrics
from bummerl.bots import InfoSet, make_bot, parse_bot_spec

from .errors import (
    InvalidArgumentError,
    MatchOverError,
    ResourceExhaustedError,
    StaleVersionError,
    TimeoutLostError,
)
from .matches import MatchService

log = logging.getLogger(__name__)

_LEASES = "bm:house:{h}:leases"
_TOKENS = "bm:house:{h}:tokens"
_SECRET = "bm:house:{h}:secret"
# one hash tag: the seat is written to both in one MULTI, which Redis Cluster allows in one slot only

PREFIX = "house:"
"""Seat names starting with this are played by the server."""

LEASE_MS = 15_000
"""How long a house seat stays with the process that plays it without a renewal (ms)."""

_CLAIM = """
local got = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
for _, m in ipairs(got) do redis.call('ZADD', KEYS[1], ARGV[2], m) end
return got
"""
"""Claim up to ARGV[3] house seats whose lease ran out by ARGV[1] (ms): their lease becomes ARGV[2]."""


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
        self._held: set[str] = set()  # lease members this process plays
        self._pool: concurrent.futures.Executor | None = None
        self._claim: Any = None
        self._secret: bytes | None = None

    @property
    def redis(self) -> Any:
        """The store's Redis client (leases and tokens of house seats)."""
        return self.matches.store.client

    async def run(self, stop: asyncio.Event) -> None:
        """Until ``stop``: every :data:`LEASE_MS`/3, renew the leases of the seats this process
        plays and take over (up to ``max_seats``) the seats whose lease ran out. Redis errors are
        one log line and a retry."""
        while not stop.is_set():
            try:
                await self.sweep()
            except Exception as e:  # noqa: BLE001 - redis down: the next pass retries
                log.warning("house bots: lease pass failed (%s)", type(e).__name__)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), LEASE_MS / 3000)

    async def sweep(self) -> int:
        """One lease pass (see :meth:`run`); returns how many seats it took over."""
        now = self.matches.now_ms()
        if self._held:
            await self.redis.zadd(_LEASES, {m: now + LEASE_MS for m in self._held}, xx=True)
        room = self.settings.max_seats - len(self._tasks)
        if room <= 0:
            return 0
        taken = 0
        if self._claim is None:
            self._claim = self.redis.register_script(_CLAIM)
        for raw in await self._claim(keys=[_LEASES], args=[now, now + LEASE_MS, room]) or []:
            member = raw.decode() if isinstance(raw, bytes) else str(raw)
            match_id, seat, spec = member.split("|", 2)
            token = await self.redis.hget(_TOKENS, f"{match_id}|{seat}")
            if token is None or not await self.matches.store.is_running(match_id):
                await self._forget(member)
                continue
            self._launch(match_id, int(seat), token if isinstance(token, str) else token.decode(), spec, member)
            taken += 1
        return taken

    async def _forget(self, member: str) -> None:
        match_id, seat, _spec = member.split("|", 2)
        self._held.discard(member)
        await self.redis.zrem(_LEASES, member)
        await self.redis.hdel(_TOKENS, f"{match_id}|{seat}")

    def _launch(self, match_id: str, seat: int, token: str, spec: str, member: str) -> None:
        self._held.add(member)
        task = asyncio.create_task(self._play(match_id, seat, token, spec, member), name=f"house-{match_id}-{seat}")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def plan(self, names: Sequence[str]) -> dict[int, str]:
        """The seats of ``names`` that are house seats -> their bot spec, the budget cut to the
        setting. Raises InvalidArgumentError for a bot that is not offered or a bad option, and
        ResourceExhaustedError when this process already plays ``max_seats`` house seats."""
        out: dict[int, str] = {}
        for i, name in enumerate(names):
            if not name.startswith(PREFIX):
                continue
            try:
                parsed = parse_bot_spec(name)
            except ValueError as e:
                raise InvalidArgumentError(f"seat {i}: {e}") from None
            bot = parsed.name
            if bot not in self.settings.bots:
                offered = ", ".join(PREFIX + b for b in self.settings.bots) or "none"
                raise InvalidArgumentError(f"seat {i}: no house bot {bot[:32]!r} on this server; offered: {offered}")
            try:
                options = dict(parsed.options)
                if bot == "strong":
                    make_bot(parsed, 0)  # each option checked as the bot states it
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

    async def start(self, match_id: str, seats: dict[int, str], tokens: Mapping[int, str] | Sequence[str]) -> None:
        """Lease and play the planned ``seats`` (seat -> spec) of the match with their ``tokens``
        (by seat; kept in Redis, so that another process can play on if this one stops). A seat
        already leased (by any process, its lease running or run out) is left to its lease: so a
        process that takes a ladder game over may call this again without playing a seat twice."""
        now = self.matches.now_ms()
        for seat, spec in seats.items():
            member = f"{match_id}|{seat}|{spec}"
            pipe = self.redis.pipeline(transaction=True)
            pipe.hset(_TOKENS, f"{match_id}|{seat}", tokens[seat])
            pipe.zadd(_LEASES, {member: now + LEASE_MS}, nx=True)
            _, added = await pipe.execute()
            if added:
                self._launch(match_id, seat, tokens[seat], spec, member)

    async def seat_token(self, match_id: str, seat: int) -> str:
        """The token of house seat ``seat`` of a ladder game's match ``match_id`` (64 hex
        characters): HMAC-SHA256 of ``"<match_id>|<seat>"`` under a secret every process shares
        (written once to Redis by the first that needs it). The ladder creates the match with its
        hash as the seat's bot token, so a process taking over a game whose claimer died after
        creating the match, before leasing its house seats, can still lease and play them."""
        if self._secret is None:
            await self.redis.set(_SECRET, secrets.token_hex(32), nx=True)
            raw = await self.redis.get(_SECRET)
            self._secret = raw if isinstance(raw, bytes) else str(raw).encode()
        return hmac.new(self._secret, f"{match_id}|{seat}".encode(), hashlib.sha256).hexdigest()

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

    async def _play(self, match_id: str, seat: int, token: str, spec: str, member: str) -> None:
        try:
            await self._play_seat(match_id, seat, token, spec)
        except asyncio.CancelledError:
            self._held.discard(member)  # stopped with the process: the lease runs out, another takes over
            raise
        await self._forget(member)  # the match ended (or the seat resigned): nothing to take over

    async def _play_seat(self, match_id: str, seat: int, token: str, spec: str) -> None:
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

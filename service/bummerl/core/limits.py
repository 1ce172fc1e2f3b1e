"""Per-caller rate limits kept in Redis, so that every server process counts the same calls.

A sliding window per (kind, caller): a sorted set ``bm:rl:<kind>:<caller>`` holds the times (ms)
of the caller's admitted calls of the last window; one Lua script (:data:`SLIDING_WINDOW_LUA`,
atomic, one round trip) drops the calls older than a window, admits the call if fewer than the
limit are left and records it. So no window of that length ever holds more than the limit (a
fixed-window counter lets twice the limit through across a window boundary). A call over the
limit raises :class:`ResourceExhaustedError` whose ``retry_after_ms`` is the time until the
oldest recorded call leaves the window; a refused call is not recorded, so hammering neither
shortens nor lengthens the wait. Limits are calls per **second** (actions) or per **minute**
(match creation, failed authentications); 0 = no limit. Callers are identified by a hash (a seat
token's hash) or a peer address, never by a secret.

Kinds: ``create`` (CreateMatch per peer), ``action`` (SubmitAction per seat token) and ``auth``
(failed authentications per peer: wrong or missing seat, bot or admin tokens; see
:func:`bummerl.api.errors.map_errors`).

Also here: :class:`OpenCounts` (open streams per key under a cap, in this process),
:func:`address_key` (the key of a client address for such caps) and :class:`LoopLag` (how late this
process's event loop runs: the overload signal that sheds spectators before seats slow down).
"""

from __future__ import annotations

import asyncio
import ipaddress
import secrets
import time
import urllib.parse
from collections import Counter, deque
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from bummerl import metrics
from bummerl.store import MatchStore
from bummerl.store.keys import aux_key

from .errors import ResourceExhaustedError


@dataclass(frozen=True)
class Limit:
    """``calls`` per ``window_ms`` milliseconds; ``calls == 0`` = unlimited."""

    calls: int
    window_ms: int

    def __post_init__(self) -> None:
        if self.calls < 0 or self.window_ms < 1:
            raise ValueError("a limit needs calls >= 0 and window_ms >= 1")


SLIDING_WINDOW_LUA = """
-- KEYS[1]: sorted set of the caller's admitted calls (score = time in ms)
-- ARGV[1]: now (ms), ARGV[2]: window (ms), ARGV[3]: calls allowed per window, ARGV[4]: a unique member
-- returns 0 when the call is admitted (and recorded), else the ms until a call leaves the window
local now, window, calls = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
if redis.call('ZCARD', KEYS[1]) < calls then
  redis.call('ZADD', KEYS[1], now, ARGV[4])
  redis.call('PEXPIRE', KEYS[1], window)
  return 0
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return math.max(1, tonumber(oldest[2]) + window - now)
"""
"""The sliding-window check: one atomic script per call (see the module docstring)."""

_WHAT = {"create": "CreateMatch calls", "action": "SubmitAction calls", "auth": "failed authentications"}


class RateLimiter:
    """Counts calls per (kind, caller) in the store's Redis; ``now_ms`` is the injected clock
    (milliseconds; every process of one deployment should share a clock to within a few ms)."""

    def __init__(self, store: MatchStore, limits: dict[str, Limit], now_ms: Callable[[], int]) -> None:
        self.store = store
        self.limits = {k: v for k, v in limits.items() if v.calls > 0}
        self.now_ms = now_ms
        self._script = store.client.register_script(SLIDING_WINDOW_LUA)

    async def check(self, kind: str, caller: str) -> None:
        """Admit one call of ``kind`` by ``caller`` or raise ResourceExhaustedError (with
        ``retry_after_ms``) when the last window already holds the limit. No-op for a kind
        without a limit."""
        limit = self.limits.get(kind)
        if limit is None:
            return
        now = self.now_ms()
        key = aux_key("rl", kind, caller or "anonymous")
        retry = int(await self._script(keys=[key], args=[now, limit.window_ms, limit.calls,
                                                         f"{now}-{secrets.token_hex(6)}"]))
        if retry > 0:
            per = f"{limit.window_ms // 1000} s" if limit.window_ms % 1000 == 0 else f"{limit.window_ms} ms"
            raise ResourceExhaustedError(
                f"rate limit: at most {limit.calls} {_WHAT.get(kind, kind + ' calls')} per {per}; retry in {retry} ms",
                retry_after_ms=retry)


class OpenCounts(Counter[Hashable]):
    """Open things (streams) per key in this process, each under a cap."""

    @contextmanager
    def hold(self, key: Hashable, cap: int, message: str, retry_after_ms: int = 0) -> Iterator[None]:
        """Count one more open thing under ``key`` while the block runs; raise
        :class:`ResourceExhaustedError` (``message``, ``retry_after_ms``) when ``cap`` (> 0) are
        open already. The key is dropped when its count returns to 0."""
        if cap and self[key] >= cap:
            raise ResourceExhaustedError(message, retry_after_ms)
        self[key] += 1
        try:
            yield
        finally:
            self[key] -= 1
            if self[key] <= 0:
                del self[key]


def address_key(peer: str) -> str:
    """The key under which a client address's streams are counted: the address of a peer in
    grpc's format, with or without its port (``ipv4:1.2.3.4:5678`` -> ``1.2.3.4``), for IPv6 its
    /64 network (one host commonly holds a whole /64, so a cap per IPv6 address would cap
    nothing); another text as it is ("" stays "": unknown).

    >>> address_key("ipv4:10.0.0.7:5"), address_key("ipv6:[2001:db8::1:2]:5"), address_key("ipv6:%5B::1%5D")
    ('10.0.0.7', '2001:db8::/64', '::1')
    """
    if peer.startswith("ipv6:"):
        text = urllib.parse.unquote(peer[5:])  # grpc writes the brackets %5B, %5D
        if text.startswith("[") and "]" in text:
            text = text[1:text.index("]")]
    elif peer.startswith("ipv4:"):
        text = peer[5:].split(":")[0]
    else:
        text = peer
    try:
        ip = ipaddress.ip_address(text)
    except ValueError:
        return text
    if ip.version == 6 and not ip.is_loopback:
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


class LoopLag:
    """How late the running event loop runs a timer, **milliseconds**: a timer asks to run every
    ``interval_s`` seconds and notes how much later it ran. That delay is what every callback
    queued in the process waits (a seat's call first of all), so it rises exactly when the
    process has more work than CPU; a queue of spectator updates only shows once it costs.
    :attr:`lag_ms` is the mean over the last ``window_s`` seconds (one garbage collection pause
    does not make an overload). The timer runs while somebody asks (:meth:`ensure`) and stops
    after ``idle_s`` seconds without a question; it is a timer, not a task, so a loop that ends
    leaves nothing pending. :attr:`forced_ms` (not None) replaces the measure (tests, drills)."""

    def __init__(self, interval_s: float = 0.05, window_s: float = 1.0, idle_s: float = 10.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.interval_s = interval_s
        self.idle_s = idle_s
        self.clock = clock
        self.forced_ms: float | None = None
        self._samples: deque[float] = deque(maxlen=max(1, round(window_s / interval_s)))
        self._handle: asyncio.TimerHandle | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._due = 0.0
        self._asked = 0.0

    @property
    def lag_ms(self) -> float:
        """The lag, ms: :attr:`forced_ms` when set, else the mean of the last window (0 before
        the first measure)."""
        if self.forced_ms is not None:
            return self.forced_ms
        return sum(self._samples) / len(self._samples) if self._samples else 0.0

    def ensure(self) -> float:
        """Keep measuring (start the timer on the running loop if it is not running there) and
        return :attr:`lag_ms`. Call it from the event loop."""
        loop = asyncio.get_running_loop()
        self._asked = self.clock()
        if self._handle is None or self._loop is not loop:
            self._loop, self._samples = loop, deque(maxlen=self._samples.maxlen)
            self._schedule(loop)
        return self.lag_ms

    def _schedule(self, loop: asyncio.AbstractEventLoop) -> None:
        self._due = self.clock() + self.interval_s
        self._handle = loop.call_later(self.interval_s, self._tick, loop)

    def _tick(self, loop: asyncio.AbstractEventLoop) -> None:
        now = self.clock()
        self._samples.append(max(0.0, (now - self._due) * 1000))
        metrics.set_loop_lag(self.lag_ms / 1000)
        if loop is not self._loop or now - self._asked > self.idle_s or loop.is_closed():
            if loop is self._loop:
                self._handle = None
                self._samples.clear()
                metrics.set_loop_lag(0.0)
            return
        self._schedule(loop)

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
"""

from __future__ import annotations

import secrets
from collections import Counter
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

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

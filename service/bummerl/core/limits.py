"""Per-caller rate limits kept in Redis, so that every server process counts the same calls.

A fixed-window counter per (kind, caller): ``INCR bm:rl:<kind>:<caller>:<window>`` with an expiry
of one window. A call over the limit raises :class:`ResourceExhaustedError` whose
``retry_after_ms`` is the time until the window ends. Limits are calls per **second** (actions)
or per **minute** (match creation); 0 = no limit (the default, for local use). Callers are
identified by a hash (a seat token's hash, a peer address), never by a secret.
"""

from __future__ import annotations

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


class RateLimiter:
    """Counts calls per (kind, caller) in the store's Redis; ``now_ms`` is the injected clock."""

    def __init__(self, store: MatchStore, limits: dict[str, Limit], now_ms: Callable[[], int]) -> None:
        self.store = store
        self.limits = {k: v for k, v in limits.items() if v.calls > 0}
        self.now_ms = now_ms

    async def check(self, kind: str, caller: str) -> None:
        """Count one call of ``kind`` by ``caller``; raise ResourceExhaustedError past the limit
        (the call is still counted: hammering does not shorten the wait)."""
        limit = self.limits.get(kind)
        if limit is None:
            return
        now = self.now_ms()
        window = now // limit.window_ms
        key = aux_key("rl", kind, caller or "anonymous", str(window))
        client = self.store.client
        pipe = client.pipeline(transaction=True)
        pipe.incr(key)
        pipe.pexpire(key, limit.window_ms * 2)
        count, _ = await pipe.execute()
        if int(count) > limit.calls:
            retry = (window + 1) * limit.window_ms - now
            raise ResourceExhaustedError(
                f"rate limit: at most {limit.calls} {kind} calls per {limit.window_ms // 1000 or limit.window_ms} "
                f"{'s' if limit.window_ms >= 1000 else 'ms'}; retry in {retry} ms", retry_after_ms=retry)


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

"""Per-bot statistics of ladder games (issue 21): actions, faults, think times and time left,
kept per game result and summed per bot (a ladder's leaderboard, and every ladder in ``ListBots``).

Think times are kept as counts in :data:`THINK_BUCKETS_MS` (milliseconds), so that sums over any
number of games stay small; a percentile is the upper bound of the bucket where it falls.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

THINK_BUCKETS_MS = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 30000, 60000)
"""Upper bounds (ms) of the think-time histogram; one more bucket holds everything above."""

COUNTS = ("games", "wins", "draws", "losses", "actions", "timeouts", "illegal_actions", "disconnects")


def game_stats(seat: Mapping[str, Any], score: float, other: float) -> dict[str, Any]:
    """One seat's statistics of one finished game, from :meth:`MatchService.seat_stats` and its
    score against the best other score (two seats: the opponent's; more: compare placements
    before calling: ``score`` 1 = won, 0.5 = shared first place, 0 = lost)."""
    hist = [0] * (len(THINK_BUCKETS_MS) + 1)
    for t in seat.get("think_ms", ()):
        hist[bisect.bisect_left(THINK_BUCKETS_MS, t)] += 1
    return view({"games": 1, "wins": int(score > other), "draws": int(score == other), "losses": int(score < other),
                 "actions": int(seat.get("actions", 0)), "timeouts": int(seat.get("timeouts", 0)),
                 "illegal_actions": int(seat.get("illegal_actions", 0)),
                 "disconnects": int(seat.get("disconnects", 0)), "think_hist": hist,
                 "time_left_sum_ms": max(0, int(seat.get("time_left_ms", -1))),
                 "timed_games": int(int(seat.get("time_left_ms", -1)) >= 0)})


def add(total: dict[str, Any], one: Mapping[str, Any]) -> dict[str, Any]:
    """``total`` += ``one`` (both :func:`game_stats` shaped; ``total`` may be empty)."""
    for k in (*COUNTS, "time_left_sum_ms", "timed_games"):
        total[k] = int(total.get(k, 0)) + int(one.get(k, 0))
    hist = list(total.get("think_hist") or [0] * (len(THINK_BUCKETS_MS) + 1))
    for i, c in enumerate(one.get("think_hist") or ()):
        hist[i] += int(c)
    total["think_hist"] = hist
    return total


def percentile(hist: Sequence[int], q: float) -> int:
    """The ``q`` quantile (0..1) of a think-time histogram, as its bucket's upper bound in ms
    (the last bucket: twice the largest bound); -1 for an empty one."""
    n = sum(hist)
    if n <= 0:
        return -1
    need, run = q * n, 0
    for i, c in enumerate(hist):
        run += c
        if run >= need and c:
            return THINK_BUCKETS_MS[i] if i < len(THINK_BUCKETS_MS) else THINK_BUCKETS_MS[-1] * 2
    return THINK_BUCKETS_MS[-1] * 2


def view(total: Mapping[str, Any]) -> dict[str, Any]:
    """The ``BotStats`` message of a total: its sums (counts, think histogram, time left and timed
    games) and what they give: think p50/p99 and the mean time left."""
    hist = [int(c) for c in total.get("think_hist") or [0] * (len(THINK_BUCKETS_MS) + 1)]
    timed = int(total.get("timed_games", 0))
    left = int(total.get("time_left_sum_ms", 0))
    return {**{k: int(total.get(k, 0)) for k in COUNTS}, "think_ms_p50": percentile(hist, 0.5),
            "think_ms_p99": percentile(hist, 0.99), "time_left_ms": left // timed if timed else -1,
            "think_hist": hist, "time_left_sum_ms": left, "timed_games": timed}


def flatten(total: Mapping[str, Any]) -> dict[str, int]:
    """A total as flat integer fields (a Redis hash: ``HINCRBY`` each), ``think_<i>`` per bucket."""
    out = {k: int(total.get(k, 0)) for k in (*COUNTS, "time_left_sum_ms", "timed_games")}
    out.update({f"think_{i}": int(c) for i, c in enumerate(total.get("think_hist") or ())})
    return out


def unflatten(fields: Mapping[bytes | str, Any]) -> dict[str, Any]:
    """Inverse of :func:`flatten` (a Redis hash as it comes back)."""
    f = {(k.decode() if isinstance(k, bytes) else k): int(v) for k, v in fields.items()}
    hist = [f.get(f"think_{i}", 0) for i in range(len(THINK_BUCKETS_MS) + 1)]
    return {**{k: f.get(k, 0) for k in (*COUNTS, "time_left_sum_ms", "timed_games")}, "think_hist": hist}


def total_of(stats: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for s in stats:
        add(out, s)
    return out

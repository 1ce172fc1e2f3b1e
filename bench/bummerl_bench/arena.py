"""``bummerl bench arena``: the cost of one arena pairing pass (:func:`bummerl.ladder.arena.pair_idle`)
over N idle connected bots with ratings, uncertainties and previous opponents, as every server
process runs it on each scheduler pass while an arena is live (issue 37: well under 100 ms at
1,000 bots)."""

from __future__ import annotations

import random
import statistics
import time
from typing import Any

from bummerl.ladder.arena import pair_idle
from bummerl.ladder.formats import DemandContext


def bench_arena_pairing(bots: int = 1000, passes: int = 20, seats: int = 2, seed: int = 1) -> dict[str, Any]:
    """Time ``passes`` pairing passes over ``bots`` idle bots (random ordinals, sigmas and last
    opponents). Returns ``{"bots", "seats", "passes", "tables", "ms_median", "ms_max"}`` (wall
    milliseconds per pass)."""
    rng = random.Random(seed)
    ids = [f"b{i}" for i in range(bots)]
    ordinal = {b: rng.gauss(0, 5) for b in ids}
    sigma = {b: rng.uniform(1, 8.3) for b in ids}
    last = {b: [rng.choice(ids)] for b in ids}
    ctx = DemandContext(ids, seats, ordinal, sigma, last)
    times, tables = [], 0
    for _ in range(passes):
        t0 = time.perf_counter()
        tables = len(pair_idle(ctx))
        times.append((time.perf_counter() - t0) * 1000)
    return {"bots": bots, "seats": seats, "passes": passes, "tables": tables,
            "ms_median": round(statistics.median(times), 3), "ms_max": round(max(times), 3)}


def report(r: dict[str, Any]) -> str:
    return (f"arena pairing pass over {r['bots']} idle bots ({r['seats']} seats): {r['tables']} tables, "
            f"median {r['ms_median']} ms, max {r['ms_max']} ms over {r['passes']} passes")

"""``bummerl bench arena``: the cost of one arena pairing pass (:func:`bummerl.ladder.arena.pair_idle`)
over N idle connected bots with ratings, uncertainties and previous opponents, as every server
process runs it on each scheduler pass while an arena is live (issue 37: well under 100 ms at
1,000 bots); with ``--live``, N connected bots playing an arena on a server of its own for
``--seconds``, checked for games started twice and bots in two games at once."""

from __future__ import annotations

import asyncio
import random
import statistics
import time
import uuid
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


def bench_arena_live(bots: int = 200, seconds: float = 60.0) -> dict[str, Any]:
    """``bots`` connected bots (``random``, in this process, through the SDK's :func:`run_bot`)
    play an arena of single deals on a ``bummerl serve`` of its own for ``seconds``; then the
    arena is stopped and its events checked: no game started twice, no bot in two games at once.
    Returns ``{"bots", "seconds", "games_started", "games_finished", "games_per_s",
    "started_twice", "overlaps"}``."""
    from .servers import spawn_server

    with spawn_server() as (_proc, target):
        return asyncio.run(_live(target, bots, seconds))


async def _live(target: str, n: int, seconds: float) -> dict[str, Any]:
    from bummerl.bots import make_bot
    from bummerl_client import AsyncClient
    from bummerl_client.botrunner import run_bot

    tag = uuid.uuid4().hex[:6]
    async with AsyncClient(target) as c:
        await c.wait_ready(30)
        regs = [await c.register_bot(f"arena{i}-{tag}") for i in range(n)]
        stop = asyncio.Event()
        runners = [asyncio.create_task(run_bot(c, r["bot_token"], lambda i=i: make_bot("random", i), stop=stop))
                   for i, r in enumerate(regs)]
        lad = await c.create_ladder(name="bench arena", variant="schnapsen-at", bot_ids=[r["bot_id"] for r in regs],
                                    format="LADDER_FORMAT_ARENA", deals_per_game=1, concurrency=max(2, n // 2),
                                    duplicate_deals=False)
        lid = lad["ladder_id"]
        events: list[dict[str, Any]] = []

        async def collect() -> None:
            async for ev in c.stream_ladder(lid):
                events.append(dict(ev))

        collector = asyncio.create_task(collect())
        await asyncio.sleep(seconds)
        await c.stop_ladder(lid)
        await asyncio.sleep(1.0)
        stop.set()
        collector.cancel()
        await asyncio.gather(*runners, collector, return_exceptions=True)
    started = [e for e in events if e["type"] == "started"]
    finished = [e for e in events if e["type"] == "result"]
    busy: dict[str, str] = {}
    overlaps = 0
    for e in events:
        if e["type"] == "started":
            for b in e["bots"]:
                overlaps += b in busy
                busy[b] = e["match_id"]
        elif e["type"] in ("result", "abandoned"):
            mid = e["result"]["match_id"] if e["type"] == "result" else e["match_id"]
            for b in [b for b, m in busy.items() if m == mid]:
                del busy[b]
    return {"bots": n, "seconds": seconds, "games_started": len(started), "games_finished": len(finished),
            "games_per_s": round(len(finished) / seconds, 1),
            "started_twice": len(started) - len({e["game"] for e in started}), "overlaps": overlaps}


def report_live(r: dict[str, Any]) -> str:
    return (f"arena of {r['bots']} connected bots for {r['seconds']:g} s: {r['games_finished']} games finished "
            f"({r['games_per_s']}/s), {r['games_started']} started; started twice: {r['started_twice']}, "
            f"a bot in two games at once: {r['overlaps']}")

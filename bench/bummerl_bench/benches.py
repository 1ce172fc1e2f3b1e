"""Benchmarks that print figures (``make bench``, ``bummerl bench ...``); they are not timed tests.

Outside the service package (issue 23): they use the engine's facade, the service's public
modules and the SDK's public calls (the low-level call API of :mod:`bummerl_client.client`:
``auth_metadata``, ``error_from_rpc``, ``create_match_request``, ``submit_action_request``).

* :func:`bench_engine` (:mod:`.engine`): random-vs-random deals on one core with fixed seeds, using
  the engine's in-place hot path (``TalonDeal.step``); reports deals/s and actions/s.
* :func:`bench_service`: SubmitAction calls/s and p50/p99 latency (ms) against one server
  process (a ``bummerl serve`` subprocess with embedded Valkey) driven by ``matches`` concurrent
  random players from this process.
* :func:`bench_strong` (:mod:`.strong`): the ``strong`` bot against ``greedy`` (or any two bot
  specs) over duplicate deal pairs per variant: Elo difference with a 95% interval, mean decision
  time. The load generators are in :mod:`.load`, what is read of a server process in :mod:`.figures`.
"""

from __future__ import annotations

import asyncio
import random
import statistics
import time
from typing import Any

from bummerl.rules import TalonDeal, actions

from .engine import bench_engine
from .figures import _cpu_seconds, _env, _free_port, _rss_mb, _server_gc, cpu_figures, redis_counts
from .load import _service_load, _stream_load, latency_figures
from .strong import bench_strong, seated_legs

# names importers of this module use (the figures, the loads and bench strong moved out)
__all__ = ["_cpu_seconds", "_free_port", "_service_load", "_stream_load", "bench_core", "bench_engine",
           "bench_ladder", "bench_leaderboard", "bench_service", "bench_strong", "bench_timeouts", "cpu_figures",
           "latency_figures", "redis_counts", "seated_legs"]

DECLARE = actions.DECLARE
OVER = TalonDeal.OVER


async def _core_trial(svc: Any, matches: int, seconds: float, variant: str, seed: int) -> tuple[float, int]:
    """One run of :func:`bench_core`: ``(CPU seconds of this process, actions)``."""
    from bummerl.api.servicer import update_message

    actions = 0
    stop_at = time.perf_counter() + seconds

    async def seat(match_id: str, s: int, token: str, rng: random.Random) -> None:
        nonlocal actions
        updates: asyncio.Queue[Any] = asyncio.Queue()

        async def follow() -> None:  # as gRPC does: the next update is pulled as soon as one is sent
            async for u in svc.stream(match_id, s, token):
                update_message(u).SerializeToString()
                updates.put_nowait(u)
                if u.match_over:
                    return

        reader = asyncio.create_task(follow())
        try:
            while True:
                u = await updates.get()
                if u.match_over:
                    return
                info = u.information_set
                if info["deal"]["to_act"] == s and info["legal_actions"]:
                    await svc.submit_action(match_id, s, token, u.version, rng.choice(info["legal_actions"])["id"])
                    actions += 1
        finally:
            reader.cancel()
            await asyncio.gather(reader, return_exceptions=True)

    async def table(i: int) -> None:
        rng = random.Random(seed * 1_000_003 + i)
        n = 0
        while time.perf_counter() < stop_at:
            created = await svc.create_match(variant, seed=seed * 1_000_003 + i * 1000 + n)
            n += 1
            await asyncio.gather(*(seat(created.match_id, s, created.tokens[s], rng)
                                   for s in range(len(created.tokens))))

    c0 = time.process_time()
    await asyncio.gather(*(table(i) for i in range(matches)))
    return time.process_time() - c0, actions


def bench_core(matches: int = 32, seconds: float = 3.0, variant: str = "schnapsen-at", trials: int = 5,
               seed: int = 1) -> dict[str, Any]:
    """The service's own work per action on the stream path, without gRPC: in this process a
    :class:`~bummerl.core.MatchService` with its :class:`~bummerl.store.StreamHub` on an embedded
    Valkey (another process, not counted), ``matches`` matches at a time; each seat follows its
    stream (the next update pulled at once, as gRPC does) and acts at random from another task,
    and every update is encoded as StreamMatch and Play send it (``servicer.update_message``).
    ``trials`` runs of ``seconds`` each on the event loop ``bummerl serve`` uses, the collector
    tuned as a server's (:func:`bummerl.app.tune_gc`, no pacer). Figures: this process's CPU time
    (``time.process_time``) per action, in **microseconds**, the minimum and the median over the
    trials. Other load on the machine still moves them (the minimum by 10-20% at a load average of
    5), so compare two builds in several alternating runs. Returns ``{"variant", "matches", "trials",
    "seconds", "actions_per_trial", "cpu_us_per_action_min", "cpu_us_per_action_median"}``."""
    from bummerl.app import loop_factory, tune_gc
    from bummerl.config import Settings
    from bummerl.core import MatchService
    from bummerl.store import EmbeddedValkey, MatchStore, StreamHub

    async def run() -> tuple[list[float], list[int]]:
        with EmbeddedValkey() as valkey:
            store = await MatchStore.connect(valkey.url)
            hub = await StreamHub(store).start()
            try:
                svc = MatchService(store, hub=hub)
                await _core_trial(svc, matches, min(1.0, seconds), variant, seed)  # warm-up
                tune_gc()
                per: list[float] = []
                counts: list[int] = []
                for k in range(trials):
                    cpu, n = await _core_trial(svc, matches, seconds, variant, seed + k + 1)
                    per.append(cpu * 1e6 / max(1, n))
                    counts.append(n)
                return per, counts
            finally:
                await hub.aclose()
                await store.aclose()

    with asyncio.Runner(loop_factory=loop_factory(Settings.from_env().event_loop)) as runner:
        per, counts = runner.run(run())
    return {"variant": variant, "matches": matches, "trials": trials, "seconds": seconds,
            "actions_per_trial": round(statistics.mean(counts)),
            "cpu_us_per_action_min": round(min(per), 1), "cpu_us_per_action_median": round(statistics.median(per), 1)}


def bench_service(matches: int = 64, seconds: float = 10.0, variant: str = "schnapsen-at",
                  rest: bool = False, workers: int = 1, stream: bool = False, sdk: bool = False,
                  rate: float | None = None, play: bool = False) -> dict[str, Any]:
    """Start ``bummerl serve --port 0`` (embedded Valkey) as a subprocess, drive it, stop it.
    ``rest``: drive the REST/JSON gateway instead of gRPC (same calls, JSON bodies).
    ``workers``: ``bummerl serve --workers N`` (N processes on one port and one Valkey).
    ``stream``: the realistic mode (:func:`_stream_load`: bots follow StreamMatch, no polling).
    ``sdk``: drive gRPC through the Python SDK (dict responses; with ``stream`` the SDK's bot
    runner) instead of raw protobuf stubs.
    ``rate``: pace the players open-loop at that many SubmitAction/s in all (latency below
    saturation, on a fresh server; not with ``stream``); None = as fast as answers come.
    The result has ``server_rss_mb``, the server process's resident memory at the end (MiB),
    ``server_gc``, its garbage-collector pauses over the run (:func:`_server_gc`), and
    ``server_cpu``, the CPU it used per action and per call (:func:`cpu_figures`).

    Returns ``{"matches", "submit_calls", "actions_per_s", "p50_ms", "p99_ms", ...}``. The
    client side also reads the second seat's information set after each action, so the server
    handles about two calls per SubmitAction (with ``stream``: none, the stream brings it); only
    SubmitAction is timed.
    """
    from bummerl.app import tune_gc
    from bummerl.store import EmbeddedValkey
    from bummerl_bench.servers import spawn_server

    tune_gc()  # the load client's own collector pauses would show in its latency figures
    http_port = _free_port() if rest else 0
    metrics_port = _free_port()
    extra = ["--http-port", str(http_port), "--metrics-port", str(metrics_port)]
    if workers > 1:
        extra += ["--workers", str(workers), "--port", str(_free_port())]
    # the server's Valkey runs here, so that its command and byte counts can be read around the load
    with EmbeddedValkey() as valkey, _env(BUMMERL_REDIS_URL=valkey.url), \
            spawn_server(extra, own_redis=False) as (proc, target):
        if workers > 1:
            time.sleep(1.0)  # the first worker is listening; let the others start too
        rest_url = f"http://127.0.0.1:{http_port}" if rest else None
        channels = 1 if workers == 1 else 2 * workers
        before = redis_counts(valkey.url)
        if stream:
            out = cpu_figures(proc.pid, lambda: asyncio.run(_stream_load(
                target, matches, seconds, variant, channels=max(channels, matches // 250), sdk=sdk, play=play)))
        else:
            out = cpu_figures(proc.pid, lambda: asyncio.run(_service_load(
                target, matches, seconds, variant, rest_url, rate=rate, channels=channels, sdk=sdk)))
        after = redis_counts(valkey.url)
        actions = max(1, int(out.get("submit_calls") or 0))
        out["redis_per_action"] = {k: round((after[k] - before[k]) / actions, 2) for k in after}
        out["server_rss_mb"] = _rss_mb(proc.pid) if workers == 1 else None
        out["server_gc"] = _server_gc(metrics_port)
        return out


async def _timeout_load(target: str, matches: int, move_ms: int) -> dict[str, Any]:
    from bummerl_client import AsyncClient

    late: list[float] = []
    async with AsyncClient(target) as c:
        await c.wait_ready(20)
        tc = {"base_ms": 0, "increment_ms": 0, "move_cap_ms": move_ms, "lag_compensation_ms": 0, "scope": "match"}

        async def one(i: int) -> None:
            cm = await c.create_match("schnapsen-at", seed=i, time_control=tc)
            info = await c.information_set(cm.match_id, 0, cm.tokens[0])
            async for upd in c.stream(cm.match_id, 0, cm.tokens[0], from_version=int(info["version"])):
                if upd["information_set"]["match"]["over"]:
                    break
            rec = await c.match_record(cm.match_id)
            deadline = int(rec["created_at_ms"]) + move_ms
            late.append(int(rec["actions"][-1]["timestamp_ms"]) - deadline)

        await asyncio.gather(*(one(i) for i in range(matches)))
    late.sort()
    n = len(late)
    return {
        "matches": n, "move_ms": move_ms,
        "p50_ms": late[n // 2], "p99_ms": late[min(n - 1, int(n * 0.99))], "max_ms": late[-1], "min_ms": late[0],
    }


def bench_timeouts(matches: int = 200, move_ms: int = 300) -> dict[str, Any]:
    """Timing accuracy of the reaper (docs/DESIGN.md §5): ``matches`` matches with a fixed time per move of
    ``move_ms`` in which nobody acts, on a ``bummerl serve`` subprocess (embedded Valkey, reaper
    defaults). For each, the lateness = commit time of the timeout (record) minus the deadline,
    in **milliseconds** (server clock). Returns ``{"matches", "move_ms", "p50_ms", "p99_ms",
    "max_ms", "min_ms"}``; a negative figure would be a timeout before its deadline."""
    from bummerl_bench.servers import spawn_server

    with spawn_server() as (_, target):
        return asyncio.run(_timeout_load(target, matches, move_ms))


async def _ladder_load(target: str, pairs: int, concurrency: int, variant: str) -> dict[str, Any]:
    from bummerl.bots import make_bot
    from bummerl_client import AsyncClient
    from bummerl_client.botrunner import run_bot

    async with AsyncClient(target) as c:
        await c.wait_ready(20)
        tag = random.randrange(16**6)
        regs = [await c.register_bot(f"bench-{name}-{tag:06x}") for name in ("a", "b")]
        stop = asyncio.Event()
        runners = [asyncio.create_task(run_bot(c, r["bot_token"], lambda k=k: make_bot("random", k), stop=stop))
                   for k, r in enumerate(regs)]
        t0 = time.perf_counter()
        lad = await c.create_ladder(name="bench", variant=variant, bot_ids=[r["bot_id"] for r in regs], rounds=pairs,
                                    duplicate_deals=True, deals_per_game=1, concurrency=concurrency, seed=1)
        async for ev in c.stream_ladder(lad["ladder_id"]):
            if ev["type"] == "finished":
                break
        dt = time.perf_counter() - t0
        stop.set()
        await asyncio.gather(*runners, return_exceptions=True)
        results = await c.ladder_matches(lad["ladder_id"])
        moves = 0
        for r in results:
            moves += len((await c.match_record(r["match_id"]))["actions"])
    return {"games": len(results), "seconds": round(dt, 3), "moves": moves}


def bench_ladder(pairs: int = 100, concurrency: int = 8, variant: str = "schnapsen-at") -> dict[str, Any]:
    """A ladder of single-deal duplicate pairs between two instant (random) connected bots, on a
    ``bummerl serve`` subprocess (embedded Valkey); the bots run in this process. Reports games
    (matches) per minute and the service overhead per move: the ladder's wall time divided by its
    moves (at ``concurrency`` games at once, so the inverse of the move throughput, not one move's
    latency) minus the time per move of the same kind of play in process (:func:`bench_engine`
    with the random policy), in **milliseconds**. Returns ``{"games", "seconds",
    "matches_per_min", "moves", "ms_per_move_server", "ms_per_move_engine", "overhead_ms_per_move"}``."""
    from bummerl_bench.servers import spawn_server

    with spawn_server() as (_, target):
        r = asyncio.run(_ladder_load(target, pairs, concurrency, variant))
    eng = bench_engine(variant, 2.0)
    per_move_server = r["seconds"] * 1000 / max(1, r["moves"])
    per_move_engine = 1000 / eng["actions_per_s"]
    return {
        **r, "concurrency": concurrency, "matches_per_min": round(r["games"] / r["seconds"] * 60, 1),
        "ms_per_move_server": round(per_move_server, 3), "ms_per_move_engine": round(per_move_engine, 4),
        "overhead_ms_per_move": round(per_move_server - per_move_engine, 3),
    }


def bench_leaderboard(results: int = 10_000, bots: int = 8, seed: int = 1) -> dict[str, Any]:
    """A ladder's leaderboard over ``results`` two-seat duplicate results of ``bots`` bots: the time
    to compute it from scratch (what every read cost before issue 25) and the time of a read after
    one more result with running standings (:class:`bummerl.ladder.standings.Standings`: the
    ratings fold the new result, the pair table runs over all), in ms, best of three."""
    import random as _random

    from bummerl.ladder.standings import Standings, leaderboard, pair_table

    rng = _random.Random(seed)
    ids = [f"b{i}" for i in range(bots)]
    rows: list[dict[str, Any]] = []
    for g in range(results):
        if g % 2 == 0:
            a, b = rng.sample(ids, 2)
        else:
            b, a = rows[-1]["bots"]
        sc = rng.choice([0.0, 0.5, 1.0])
        rows.append({"game": g, "pair": g // 2, "leg": g % 2, "bots": [a, b], "scores": [sc, 1 - sc],
                     "deals_won": [1, 0], "winner": 0})
    cfg = {"ladder_id": "bench", "bot_ids": ids, "bot_names": {}, "duplicate_deals": True,
           "sprt": {"elo0": 0.0, "elo1": 10.0, "alpha": 0.05, "beta": 0.05}}

    def best(fn: Any) -> float:
        times = []
        for _ in range(3):
            t0 = time.perf_counter()
            fn()
            times.append((time.perf_counter() - t0) * 1000)
        return round(min(times), 2)

    full = best(lambda: leaderboard(cfg, rows))
    standings = Standings(ids)
    standings.add(rows[:-1])

    def read() -> None:
        st = Standings(ids)  # a copy of the running state would be the same: fold one result
        st.ratings, st.tally, st.stats = dict(standings.ratings), {k: dict(v) for k, v in standings.tally.items()}, {}
        st.add(rows[-1:])
        st.entries({})
        pair_table(cfg, rows)

    return {"results": results, "bots": bots, "full_ms": full, "incremental_read_ms": best(read)}

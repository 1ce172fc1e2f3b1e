"""``bummerl bench web``: the web face's figures (printed, never a timed test).

* :func:`bench_page_render`: the match page's first render in headless Chromium (Playwright on the
  system's Chromium, never a downloaded one): milliseconds from the start of the navigation to
  the first drawn table (``performance.mark("bummerl-first-render")`` in ``web/app.js``), for a
  live match and for a replay, ``runs`` page loads each.
* :func:`bench_pages`: each page's weight and time to content in headless Chromium: bytes over
  the wire (gzip as the browser asks for it) of the page's own files (HTML, JS, CSS, icon) and of
  its API answers, the number of requests, and milliseconds from the start of the navigation to
  the page's content (``performance.mark("bummerl-content")`` in ``web/net.js``) and to
  ``DOMContentLoaded``, for Home, Play, a live match, a replay (of a long match) and a ladder.
  ``python -m bummerl_bench.web`` prints it.
* :func:`bench_analysis`: the CPU cost of the post-game analysis per match (``python -m
  bummerl_bench.web analysis``).
* :func:`bench_spectators`: the seats' SubmitAction latency (p50/p99, ms) on one server process
  while ``spectators`` WatchMatch streams follow the match being played, against the same load
  without spectators (alternating phases), and the spectator updates delivered per second.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import statistics
import time
from typing import Any

from bummerl.config import Settings

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]


def _pct(xs: list[float], q: float) -> float:
    if not xs:
        return float("nan")
    xs = sorted(xs)
    return round(xs[min(len(xs) - 1, int(q * len(xs)))], 2)


async def bench_page_render(runs: int = 10, chromium: str | None = None) -> dict[str, Any]:
    """First render of the match page, ms (p50 and max over ``runs`` loads), live and replay.
    Raises RuntimeError without Chromium or the playwright package."""
    from playwright.async_api import async_playwright

    from bummerl.app import Runtime
    from bummerl_client import AsyncClient

    exe = chromium or os.environ.get("BUMMERL_CHROMIUM") or shutil.which("chromium")
    if not exe:
        raise RuntimeError("no Chromium (apt-get install chromium, or BUMMERL_CHROMIUM)")
    settings = Settings.from_env(host="127.0.0.1", port=0, http_port=0, metrics_port=0, house_workers=0)
    out: dict[str, Any] = {"runs": runs}
    async with Runtime(settings, gateway_port=0) as rt, AsyncClient(rt.target) as client:
        base = f"http://127.0.0.1:{rt.http_port}"
        live = await client.create_match("schnapsen-at", seats=["house:greedy", "waiting"])  # seat 1 never moves
        done = await client.create_match("schnapsen-at", seats=["house:greedy", "house:random"])
        async for _ in client.watch(done.match_id):
            pass
        async with async_playwright() as pw:
            browser = await pw.chromium.launch(executable_path=exe, args=CHROMIUM_ARGS, headless=True)
            try:
                for kind, mid, selector in (("live", live.match_id, ".table"), ("replay", done.match_id, ".replay-controls")):
                    times = []
                    for _ in range(runs):
                        page = await browser.new_page()
                        await page.goto(f"{base}/#/match/{mid}")
                        await page.wait_for_selector(selector)
                        await page.wait_for_function("() => performance.getEntriesByName('bummerl-first-render').length")
                        times.append(await page.evaluate(
                            "() => performance.getEntriesByName('bummerl-first-render')[0].startTime"))
                        await page.close()
                    out[kind] = {"p50_ms": _pct(times, 0.5), "max_ms": round(max(times), 1)}
            finally:
                await browser.close()
    return out


async def bench_pages(runs: int = 5, chromium: str | None = None) -> dict[str, Any]:
    """Weight (bytes over the wire, requests) and time to content (ms, p50 and max over ``runs``
    cold loads, a new browser context each: nothing cached) of each page. Raises RuntimeError
    without Chromium or the playwright package."""
    from playwright.async_api import async_playwright

    from bummerl.app import Runtime
    from bummerl_client import AsyncClient

    exe = chromium or os.environ.get("BUMMERL_CHROMIUM") or shutil.which("chromium")
    if not exe:
        raise RuntimeError("no Chromium (apt-get install chromium, or BUMMERL_CHROMIUM)")
    settings = Settings.from_env(host="127.0.0.1", port=0, http_port=0, metrics_port=0, house_workers=0)
    out: dict[str, Any] = {"runs": runs, "pages": {}}
    async with Runtime(settings, gateway_port=0) as rt, AsyncClient(rt.target) as client:
        base = f"http://127.0.0.1:{rt.http_port}"
        live = await client.create_match("schnapsen-at", seats=["house:greedy", "waiting"])  # seat 1 never moves
        done = await client.create_match("santase", seats=["house:greedy", "house:random"])
        async for _ in client.watch(done.match_id):
            pass
        regs = [await client.register_bot(n) for n in ("bench-a", "bench-b")]
        lad = await client.create_ladder(name="bench", variant="schnapsen-at", bot_ids=[r["bot_id"] for r in regs],
                                         rounds=2, deals_per_game=1, concurrency=1, format="LADDER_FORMAT_ROUND_ROBIN")
        pages = {"home": "/", "play": "/#/play", "live match": f"/#/match/{live.match_id}",
                 "replay": f"/#/match/{done.match_id}", "ladder": f"/#/ladder/{lad['ladder_id']}"}
        async with async_playwright() as pw:
            browser = await pw.chromium.launch(executable_path=exe, args=CHROMIUM_ARGS, headless=True)
            try:
                for name, path in pages.items():
                    times: list[float] = []
                    dcl: list[float] = []
                    weight: dict[str, int] = {"files_bytes": 0, "api_bytes": 0, "requests": 0}
                    for run in range(runs):
                        context = await browser.new_context()
                        page = await context.new_page()
                        reqs: list[Any] = []
                        page.on("requestfinished", lambda r, reqs=reqs: reqs.append(r))
                        await page.goto(f"{base}{path}")
                        await page.wait_for_function("() => performance.getEntriesByName('bummerl-content').length",
                                                     timeout=60000)
                        times.append(await page.evaluate(
                            "() => performance.getEntriesByName('bummerl-content')[0].startTime"))
                        dcl.append(await page.evaluate(
                            "() => performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd"))
                        if run == 0:
                            for r in reqs:
                                if "/watch" in r.url or "/events" in r.url or "/stream" in r.url:
                                    continue  # streams: they never end
                                sizes = await r.sizes()
                                key = "api_bytes" if "/v1/" in r.url else "files_bytes"
                                weight[key] += int(sizes["responseBodySize"]) + int(sizes["responseHeadersSize"])
                                weight["requests"] += 1
                        await context.close()
                    out["pages"][name] = {**weight, "content_p50_ms": _pct(times, 0.5), "content_max_ms": round(max(times), 1),
                                          "dom_content_loaded_p50_ms": _pct(dcl, 0.5)}
            finally:
                await browser.close()
    return out


def format_pages(result: dict[str, Any]) -> str:
    """Lines of :func:`bench_pages`' figures."""
    lines = [f"web pages ({result['runs']} cold loads each; bytes over the wire, streams left out):"]
    for name, p in result["pages"].items():
        lines.append(f"  {name:11} {p['files_bytes'] / 1024:6.1f} KB files + {p['api_bytes'] / 1024:6.1f} KB API in "
                     f"{p['requests']:2} requests; content at p50 {p['content_p50_ms']} ms (max {p['content_max_ms']} ms), "
                     f"DOMContentLoaded p50 {p['dom_content_loaded_p50_ms']} ms")
    return "\n".join(lines)


def bench_analysis(matches: int = 2, variant: str = "schnapsen-at", samples: int = 32,
                   budget_ms: float = 150.0) -> dict[str, Any]:
    """CPU cost of the post-game analysis (:mod:`bummerl.core.analysis`) per match: ``matches``
    whole matches of ``variant`` between greedy and random, analysed with the given settings;
    decisions valued, CPU ms per match and per valued decision, mean loss per seat."""
    from bummerl.bots import make_bot
    from bummerl.bots.base import InfoSet
    from bummerl.core.analysis import AnalysisSettings, analyse
    from bummerl.rules import information_set, new_match, parse_action

    rows = []
    for k in range(matches):
        m = new_match(variant, seed=1000 + k)
        bots = [make_bot(b, k + i) for i, b in enumerate(("greedy", "random"))]
        entries: list[list[Any]] = []
        while not m.over:
            seat, info = next((s, i) for s in range(m.num_seats) if (i := information_set(m, s)).get("legal_actions"))
            a = bots[seat].choose(InfoSet(info))
            a = a if isinstance(a, int) else parse_action(a)
            entries.append([seat, a, 0])
            m = m.copy()
            m.apply(a)
        got = analyse(m, entries, AnalysisSettings(samples=samples, budget_ms=budget_ms))
        valued = sum(1 for d in got["decisions"] if d["values"] is not None)
        rows.append({"versions": len(entries) + 1, "valued": valued, "cpu_ms": got["cpu_ms"],
                     "mean_loss": [s["mean_loss"] for s in got["seats"]]})
    cpu = [r["cpu_ms"] for r in rows]
    per = [r["cpu_ms"] / max(1, r["valued"]) for r in rows]
    return {"variant": variant, "samples": samples, "budget_ms": budget_ms, "matches": rows,
            "cpu_ms_per_match_p50": _pct(cpu, 0.5), "cpu_ms_per_decision_p50": _pct(per, 0.5)}


def _spectators_process(target: str, n: int, conn: Any) -> None:
    """Child process of :func:`bench_spectators`: ``n`` WatchMatch streams on the match the parent
    names (messages ``{"mid": id}``, ``{"on": bool}``, ``{"stop": True}``); sends back the count of
    updates received while watching."""
    import threading

    import grpc

    from bummerl.v1 import game_pb2, game_pb2_grpc

    async def main() -> None:
        state: dict[str, Any] = {"mid": "", "on": False, "stop": False}
        frames = [0]
        loop = asyncio.get_running_loop()

        def reader() -> None:
            while True:
                msg = conn.recv()
                loop.call_soon_threadsafe(state.update, msg)
                if msg.get("stop"):
                    return

        threading.Thread(target=reader, daemon=True).start()
        async with grpc.aio.insecure_channel(target) as ch:
            stub = game_pb2_grpc.GameServiceStub(ch)

            async def spectator() -> None:
                while not state["stop"]:
                    mid = state["mid"]
                    if not state["on"] or not mid:
                        await asyncio.sleep(0.01)
                        continue
                    with contextlib.suppress(grpc.aio.AioRpcError):
                        async for _ in stub.WatchMatch(game_pb2.WatchMatchRequest(match_id=mid)):
                            frames[0] += 1
                            if not state["on"] or state["stop"] or state["mid"] != mid:
                                break

            tasks = [asyncio.create_task(spectator()) for _ in range(n)]
            while not state["stop"]:
                await asyncio.sleep(0.05)
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        conn.send(frames[0])

    asyncio.run(main())


async def bench_spectators(spectators: int = 100, seconds: float = 8.0, phases: int = 4,
                           rate: float = 20.0) -> dict[str, Any]:
    """SubmitAction p50/p99 (ms) of two seats playing one match after another at ``rate``
    actions per second (0 = as fast as they can) against a ``bummerl serve`` process, in
    ``phases`` alternating phases of ``seconds / phases`` without and with ``spectators``
    WatchMatch streams (from another process) on the match being played; spectator updates
    received per second."""
    import multiprocessing

    import grpc

    from bummerl.v1 import game_pb2, game_pb2_grpc
    from bummerl_bench.servers import spawn_server

    lat: dict[bool, list[float]] = {False: [], True: []}
    watching = [False]
    stop = asyncio.Event()
    parent, child = multiprocessing.get_context("spawn").Pipe()
    with spawn_server() as (_, target):
        proc = multiprocessing.get_context("spawn").Process(target=_spectators_process, args=(target, spectators, child))
        proc.start()
        async with grpc.aio.insecure_channel(target) as ch:
            stub = game_pb2_grpc.GameServiceStub(ch)

            async def seats() -> None:
                while not stop.is_set():
                    cm = await stub.CreateMatch(game_pb2.CreateMatchRequest(
                        variant="schnapsen-at", seats=[game_pb2.SeatSpec(name="a"), game_pb2.SeatSpec(name="b")]))
                    parent.send({"mid": cm.match_id})
                    tokens = [t.token for t in cm.seat_tokens]
                    auth = [[("authorization", f"Bearer {t}")] for t in tokens]
                    infos = [await stub.GetInformationSet(game_pb2.GetInformationSetRequest(match_id=cm.match_id, seat=s),
                                                          metadata=auth[s]) for s in (0, 1)]
                    while not stop.is_set():
                        s = infos[0].deal.to_act
                        if infos[0].match.over or s < 0:
                            break
                        info = infos[s]
                        if rate > 0:
                            await asyncio.sleep(1 / rate)
                        phase = watching[0]
                        t0 = time.perf_counter()
                        r = await stub.SubmitAction(game_pb2.SubmitActionRequest(
                            match_id=cm.match_id, seat=s, expected_version=info.version,
                            action_id=info.legal_actions[0].id), metadata=auth[s])
                        if phase == watching[0]:
                            lat[phase].append((time.perf_counter() - t0) * 1000)
                        infos[s] = r.information_set
                        o = 1 - s
                        infos[o] = await stub.GetInformationSet(
                            game_pb2.GetInformationSetRequest(match_id=cm.match_id, seat=o), metadata=auth[o])

            task = asyncio.create_task(seats())
            watched_s = 0.0
            try:
                for p in range(phases):
                    watching[0] = p % 2 == 1
                    parent.send({"on": watching[0]})
                    t0 = time.perf_counter()
                    await asyncio.sleep(seconds / phases)
                    if watching[0]:
                        watched_s += time.perf_counter() - t0
            finally:
                stop.set()
                parent.send({"stop": True})
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)
                frames = parent.recv() if parent.poll(20) else 0
                proc.join(10)
                if proc.is_alive():
                    proc.kill()
    return {
        "spectators": spectators, "seconds": seconds, "rate": rate,
        "without": {"actions": len(lat[False]), "p50_ms": _pct(lat[False], 0.5), "p99_ms": _pct(lat[False], 0.99)},
        "with": {"actions": len(lat[True]), "p50_ms": _pct(lat[True], 0.5), "p99_ms": _pct(lat[True], 0.99)},
        "spectator_updates_per_s": round(frames / watched_s, 1) if watched_s else 0.0,
        "median_ratio_p50": round(statistics.median(lat[True]) / statistics.median(lat[False]), 2)
        if lat[True] and lat[False] else None,
    }


if __name__ == "__main__":  # python -m bummerl_bench.web [runs] | python -m bummerl_bench.web analysis [matches]
    import sys

    if sys.argv[1:2] == ["analysis"]:
        r = bench_analysis(int(sys.argv[2]) if len(sys.argv) > 2 else 2)
        print(f"analysis of {r['variant']} (greedy v random, {r['samples']} worlds, {r['budget_ms']:g} ms cap per decision): "
              f"CPU p50 {r['cpu_ms_per_match_p50'] / 1000:.1f} s per match, {r['cpu_ms_per_decision_p50']:.0f} ms per valued "
              f"decision; " + "; ".join(f"{x['versions']} versions, {x['valued']} valued, mean loss {x['mean_loss']}"
                                        for x in r["matches"]))
    else:
        print(format_pages(asyncio.run(bench_pages(int(sys.argv[1]) if len(sys.argv) > 1 else 5))))

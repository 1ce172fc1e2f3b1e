"""``bummerl bench watchers``: what spectators cost the seats (issue 38). One ``bummerl serve``
process; seats play ``matches`` matches at a time as ``bummerl loadtest``'s bots do (each follows its
StreamMatch, thinks a random 20..200 ms, then SubmitAction; a finished match is replaced), while a
second process opens ``watchers`` WatchMatch streams (gRPC, or REST NDJSON) spread over the running
matches, honouring the server's retry hints. Phases alternate without and with the watchers
(``rounds`` of each, ``seconds`` each, the watchers' ramp-up not measured); the figures are the seats'
SubmitAction/s and latency (p50/p99, ms) in each, the ratios with/without against the target
(:data:`TARGET_ACTIONS_RATIO`, :data:`TARGET_P99_RATIO`), the server's CPU (cores) and what the
watchers got (frames/s, streams open, refused and ended by the server).

    bummerl bench watchers [--watchers 1000] [--matches 16] [--seconds 10] [--watch-api grpc|rest] [--json]
    python -m bummerl_bench.watchers --watchers 300 --matches 8 --seconds 8 --rounds 2
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import json
import os
import random
import re
import socket
import statistics
import subprocess
import time
from collections.abc import Iterator
from multiprocessing.connection import Connection
from typing import Any

from .figures import _cpu_seconds
from .servers import spawn_server

TARGET_ACTIONS_RATIO = 0.90
"""Least SubmitAction/s with the watchers over without (issue 38: at most 10% fewer)."""
TARGET_P99_RATIO = 2.0
"""Largest SubmitAction p99 with the watchers over without (issue 38: at most 2x)."""
THINK_MS = (20, 200)
"""A seat's think time before each action, ms (uniform; ``bummerl loadtest``'s default)."""
RAMP_S = 3.0
"""Seconds the watchers get to connect before a phase with them is measured."""
CHANNELS = 16
"""gRPC connections the watchers' streams are spread over."""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _cpu_s(pid: int) -> float:
    """User + system CPU seconds of a process and its children so far (:func:`figures._cpu_seconds`;
    0 elsewhere than Linux)."""
    return _cpu_seconds(pid) or 0.0


@contextlib.contextmanager
def _server(watchers: int) -> Iterator[tuple[subprocess.Popen[str], str, str, int]]:
    """``bummerl serve`` with its own embedded Valkey, REST gateway and metrics, every watcher
    allowed from one address; yields (process, gRPC target, REST base URL, metrics port)."""
    http_port, metrics_port = _free_port(), _free_port()
    env = {"BUMMERL_MAX_WATCHERS_PER_ADDRESS": "0", "BUMMERL_HTTP_MAX_CONNECTIONS_PER_ADDRESS": "0",
           "BUMMERL_HTTP_MAX_CONNECTIONS": str(watchers + 200), "BUMMERL_HOUSE_WORKERS": "0"}
    with spawn_server(["--ephemeral", "--http-port", str(http_port), "--metrics-port", str(metrics_port)],
                      drain=collections.deque(maxlen=50), env_extra=env) as (proc, target):
        yield proc, target, f"http://127.0.0.1:{http_port}", metrics_port


# -- the watchers' process ------------------------------------------------------------------------

def _watchers_process(target: str, base_url: str, n: int, api: str, conn: Connection) -> None:
    """Keeps ``n`` watch streams open while told to (``{"on": bool}``), each on one of the match
    ids last sent (``{"ids": [...]}``); on ``{"stats": True}`` sends its counters and resets them;
    ``{"stop": True}`` ends it. Messages are counted, not decoded."""
    import aiohttp
    import grpc

    from bummerl.v1 import game_pb2

    async def main() -> None:
        state: dict[str, Any] = {"ids": [], "on": False, "stop": False}
        stats = {"frames": 0, "opened": 0, "refused": 0, "ended": 0, "errors": 0}
        open_now = [0]
        channels = [grpc.aio.insecure_channel(target, options=[("grpc.use_local_subchannel_pool", 1)])
                    for _ in range(CHANNELS)] if api == "grpc" else []
        session = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0),
                                        timeout=aiohttp.ClientTimeout(total=None)) if api == "rest" else None

        def retry_s(text: str) -> float:
            m = re.search(r'"?(?:retry_after_ms|bummerl-retry-after-ms)"?\s*[:=,]\s*"?(\d+)', text)
            return min(10.0, int(m.group(1)) / 1000) if m else 1.0

        async def watch_grpc(i: int, mid: str) -> float:
            call = channels[i % len(channels)].unary_stream("/bummerl.v1.GameService/WatchMatch",
                                                            request_serializer=game_pb2.WatchMatchRequest.SerializeToString,
                                                            response_deserializer=None)(
                game_pb2.WatchMatchRequest(match_id=mid))
            got = 0
            try:
                async for _ in call:
                    if got == 0:
                        stats["opened"] += 1
                        open_now[0] += 1
                    got += 1
                    stats["frames"] += 1
                    if not state["on"] or state["stop"]:
                        break
                return 0.0
            except grpc.aio.AioRpcError as e:
                if e.code() == grpc.StatusCode.RESOURCE_EXHAUSTED:
                    stats["ended" if got else "refused"] += 1
                    hint = dict(e.trailing_metadata() or ()).get("bummerl-retry-after-ms")
                    return min(10.0, int(hint) / 1000) if hint else 1.0
                stats["errors"] += 1
                return 1.0
            finally:
                if got:
                    open_now[0] -= 1
                call.cancel()

        async def watch_rest(mid: str) -> float:
            assert session is not None
            got = 0
            try:
                async with session.get(f"{base_url}/v1/matches/{mid}/watch") as resp:
                    if resp.status != 200:
                        body = await resp.text()
                        stats["refused" if resp.status in (429, 503) else "errors"] += 1
                        return retry_s(body + resp.headers.get("bummerl-retry-after-ms", ""))
                    async for chunk in resp.content.iter_any():  # lines counted, not parsed
                        if b'{"error"' in chunk:
                            stats["ended"] += 1
                            return retry_s(chunk.decode(errors="replace"))
                        if got == 0:
                            stats["opened"] += 1
                            open_now[0] += 1
                        got += chunk.count(b"\n")
                        stats["frames"] += chunk.count(b"\n")
                        if not state["on"] or state["stop"]:
                            break
                return 0.0
            except (TimeoutError, aiohttp.ClientError):
                stats["errors"] += 1
                return 1.0
            finally:
                if got:
                    open_now[0] -= 1

        async def watcher(i: int) -> None:
            rng = random.Random(i)
            await asyncio.sleep(rng.random() * RAMP_S * 0.8)  # connect over the ramp, not all at once
            while not state["stop"]:
                ids = state["ids"]
                if not state["on"] or not ids:
                    await asyncio.sleep(0.05)
                    continue
                mid = ids[i % len(ids)]
                wait = await (watch_grpc(i, mid) if api == "grpc" else watch_rest(mid))
                if wait:
                    await asyncio.sleep(wait * (0.5 + rng.random()))

        tasks: list[asyncio.Task[None]] = []
        loop = asyncio.get_running_loop()
        peak = 0
        while not state["stop"]:
            if await loop.run_in_executor(None, conn.poll, 0.05):
                msg = conn.recv()
                if msg.get("stats"):
                    conn.send({**stats, "open": open_now[0], "open_peak": peak})
                    stats.update(dict.fromkeys(stats, 0))
                    peak = 0
                if "ids" in msg:
                    state["ids"] = list(msg["ids"])
                if "on" in msg:
                    state["on"] = msg["on"]
                    if msg["on"] and not tasks:
                        tasks = [asyncio.create_task(watcher(i)) for i in range(n)]
                    elif not msg["on"]:
                        for t in tasks:
                            t.cancel()
                        await asyncio.gather(*tasks, return_exceptions=True)
                        tasks = []
                        open_now[0] = 0
                if msg.get("stop"):
                    state["stop"] = True
            peak = max(peak, open_now[0])
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for c in channels:
            await c.close()
        if session is not None:
            await session.close()

    asyncio.run(main())


# -- the seats ------------------------------------------------------------------------------------

def _pct(xs: list[float], q: float) -> float | None:
    if not xs:
        return None
    xs = sorted(xs)
    return round(xs[min(len(xs) - 1, int(len(xs) * q))], 2)


def _loop_lag_ms(metrics_port: int) -> float | None:
    """The server's ``bummerl_event_loop_lag_seconds`` (ms), None when it has none yet."""
    import urllib.request

    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics", timeout=2) as r:
            text = r.read().decode()
    except OSError:
        return None
    m = re.search(r"^bummerl_event_loop_lag_seconds(?:\{[^}]*\})? (\S+)$", text, re.M)
    return float(m.group(1)) * 1000 if m else None


async def _run(target: str, base_url: str, server_pid: int, watchers: int, matches: int, seconds: float,
               rounds: int, api: str, metrics_port: int) -> dict[str, Any]:
    import multiprocessing

    import grpc

    from bummerl.v1 import game_pb2, game_pb2_grpc
    from bummerl_client import AsyncClient

    ctx = multiprocessing.get_context("spawn")
    parent, child = ctx.Pipe()
    proc = ctx.Process(target=_watchers_process, args=(target, base_url, watchers, api, child), daemon=True)
    proc.start()
    lat: list[float] = []
    measuring = [False]
    running: dict[int, str] = {}
    errors = [0]
    stop = asyncio.Event()
    channels = [grpc.aio.insecure_channel(target, options=[("grpc.use_local_subchannel_pool", 1)]) for _ in range(4)]

    def publish() -> None:
        parent.send({"ids": list(running.values())})

    async def seat(stub: Any, mid: str, s: int, token: str, rng: random.Random) -> None:
        auth = [("authorization", f"Bearer {token}")]
        call = stub.StreamMatch(game_pb2.StreamMatchRequest(match_id=mid, seat=s), metadata=auth)
        acted = -1
        try:
            async for upd in call:
                info = upd.information_set
                if info.match.over or stop.is_set():
                    return
                if info.deal.to_act == s and info.legal_actions and info.version > acted:
                    await asyncio.sleep(rng.uniform(*THINK_MS) / 1000)
                    t0 = time.perf_counter()
                    await stub.SubmitAction(game_pb2.SubmitActionRequest(
                        match_id=mid, seat=s, expected_version=info.version,
                        action_id=rng.choice(info.legal_actions).id), metadata=auth)
                    if measuring[0]:
                        lat.append((time.perf_counter() - t0) * 1000)
                    acted = info.version
        finally:
            call.cancel()

    async def table(i: int) -> None:
        stub = game_pb2_grpc.GameServiceStub(channels[i % len(channels)])
        rng = random.Random(i)
        await asyncio.sleep(rng.random() * 2)  # the tables start spread over 2 s
        n = 0
        while not stop.is_set():
            try:
                cm = await stub.CreateMatch(game_pb2.CreateMatchRequest(
                    variant="schnapsen-at", seed=i * 10_000 + n,
                    seats=[game_pb2.SeatSpec(name="a"), game_pb2.SeatSpec(name="b")]))
                running[i] = cm.match_id
                publish()
                await asyncio.gather(*(seat(stub, cm.match_id, s, cm.seat_tokens[s].token, rng) for s in (0, 1)))
            except grpc.aio.AioRpcError:
                if stop.is_set():
                    return
                errors[0] += 1
                await asyncio.sleep(0.1)
            n += 1

    async def phase(with_watchers: bool) -> dict[str, Any]:
        parent.send({"on": with_watchers})
        await asyncio.sleep(RAMP_S if with_watchers else 1.0)
        parent.send({"stats": True})
        await asyncio.get_running_loop().run_in_executor(None, parent.recv)  # the ramp's counters: dropped
        del lat[:]
        e0, c0, w0, t0 = errors[0], _cpu_s(server_pid), _cpu_s(proc.pid), time.perf_counter()
        measuring[0] = True
        lags: list[float] = []
        end = time.perf_counter() + seconds
        while (left := end - time.perf_counter()) > 0:
            await asyncio.sleep(min(1.0, left))
            got_lag = await asyncio.get_running_loop().run_in_executor(None, _loop_lag_ms, metrics_port)
            if got_lag is not None:
                lags.append(got_lag)
        measuring[0] = False
        dt, cpu, wcpu = time.perf_counter() - t0, _cpu_s(server_pid) - c0, _cpu_s(proc.pid) - w0
        parent.send({"stats": True})
        w = await asyncio.get_running_loop().run_in_executor(None, parent.recv)
        got = list(lat)
        return {"watchers": with_watchers, "actions": len(got), "actions_per_s": round(len(got) / dt, 1),
                "p50_ms": _pct(got, 0.5), "p99_ms": _pct(got, 0.99), "errors": errors[0] - e0,
                "server_cores": round(cpu / dt, 2), "watchers_client_cores": round(wcpu / dt, 2),
                "watch_frames_per_s": round(w["frames"] / dt, 1),
                "loop_lag_ms_mean": round(statistics.mean(lags), 1) if lags else None,
                "loop_lag_ms_max": round(max(lags), 1) if lags else None,
                "watch_open_peak": w["open_peak"], "watch_opened": w["opened"], "watch_refused": w["refused"],
                "watch_ended": w["ended"], "watch_errors": w["errors"]}

    try:
        async with AsyncClient(target) as probe:
            await probe.wait_ready(20)
        tasks = [asyncio.create_task(table(i)) for i in range(matches)]
        await asyncio.sleep(3.0)  # warm-up: every table playing
        phases = []
        for _ in range(rounds):
            phases.append(await phase(False))
            phases.append(await phase(True))
        stop.set()
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    finally:
        with contextlib.suppress(Exception):
            parent.send({"stop": True})
        proc.join(10)
        if proc.is_alive():
            proc.kill()
        for c in channels:
            await c.close()

    def pooled(ws: bool) -> dict[str, Any]:
        ps = [p for p in phases if p["watchers"] == ws]
        return {"actions_per_s": round(statistics.mean(p["actions_per_s"] for p in ps), 1),
                "p50_ms": round(statistics.median(p["p50_ms"] or 0 for p in ps), 2),
                "p99_ms": round(statistics.median(p["p99_ms"] or 0 for p in ps), 2),
                "server_cores": round(statistics.mean(p["server_cores"] for p in ps), 2),
                "watchers_client_cores": round(statistics.mean(p["watchers_client_cores"] for p in ps), 2),
                "watch_frames_per_s": round(statistics.mean(p["watch_frames_per_s"] for p in ps), 1),
                "watch_open_peak": max(p["watch_open_peak"] for p in ps),
                "watch_refused": sum(p["watch_refused"] for p in ps), "watch_ended": sum(p["watch_ended"] for p in ps)}

    without, with_ = pooled(False), pooled(True)
    extra = with_["server_cores"] - without["server_cores"]
    # the server's CPU per update a watcher got (refusals and reconnections included): unlike the
    # latencies, CPU time hardly depends on what else the machine runs
    us_per_frame = round(extra / with_["watch_frames_per_s"] * 1e6, 1) if with_["watch_frames_per_s"] else None
    actions_ratio = round(with_["actions_per_s"] / without["actions_per_s"], 3) if without["actions_per_s"] else None
    p99_ratio = round(with_["p99_ms"] / without["p99_ms"], 2) if without["p99_ms"] else None
    return {"watchers": watchers, "watch_api": api, "matches": matches, "seconds": seconds, "rounds": rounds,
            "think_ms": list(THINK_MS), "cpus": os.cpu_count(), "without": without, "with": with_,
            "actions_ratio": actions_ratio, "p99_ratio": p99_ratio, "server_us_per_watch_frame": us_per_frame,
            "load_average": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
            "target": {"actions_ratio_min": TARGET_ACTIONS_RATIO, "p99_ratio_max": TARGET_P99_RATIO},
            "meets_target": bool(actions_ratio is not None and p99_ratio is not None
                                 and actions_ratio >= TARGET_ACTIONS_RATIO and p99_ratio <= TARGET_P99_RATIO),
            "phases": phases}


def bench_watchers(watchers: int = 1000, matches: int = 16, seconds: float = 10.0, rounds: int = 1,
                   api: str = "grpc") -> dict[str, Any]:
    """Run the benchmark (module docstring) on a server of its own; the figures as a dict:
    ``without`` and ``with`` (``actions_per_s``, ``p50_ms``/``p99_ms`` in ms, ``server_cores``,
    ``watchers_client_cores`` (CPU of the watchers' process, which shares the machine),
    the watchers' ``watch_frames_per_s``, ``watch_open_peak``, ``watch_refused``, ``watch_ended``),
    ``actions_ratio`` and ``p99_ratio`` (with / without), ``target``, ``meets_target``,
    ``server_us_per_watch_frame`` (the server's extra CPU per update the watchers got, us),
    ``load_average`` (the machine's, at the end) and every ``phases`` entry."""
    if api not in ("grpc", "rest"):
        raise ValueError("api must be grpc or rest")
    with _server(watchers) as (proc, target, base_url, metrics_port):
        return asyncio.run(_run(target, base_url, proc.pid, watchers, matches, seconds, rounds, api, metrics_port))


def report(r: dict[str, Any]) -> str:
    """The figures as lines of text."""
    w, o = r["with"], r["without"]
    lines = [
        f"watchers ({r['watch_api']}, {r['matches']} matches of seats thinking {r['think_ms'][0]}..{r['think_ms'][1]} ms, "
        f"{r['rounds']} x {r['seconds']:g} s per phase, {r['cpus']} CPUs shared with the load and the watchers):",
        f"  without watchers: {o['actions_per_s']:,.1f} SubmitAction/s, p50 {o['p50_ms']} ms, p99 {o['p99_ms']} ms, "
        f"server {o['server_cores']} cores",
        f"  with {r['watchers']} watchers: {w['actions_per_s']:,.1f} SubmitAction/s, p50 {w['p50_ms']} ms, "
        f"p99 {w['p99_ms']} ms, server {w['server_cores']} cores (the watchers' client {w['watchers_client_cores']}); "
        f"watchers: {w['watch_open_peak']} open at most, "
        f"{w['watch_frames_per_s']:,.0f} frames/s, {w['watch_refused']} refused, {w['watch_ended']} ended by the server",
        f"  ratio: actions/s {r['actions_ratio']} (target >= {r['target']['actions_ratio_min']}), p99 {r['p99_ratio']}x "
        f"(target <= {r['target']['p99_ratio_max']}x): {'meets' if r['meets_target'] else 'MISSES'} the target",
        f"  server CPU per update a watcher got: {r['server_us_per_watch_frame']} us; load average at the end "
        f"{', '.join(f'{x:.1f}' for x in r['load_average'] or ())} (latencies follow the machine's other load)",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """``python -m bummerl_bench.watchers``: the flags of :func:`bench_watchers`."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    ap.add_argument("--watchers", type=int, default=1000, help="WatchMatch streams (default 1000)")
    ap.add_argument("--matches", type=int, default=16, help="matches the seats play at a time (default 16)")
    ap.add_argument("--seconds", type=float, default=10.0, help="seconds measured per phase (default 10)")
    ap.add_argument("--rounds", type=int, default=1, help="pairs of phases without/with watchers (default 1)")
    ap.add_argument("--watch-api", choices=["grpc", "rest"], default="grpc", help="the watchers' API (default grpc)")
    ap.add_argument("--json", action="store_true", help="one JSON line")
    a = ap.parse_args(argv)
    r = bench_watchers(a.watchers, a.matches, a.seconds, a.rounds, a.watch_api)
    print(json.dumps(r) if a.json else report(r))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

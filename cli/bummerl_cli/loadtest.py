"""``bummerl loadtest``: load any deployment through its public API only (issue 26), as real bots do.

    bummerl loadtest --server HOST:PORT [--rest URL] --admin-token T --matches 200 --variant schnapsen-at \\
                     --think-ms 20..200 --duration 60 --ramp 10 [--rate 500] [--slo p99_ms=50,errors=0] [--json]

It keeps ``--matches`` matches going (a finished one is replaced by a new one), opened over
``--ramp`` seconds. Every seat is a bot that follows its ``StreamMatch`` (reconnecting from the
last version it saw when the stream drops), thinks for a random time in ``--think-ms`` and then
submits a random legal action with the version it saw; ``--rate`` caps the actions per second
of the whole load (a token bucket). Over REST (``--rest http://HOST:8080``) the same bots use the
gateway: NDJSON streams and JSON posts.

It reports actions/s, the latency of each RPC (p50/p95/p99, ms), the **commit-to-other-seat
update** latency (from a seat's SubmitAction answer to the update of that version arriving on
another seat's stream), errors by status code, matches ended on time, and exits 1 when an SLO
of ``--slo`` is missed (``p99_ms``: SubmitAction p99; ``update_p99_ms``: the commit-to-update
p99; ``errors``: most errors in all; ``actions_per_s``: least actions/s), or when no match could be
created at all.

Why not Locust: its users are request/response tasks on gevent, while a Bummerl bot is a
long-lived server stream plus unary calls on asyncio gRPC; the figure that matters here (a commit
reaching the other seats' streams) spans two users' connections. This command stays on the SDK
the bots use; Locust's distributed workers would add little on one machine.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import time
from collections import Counter
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import aiohttp
from rich.console import Console
from rich.table import Table

from bummerl.rules import find_variant
from bummerl_client import AsyncClient

SLO_KEYS = ("p99_ms", "update_p99_ms", "errors", "actions_per_s")


def parse_range(text: str) -> tuple[float, float]:
    """``"20..200"`` -> (20.0, 200.0) ms; ``"50"`` -> (50.0, 50.0). ValueError otherwise."""
    lo, sep, hi = text.partition("..")
    a, b = float(lo), float(hi) if sep else float(lo)
    if a < 0 or b < a:
        raise ValueError(f"--think-ms takes LOW..HIGH milliseconds with 0 <= LOW <= HIGH, got {text!r}")
    return a, b


def parse_slo(text: str | None) -> dict[str, float]:
    """``"p99_ms=50,errors=0"`` -> ``{"p99_ms": 50.0, "errors": 0.0}``; ValueError for an unknown key."""
    out: dict[str, float] = {}
    for part in (text or "").split(","):
        if not part.strip():
            continue
        k, eq, v = part.partition("=")
        if not eq or k.strip() not in SLO_KEYS:
            raise ValueError(f"--slo takes {', '.join(k + '=N' for k in SLO_KEYS)}; got {part!r}")
        out[k.strip()] = float(v)
    return out


def quantiles(xs: list[float]) -> dict[str, float]:
    """p50/p95/p99 (ms, nearest rank) and the count of a list of latencies."""
    if not xs:
        return {"n": 0, "p50": 0.0, "p95": 0.0, "p99": 0.0}
    s = sorted(xs)

    def q(p: float) -> float:
        return round(s[min(len(s) - 1, max(0, int(p * len(s) + 0.5) - 1))], 2)

    return {"n": len(s), "p50": q(0.50), "p95": q(0.95), "p99": q(0.99)}


@dataclass
class Stats:
    """What the load measured (latencies in ms)."""

    rpc_ms: dict[str, list[float]] = field(default_factory=dict)
    update_ms: list[float] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)
    actions: int = 0
    matches_done: int = 0
    timeouts: int = 0
    reconnects: int = 0
    acked: dict[tuple[str, int], tuple[float, int]] = field(default_factory=dict)
    """(match, version) -> (when its SubmitAction answer arrived, the acting seat)."""

    def rpc(self, name: str, ms: float) -> None:
        self.rpc_ms.setdefault(name, []).append(ms)


class Bucket:
    """Token bucket of ``rate`` actions per second (None = no cap)."""

    def __init__(self, rate: float | None) -> None:
        self.rate = rate
        self.tokens = 1.0
        self.t = time.monotonic()

    async def take(self) -> None:
        if not self.rate:
            return
        while True:
            now = time.monotonic()
            self.tokens = min(max(1.0, self.rate), self.tokens + (now - self.t) * self.rate)
            self.t = now
            if self.tokens >= 1:
                self.tokens -= 1
                return
            await asyncio.sleep((1 - self.tokens) / self.rate)


class GrpcApi:
    """The public gRPC API through the SDK."""

    def __init__(self, target: str) -> None:
        self.client = AsyncClient(target)

    async def create(self, variant: str, seats: int, admin: str | None) -> tuple[str, list[str]]:
        cm = await self.client.create_match(variant, seats=[f"load{i}" for i in range(seats)], admin_token=admin)
        return cm.match_id, cm.tokens

    def stream(self, match_id: str, seat: int, token: str, from_version: int) -> AsyncIterator[Mapping[str, Any]]:
        return self.client.stream(match_id, seat, token, from_version)

    async def submit(self, match_id: str, seat: int, token: str, version: int, action: int) -> Mapping[str, Any]:
        return await self.client.submit_action(match_id, seat, token, version, action)

    async def close(self) -> None:
        await self.client.close()


class RestError(Exception):
    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


class RestApi:
    """The public REST/JSON API of the gateway (aiohttp)."""

    def __init__(self, base: str) -> None:
        self.base = base.rstrip("/")
        self.session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=None, sock_read=60))

    async def _post(self, path: str, body: dict[str, Any], token: str | None) -> dict[str, Any]:
        headers = {"authorization": f"Bearer {token}"} if token else {}
        async with self.session.post(self.base + path, json=body, headers=headers) as r:
            data = await r.json(content_type=None)
            if r.status != 200:
                raise RestError(str((data or {}).get("code", r.status)))
            return dict(data)

    async def create(self, variant: str, seats: int, admin: str | None) -> tuple[str, list[str]]:
        got = await self._post("/v1/matches", {"variant": variant, "seats": [{"name": f"load{i}"} for i in range(seats)]},
                               admin)
        return got["match_id"], [t["token"] for t in sorted(got["seat_tokens"], key=lambda t: int(t.get("seat", 0)))]

    async def stream(self, match_id: str, seat: int, token: str, from_version: int) -> AsyncIterator[dict[str, Any]]:
        url = f"{self.base}/v1/matches/{match_id}/seats/{seat}/stream?from_version={from_version}"
        async with self.session.get(url, headers={"authorization": f"Bearer {token}"}) as r:
            if r.status != 200:
                raise RestError(str(r.status))
            async for line in r.content:
                if not line.strip():
                    continue
                msg = json.loads(line)
                if "error" in msg:
                    raise RestError(str(msg["error"].get("code", "ERROR")))
                yield msg["result"]

    async def submit(self, match_id: str, seat: int, token: str, version: int, action: int) -> dict[str, Any]:
        return await self._post(f"/v1/matches/{match_id}/seats/{seat}/actions",
                                {"expected_version": str(version), "action_id": action}, token)

    async def close(self) -> None:
        await self.session.close()


def _code(e: BaseException) -> str:
    code = getattr(e, "code", None)
    return str(getattr(code, "name", code) or type(e).__name__)


class Load:
    """One load run (see the module docstring)."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.think = parse_range(args.think_ms)
        self.stats = Stats()
        self.bucket = Bucket(args.rate)
        self.rng = random.Random(args.seed)
        self.stop_at = 0.0
        self.api: GrpcApi | RestApi  # made in run(), on its event loop

    async def seat(self, match_id: str, seat: int, token: str) -> None:
        """Follow the seat's stream, think, act; resume after a dropped stream; until the match ends."""
        st, last = self.stats, 0
        while True:
            try:
                async for upd in self.api.stream(match_id, seat, token, last):
                    version = int(upd["version"])
                    now = time.perf_counter()
                    acked = st.acked.get((match_id, version))
                    if acked is not None and acked[1] != seat and version > last:  # another seat's commit
                        st.update_ms.append(max(0.0, (now - acked[0]) * 1000))
                    last = max(last, version)
                    info = upd["information_set"]
                    if info["match"]["over"]:
                        return
                    legal = info.get("legal_actions") or []
                    if not legal or int(info["deal"]["to_act"]) != seat:
                        continue
                    await asyncio.sleep(self.rng.uniform(*self.think) / 1000)
                    await self.bucket.take()
                    t0 = time.perf_counter()
                    try:
                        got = await self.api.submit(match_id, seat, token, version, int(self.rng.choice(legal)["id"]))
                    except Exception as e:  # noqa: BLE001 - counted: a stale version is the other seat's race
                        st.errors[_code(e)] += 1
                        if "TIMEOUT" in str(e) or "ran out of time" in str(e):
                            st.timeouts += 1
                        continue
                    t1 = time.perf_counter()
                    st.rpc("SubmitAction", (t1 - t0) * 1000)
                    st.actions += 1
                    st.acked[(match_id, int(got["version"]))] = (t1, seat)
                return
            except Exception as e:  # noqa: BLE001 - the stream dropped: resume from the last version
                st.errors[_code(e)] += 1
                st.reconnects += 1
                if time.monotonic() > self.stop_at:
                    return
                await asyncio.sleep(0.2)

    async def slot(self, delay: float) -> None:
        """One of the ``--matches`` places: play matches one after another until the end."""
        await asyncio.sleep(delay)
        seats = find_variant(self.args.variant).num_players
        while time.monotonic() < self.stop_at:
            t0 = time.perf_counter()
            try:
                match_id, tokens = await self.api.create(self.args.variant, seats, self.args.admin_token)
            except Exception as e:  # noqa: BLE001
                self.stats.errors[_code(e)] += 1
                await asyncio.sleep(0.5)
                continue
            self.stats.rpc("CreateMatch", (time.perf_counter() - t0) * 1000)
            await asyncio.gather(*(self.seat(match_id, s, t) for s, t in enumerate(tokens)))
            self.stats.matches_done += 1
            for key in [k for k in self.stats.acked if k[0] == match_id]:
                del self.stats.acked[key]

    async def run(self, progress: Any = None) -> dict[str, Any]:
        a = self.args
        self.api = RestApi(a.rest) if a.rest else GrpcApi(a.server)
        started = time.monotonic()
        self.stop_at = started + a.duration
        slots = [asyncio.create_task(self.slot(a.ramp * i / max(1, a.matches))) for i in range(a.matches)]
        try:
            while time.monotonic() < self.stop_at:
                await asyncio.sleep(0.5)
                if progress is not None:
                    progress(time.monotonic() - started, self.stats)
        finally:
            for t in slots:
                t.cancel()
            await asyncio.gather(*slots, return_exceptions=True)
            await self.api.close()
        return self.report(time.monotonic() - started)

    def report(self, seconds: float) -> dict[str, Any]:
        st = self.stats
        out = {"api": "rest" if self.args.rest else "grpc", "variant": self.args.variant, "matches": self.args.matches,
               "seconds": round(seconds, 1), "actions": st.actions, "actions_per_s": round(st.actions / seconds, 1),
               "matches_done": st.matches_done, "rpc_ms": {k: quantiles(v) for k, v in st.rpc_ms.items()},
               "update_ms": quantiles(st.update_ms), "errors": dict(st.errors),
               "error_total": sum(st.errors.values()), "timeouts": st.timeouts, "reconnects": st.reconnects}
        out["slo"] = check_slo(out, parse_slo(self.args.slo))
        if not st.rpc_ms.get("CreateMatch"):
            # nothing was loaded: no SLO can pass on that (every CreateMatch failed, e.g. a wrong admin token)
            codes = ", ".join(f"{k} x{v}" for k, v in sorted(st.errors.items())) or "none answered"
            out["slo"] = {"ok": False, "missed": [f"no match could be created (CreateMatch errors: {codes})",
                                                  *out["slo"]["missed"]]}
        return out


def check_slo(report: dict[str, Any], slo: dict[str, float]) -> dict[str, Any]:
    """``{"ok": bool, "missed": [text, ...]}`` of a report against the SLOs."""
    missed = []
    sub = report["rpc_ms"].get("SubmitAction", {"p99": 0.0})
    if "p99_ms" in slo and sub["p99"] > slo["p99_ms"]:
        missed.append(f"SubmitAction p99 {sub['p99']} ms > {slo['p99_ms']:g} ms")
    if "update_p99_ms" in slo and report["update_ms"]["p99"] > slo["update_p99_ms"]:
        missed.append(f"commit-to-update p99 {report['update_ms']['p99']} ms > {slo['update_p99_ms']:g} ms")
    if "errors" in slo and report["error_total"] > slo["errors"]:
        missed.append(f"{report['error_total']} errors > {slo['errors']:g}")
    if "actions_per_s" in slo and report["actions_per_s"] < slo["actions_per_s"]:
        missed.append(f"{report['actions_per_s']} actions/s < {slo['actions_per_s']:g}")
    return {"ok": not missed, "missed": missed}


def add_parser(sub: Any) -> None:
    p = sub.add_parser("loadtest", help="load a running deployment through its public API, as real bots do",
                       description=(__doc__ or "").split("\n\n")[1])
    p.add_argument("--server", default="localhost:50051", help="gRPC HOST:PORT (default localhost:50051)")
    p.add_argument("--rest", default=None, help="drive the REST gateway at this base URL instead, e.g. http://host:8080")
    p.add_argument("--admin-token", default=None, help="admin token for CreateMatch (default: BUMMERL_ADMIN_TOKEN)")
    p.add_argument("--matches", type=int, default=50, help="matches played at once (default 50)")
    p.add_argument("--variant", default="schnapsen-at", help="variant id (default schnapsen-at)")
    p.add_argument("--think-ms", default="20..200", help="each bot's think time per action, LOW..HIGH ms (default 20..200)")
    p.add_argument("--duration", type=float, default=60.0, help="seconds of load (default 60)")
    p.add_argument("--ramp", type=float, default=10.0, help="seconds over which the matches are opened (default 10)")
    p.add_argument("--rate", type=float, default=None, help="most actions per second in all (default: no cap)")
    p.add_argument("--slo", default=None,
                   help="exit 1 unless met: p99_ms=N (SubmitAction), update_p99_ms=N, errors=N, actions_per_s=N")
    p.add_argument("--seed", type=int, default=None, help="seed of the bots' choices (default random)")
    p.add_argument("--json", action="store_true", help="one JSON object with the report")


def run(args: argparse.Namespace) -> int:
    """``bummerl loadtest``: prints the report; 1 when an SLO is missed or no match could be created."""
    parse_slo(args.slo)
    parse_range(args.think_ms)
    args.admin_token = args.admin_token or os.environ.get("BUMMERL_ADMIN_TOKEN")
    err = Console(stderr=True)

    def progress(t: float, st: Stats) -> None:
        if not args.json:
            err.print(f"[{t:5.1f} s] {st.actions} actions ({st.actions / max(t, 0.1):.0f}/s), "
                      f"{st.matches_done} matches done, {sum(st.errors.values())} errors", highlight=False)

    report = asyncio.run(Load(args).run(progress))
    if args.json:
        print(json.dumps(report))
    else:
        t = Table(title=f"loadtest {report['api']} {report['variant']}: {report['matches']} matches at once, "
                        f"{report['seconds']} s")
        for col in ("", "n", "p50 ms", "p95 ms", "p99 ms"):
            t.add_column(col)
        for name, q in [*report["rpc_ms"].items(), ("commit -> other seat's update", report["update_ms"])]:
            t.add_row(name, str(q["n"]), str(q["p50"]), str(q["p95"]), str(q["p99"]))
        Console().print(t)
        print(f"{report['actions']} actions, {report['actions_per_s']} actions/s, {report['matches_done']} matches done, "
              f"errors {report['errors'] or 0}, reconnects {report['reconnects']}")
        for m in report["slo"]["missed"]:
            print(m if m.startswith("no match") else f"SLO missed: {m}")
    return 0 if report["slo"]["ok"] else 1

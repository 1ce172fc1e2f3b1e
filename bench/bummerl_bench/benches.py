"""Benchmarks that print figures (``make bench``, ``bummerl bench ...``); they are not timed tests.

Outside the service package (issue 23): they use the engine's facade, the service's public
modules and the SDK's public calls (the low-level call API of :mod:`bummerl_client.client`:
``auth_metadata``, ``error_from_rpc``, ``create_match_request``, ``submit_action_request``).

* :func:`bench_engine`: random-vs-random deals on one core with fixed seeds, using the engine's
  in-place hot path (``TalonDeal.step``); reports deals/s and actions/s.
* :func:`bench_service`: SubmitAction calls/s and p50/p99 latency (ms) against one server
  process (a ``bummerl serve`` subprocess with embedded Valkey) driven by ``matches`` concurrent
  random players from this process.
* :func:`bench_strong`: the ``strong`` bot against ``greedy`` (or any two bot specs) over
  duplicate deal pairs per variant: Elo difference with a 95% interval, mean decision time.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import os
import random
import statistics
import time
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

from bummerl.rules import TalonDeal, actions, find_variant, parse_action

DECLARE = actions.DECLARE
OVER = TalonDeal.OVER


def bench_engine(variant: str, seconds: float = 10.0, seed: int = 1, policy: str = "random") -> dict[str, Any]:
    """Play random deals of ``variant`` for ``seconds`` (wall clock) on this thread.

    ``policy`` ``"random"``: uniform over the legal actions (random players often declare 66
    falsely, which ends a deal early); ``"no-declare"``: uniform over the legal actions other
    than ``declare``, so deals run their full length. Returns ``{"variant", "policy", "deals",
    "actions", "seconds", "deals_per_s", "actions_per_s", "actions_per_deal"}``.
    """
    if policy not in ("random", "no-declare"):
        raise ValueError(f"unknown policy {policy!r}: random or no-declare")
    rules = find_variant(variant).configure({})
    rng = random.Random(seed)
    choice = rng.choice
    deck = list(rules.deck)
    deals = acts = 0
    skip_declare = policy == "no-declare"
    t0 = time.perf_counter()
    deadline = t0 + seconds
    contract = rules.spec.deal_class if rules.spec.talon is None else None  # None: the two-player deal
    n = rules.spec.num_players
    while time.perf_counter() < deadline:
        for _ in range(500):
            rng.shuffle(deck)
            if contract is not None:  # a contract deal of 3 or 4 seats (§1.8)
                c = contract.new(rules, deck, deals % n)
                while not c.over:
                    legal = c.legal_actions()
                    if skip_declare and DECLARE in legal and len(legal) > 1:
                        legal.remove(DECLARE)
                    c.step(choice(legal))
                    acts += 1
                deals += 1
                continue
            d = TalonDeal.new(rules, deck, deals & 1)  # two-player deals, also of the rotation games
            while d.phase != OVER:
                legal = d.legal_actions()
                if skip_declare and legal[-1] == DECLARE and len(legal) > 1:
                    legal.pop()  # declare has the highest id of a lead turn's actions
                d.step(choice(legal))
                acts += 1
            deals += 1
    dt = time.perf_counter() - t0
    return {
        "variant": rules.spec.id, "policy": policy, "deals": deals, "actions": acts, "seconds": round(dt, 3),
        "deals_per_s": round(deals / dt, 1), "actions_per_s": round(acts / dt, 1),
        "actions_per_deal": round(acts / deals, 2),
    }


class _RestCalls:
    """The three calls of the service bench over the REST/JSON gateway (aiohttp client), with the
    same dict shapes as :class:`bummerl_client.AsyncClient`; errors raise ``BummerlError``."""

    def __init__(self, base_url: str) -> None:
        import aiohttp

        self.base = base_url.rstrip("/")
        self.session = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0))

    async def _call(self, method: str, path: str, token: str | None = None, body: Any = None) -> dict[str, Any]:
        import grpc

        from bummerl_client import BummerlError

        headers = {"Authorization": f"Bearer {token}"} if token else {}
        async with self.session.request(method, self.base + path, json=body, headers=headers) as resp:
            out: dict[str, Any] = await resp.json()
            if resp.status != 200:
                raise BummerlError(grpc.StatusCode[out.get("code", "UNKNOWN")], out.get("message", ""))
            return out

    async def create_match(self, variant: str, seed: int | None = None) -> Any:
        from bummerl_client.client import CreatedMatch

        out = await self._call("POST", "/v1/matches", body={"variant": variant, "seed": seed})
        tokens = [t["token"] for t in sorted(out["seat_tokens"], key=lambda t: t["seat"])]
        return CreatedMatch(out["match_id"], tokens, out["summary"])

    async def information_set(self, match_id: str, seat: int, token: str) -> dict[str, Any]:
        return await self._call("GET", f"/v1/matches/{match_id}/seats/{seat}/information-set", token)

    async def submit_action(self, match_id: str, seat: int, token: str, expected_version: int,
                            action: int) -> dict[str, Any]:
        return await self._call("POST", f"/v1/matches/{match_id}/seats/{seat}/actions", token,
                                {"expected_version": str(expected_version), "action_id": action})

    async def close(self) -> None:
        await self.session.close()


def latency_figures(lat: list[float], seconds: float) -> dict[str, Any]:
    """Call latencies (seconds) over a run of ``seconds`` -> ``{"submit_calls", "seconds",
    "actions_per_s", "p50_ms", "p99_ms"}`` (ms; None without calls)."""
    lat = sorted(lat)
    n = len(lat)
    return {"submit_calls": n, "seconds": round(seconds, 3), "actions_per_s": round(n / seconds, 1),
            "p50_ms": round(statistics.median(lat) * 1000, 3) if n else None,
            "p99_ms": round(lat[min(n - 1, int(n * 0.99))] * 1000, 3) if n else None}


class _RawGrpcCalls:
    """The service bench's calls on the SDK's stub and request builders, but the information set
    stays a protobuf message (no dict conversion), so the load client costs the shared cores as
    little as the floor's client does and the figure measures the server. Errors raise
    ``BummerlError`` (the SDK's conversion)."""

    def __init__(self, target: str) -> None:
        import grpc

        from bummerl_client import AsyncClient

        self.client = AsyncClient(target, grpc.aio.insecure_channel(target, options=[("grpc.use_local_subchannel_pool", 1)]))

    @staticmethod
    async def _call(rpc: Any, req: Any, token: str | None = None) -> Any:
        import grpc

        from bummerl_client import auth_metadata, error_from_rpc

        try:
            return await rpc(req, metadata=auth_metadata(token))
        except grpc.RpcError as e:
            raise error_from_rpc(e) from None

    async def create_match(self, variant: str, seed: int | None = None) -> tuple[str, list[str]]:
        from bummerl_client import create_match_request

        req = create_match_request(variant, None, ("seat0", "seat1"), seed)  # as AsyncClient.create_match
        out = await self._call(self.client.stub.CreateMatch, req)
        return out.match_id, [t.token for t in sorted(out.seat_tokens, key=lambda t: t.seat)]

    async def information_set(self, match_id: str, seat: int, token: str) -> Any:
        from bummerl.v1 import game_pb2

        req = game_pb2.GetInformationSetRequest(match_id=match_id, seat=seat)
        return await self._call(self.client.stub.GetInformationSet, req, token)

    async def submit(self, match_id: str, seat: int, token: str, version: int, action: int) -> Any:
        from bummerl_client import submit_action_request

        req = submit_action_request(match_id, seat, version, action)
        return (await self._call(self.client.stub.SubmitAction, req, token)).information_set

    async def stream(self, match_id: str, seat: int, token: str) -> Any:
        """The seat's StreamMatch updates (``MatchUpdate`` messages)."""
        import grpc

        from bummerl.v1 import game_pb2
        from bummerl_client import auth_metadata, error_from_rpc

        call = self.client.stub.StreamMatch(game_pb2.StreamMatchRequest(match_id=match_id, seat=seat),
                                            metadata=auth_metadata(token))
        try:
            async for upd in call:
                yield upd.information_set
        except grpc.RpcError as e:
            raise error_from_rpc(e) from None
        finally:
            call.cancel()

    def play(self, match_id: str, seat: int, token: str) -> Any:
        """The seat's ``Play`` call (raw): write its first request, then read ``MatchUpdate``s and
        write actions on it."""
        from bummerl_client import auth_metadata

        return self.client.stub.Play(metadata=auth_metadata(token))

    @staticmethod
    def fields(info: Any) -> tuple[int, bool, int, list[int]]:
        """(version, match over, seat to act, legal action ids) of an information set."""
        return info.version, info.match.over, info.deal.to_act, [a.id for a in info.legal_actions]

    async def close(self) -> None:
        await self.client.close()


class _DictCalls:
    """The same calls through a dict-speaking client (the SDK's ``AsyncClient`` or
    :class:`_RestCalls`): what a Python bot pays for its JSON-shaped information sets."""

    def __init__(self, client: Any) -> None:
        self.client = client

    async def create_match(self, variant: str, seed: int | None = None) -> tuple[str, list[str]]:
        cm = await self.client.create_match(variant, seed=seed)
        return cm.match_id, list(cm.tokens)

    async def information_set(self, match_id: str, seat: int, token: str) -> Any:
        return await self.client.information_set(match_id, seat, token)

    async def submit(self, match_id: str, seat: int, token: str, version: int, action: int) -> Any:
        return (await self.client.submit_action(match_id, seat, token, version, action))["information_set"]

    @staticmethod
    def fields(info: Any) -> tuple[int, bool, int, list[int]]:
        return (int(info["version"]), bool(info["match"]["over"]), int(info["deal"]["to_act"]),
                [a["id"] for a in info["legal_actions"]])

    async def close(self) -> None:
        await self.client.close()


async def _service_load(target: str, matches: int, seconds: float, variant: str,
                        rest_url: str | None = None, rate: float | None = None, channels: int = 1,
                        sdk: bool = False) -> dict[str, Any]:
    """``matches`` players for ``seconds``; ``rate`` (SubmitAction/s over all players) paces an
    open-loop load instead of calling as fast as answers come (latency below saturation);
    ``channels``: gRPC connections the players are spread over (one per server worker or more:
    with SO_REUSEPORT the kernel assigns each connection, not each call, to a worker).
    The gRPC client keeps responses as protobuf messages (:class:`_RawGrpcCalls`) unless ``sdk``
    (then the SDK's ``AsyncClient``, which turns every response into a dict). Besides the
    SubmitAction figures the result has ``calls_per_s``: every RPC the players made per second."""
    from bummerl_client import AsyncClient, BummerlError

    pool: list[Any]
    if rest_url:
        pool = [_DictCalls(_RestCalls(rest_url))]
    elif sdk:
        pool = [_DictCalls(AsyncClient(target)) for _ in range(channels)]
    else:
        pool = [_RawGrpcCalls(target) for _ in range(channels)]
    lat: list[float] = []
    stop_at = time.perf_counter() + seconds
    errors = 0
    calls = 0  # every RPC the players make (CreateMatch, GetInformationSet, SubmitAction)
    try:
        async with AsyncClient(target) as probe:
            await probe.wait_ready(20)

        async def player(i: int) -> None:
            """Create matches and play both seats at random; the information set of the seat to
            act comes from the SubmitAction answer, or one GetInformationSet when the turn passes."""
            nonlocal errors, calls
            c = pool[i % len(pool)]
            fields = c.fields
            rng = random.Random(i)
            period = matches / rate if rate else 0.0
            next_at = time.perf_counter() + rng.random() * period
            while time.perf_counter() < stop_at:
                match_id, tokens = await c.create_match(variant, seed=i)
                seat = fields(await c.information_set(match_id, 0, tokens[0]))[2]
                version, over, _, legal = fields(await c.information_set(match_id, seat, tokens[seat]))
                calls += 3
                while time.perf_counter() < stop_at and not over:
                    a = rng.choice(legal)
                    if period:
                        await asyncio.sleep(max(0.0, next_at - time.perf_counter()))
                        next_at += period
                    t = time.perf_counter()
                    try:
                        info = await c.submit(match_id, seat, tokens[seat], version, a)
                    except BummerlError:
                        errors += 1
                        break
                    lat.append(time.perf_counter() - t)
                    calls += 1
                    version, over, nxt, legal = fields(info)
                    if nxt >= 0 and nxt != seat:
                        seat = nxt
                        calls += 1
                        version, over, _, legal = fields(await c.information_set(match_id, seat, tokens[seat]))

        t0 = time.perf_counter()
        await asyncio.gather(*(player(i) for i in range(matches)))
        dt = time.perf_counter() - t0
    finally:
        for c in pool:
            await c.close()
    return {"matches": matches, "variant": variant, "api": "rest" if rest_url else "grpc-sdk" if sdk else "grpc",
            "rate": rate, "errors": errors, "calls_per_s": round(calls / dt, 1), **latency_figures(lat, dt)}


async def _stream_load(target: str, matches: int, seconds: float, variant: str, channels: int = 1,
                       sdk: bool = False, play: bool = False) -> dict[str, Any]:
    """The realistic load: ``matches`` matches at a time, each seat played by a random player that
    follows its StreamMatch as real bots do (no GetInformationSet); when a match ends another
    starts, until ``seconds`` have passed. Times every SubmitAction. The players keep updates as
    protobuf messages (:class:`_RawGrpcCalls`) unless ``sdk``: then each seat is the SDK's runner
    (``bummerl_client.play_seat`` with the ``random`` bot, dict updates). ``play``: each seat
    plays on one ``Play`` call (updates in, actions out on the same call; the latency is then
    from writing the action to reading its update)."""
    import grpc

    from bummerl_client import AsyncClient, play_seat
    from bummerl_client.bots import make_bot
    from bummerl_client.client import PlayCall

    lat: list[float] = []
    errors = 0
    error_kinds: dict[str, int] = {}  # "<exception>: <message>" -> count, for the report
    calls = 0  # every unary RPC (CreateMatch, SubmitAction); stream messages are not counted

    class TimedPlay(PlayCall):
        """The SDK runner's Play call, timed from an action's write to its update."""

        sent: tuple[float, int] | None = None

        async def send(self, expected_version: int, action: int | str) -> None:
            nonlocal calls
            self.sent = (time.perf_counter(), expected_version)
            calls += 1
            await super().send(expected_version, action)

        async def _updates(self) -> AsyncIterator[dict[str, Any]]:
            async for upd in super()._updates():
                if self.sent is not None and int(upd["version"]) > self.sent[1]:
                    lat.append(time.perf_counter() - self.sent[0])
                    self.sent = None
                yield upd

    class Timed(AsyncClient):
        async def submit_action(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
            t = time.perf_counter()
            out = await super().submit_action(*args, **kwargs)
            lat.append(time.perf_counter() - t)
            return out

        def play(self, match_id: str, seat: int, token: str, from_version: int = 0) -> PlayCall:
            return TimedPlay(self, match_id, seat, token, from_version)

    pool: list[Any]
    if sdk:
        pool = [Timed(target, grpc.aio.insecure_channel(target, options=[("grpc.use_local_subchannel_pool", 1)]))
                for _ in range(channels)]
    else:
        pool = [_RawGrpcCalls(target) for _ in range(channels)]

    async def play_player(c: _RawGrpcCalls, match_id: str, seat: int, token: str, rng: random.Random) -> None:
        """The seat on one Play call: act on each update that gives it the turn."""
        from bummerl.v1 import game_pb2

        nonlocal calls
        call = c.play(match_id, seat, token)
        try:
            await call.write(game_pb2.PlayRequest(match_id=match_id, seat=seat))
            sent_at, sent = 0.0, -1
            async for upd in call:
                version, over, to_act, legal = c.fields(upd.information_set)
                if sent >= 0 and version > sent:
                    lat.append(time.perf_counter() - sent_at)
                    sent = -1
                if over:
                    return
                if to_act == seat and legal:
                    sent_at, sent = time.perf_counter(), version
                    await call.write(game_pb2.PlayRequest(expected_version=version, action_id=rng.choice(legal)))
                    calls += 1
        finally:
            call.cancel()

    async def seat_player(c: _RawGrpcCalls, match_id: str, seat: int, token: str, rng: random.Random) -> None:
        """Follow the seat's stream; act (at random) on each update that gives it the turn."""
        nonlocal calls
        acted_at = -1
        async for info in c.stream(match_id, seat, token):
            version, over, to_act, legal = c.fields(info)
            if over:
                return
            if to_act == seat and legal and version > acted_at:
                t = time.perf_counter()
                await c.submit(match_id, seat, token, version, rng.choice(legal))
                lat.append(time.perf_counter() - t)
                calls += 1
                acted_at = version

    stop_at = time.perf_counter() + seconds
    try:
        async with AsyncClient(target) as probe:
            await probe.wait_ready(20)

        async def table(i: int) -> None:
            nonlocal errors, calls
            c = pool[i % len(pool)]
            rng = random.Random(i)
            n = 0
            while time.perf_counter() < stop_at:
                try:
                    if sdk:
                        m = await c.create_match(variant, seed=i * 1000 + n)
                        await asyncio.gather(*(play_seat(c, m.match_id, s, m.tokens[s], make_bot("random", i + s))
                                               for s in (0, 1)))
                    else:
                        match_id, tokens = await c.create_match(variant, seed=i * 1000 + n)
                        calls += 1
                        player = play_player if play else seat_player
                        await asyncio.gather(*(player(c, match_id, s, tokens[s], rng) for s in (0, 1)))
                except Exception as e:  # noqa: BLE001 - counted, the table goes on
                    if time.perf_counter() >= stop_at:
                        return  # the run's end cancelled the table's calls: not the server's error
                    errors += 1
                    kind = f"{type(e).__name__}: {e}"[:120]
                    error_kinds[kind] = error_kinds.get(kind, 0) + 1
                n += 1

        t0 = time.perf_counter()
        tasks = [asyncio.create_task(table(i)) for i in range(matches)]
        await asyncio.sleep(seconds)
        dt = time.perf_counter() - t0
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    finally:
        for c in pool:
            await c.close()
    out = {"matches": matches, "variant": variant,
           "api": "grpc-stream-sdk" if sdk else "grpc-play" if play else "grpc-stream",
           "errors": errors, **latency_figures(lat, dt)}
    if error_kinds:
        out["error_kinds"] = error_kinds
    if not sdk:
        out["calls_per_s"] = round(calls / dt, 1)
    return out


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


def _rss_mb(pid: int) -> float | None:
    """Resident memory of a process in MiB (Linux /proc), or None."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        return None
    return None


def _cpu_seconds(pid: int) -> float | None:
    """CPU time (user + system, all threads, seconds) of process ``pid`` and of its descendants
    but the embedded Valkey (``bummerl serve --workers N``: the workers), from Linux /proc; None
    elsewhere or when the process is gone. Resolution: one clock tick (10 ms)."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0
    todo = [pid]
    try:
        while todo:
            p = todo.pop()
            with open(f"/proc/{p}/stat", encoding="ascii") as f:
                stat = f.read()
            comm = stat[stat.index("(") + 1:stat.rindex(")")]
            if "valkey" in comm or "redis" in comm:
                continue
            fields = stat[stat.rindex(")") + 2:].split()
            total += int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15 of stat)
            with open(f"/proc/{p}/task/{p}/children", encoding="ascii") as f:
                todo.extend(int(c) for c in f.read().split())
    except (OSError, ValueError):
        return None
    return total / tick


def cpu_figures(pid: int, run: Callable[[], dict[str, Any]], actions: str = "submit_calls") -> dict[str, Any]:
    """``run()``'s result (a load's figures: ``seconds``, the number of actions under the key
    ``actions`` and, when it counts them, ``calls_per_s``) plus ``server_cpu``: the CPU the server process ``pid`` (and its workers)
    used meanwhile, as ``{"cores", "ms_per_action", "ms_per_call"}`` (cores = CPU seconds per
    wall second; ms of CPU per SubmitAction and per RPC of any kind), or None without /proc.
    CPU per call is the figure that two shared cores disturb least: the throughput of a
    saturated server moves with whatever else runs, its cost per call much less."""
    before, t0 = _cpu_seconds(pid), time.perf_counter()
    out = run()
    after, wall = _cpu_seconds(pid), time.perf_counter() - t0
    cpu = None
    if before is not None and after is not None and out.get(actions):
        used = after - before
        calls = out.get("calls_per_s", 0) * out["seconds"]
        cpu = {"cores": round(used / wall, 2), "ms_per_action": round(used * 1000 / out[actions], 3),
               "ms_per_call": round(used * 1000 / calls, 3) if calls else None}
    return {**out, "server_cpu": cpu}


def _server_gc(metrics_port: int) -> dict[str, Any] | None:
    """The server's garbage-collector pauses so far, from its ``bummerl_gc_pause_seconds``
    histogram (all generations): ``{"collections", "pause_ms", "over_2ms", "over_5ms"}`` (total
    pause in ms; collections that paused longer than 2 and 5 ms). None if unreadable."""
    import urllib.request

    from prometheus_client.parser import text_string_to_metric_families

    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics", timeout=5) as resp:
            text = resp.read().decode()
    except OSError:
        return None
    count = total = 0.0
    within: dict[str, float] = {"0.002": 0.0, "0.005": 0.0}
    for family in text_string_to_metric_families(text):
        if family.name != "bummerl_gc_pause_seconds":
            continue
        for sample in family.samples:
            if sample.name.endswith("_count"):
                count += sample.value
            elif sample.name.endswith("_sum"):
                total += sample.value
            elif sample.name.endswith("_bucket") and sample.labels.get("le") in within:
                within[sample.labels["le"]] += sample.value
    return {"collections": int(count), "pause_ms": round(total * 1000, 1),
            "over_2ms": int(count - within["0.002"]), "over_5ms": int(count - within["0.005"])}


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
    from bummerl.app import spawn_server, tune_gc
    from bummerl.store import EmbeddedValkey

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


@contextlib.contextmanager
def _env(**values: str) -> Iterator[None]:
    old = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def redis_counts(url: str) -> dict[str, int]:
    """A Redis/Valkey server's totals: ``commands`` run (INFO commandstats, every command,
    the blocking reads and the Lua scripts' own commands included), ``bytes_in`` and ``bytes_out``
    on the network (INFO stats), and ``memory_bytes`` in use (INFO memory: what the matches keep,
    finished ones until their retention ends). Read before and after a load, the difference per
    action is what an action costs Redis."""
    import redis

    client = redis.Redis.from_url(url)
    try:
        stats = client.info("commandstats")
        net = client.info("stats")
        mem = client.info("memory")
    finally:
        client.close()
    return {"commands": sum(int(v.get("calls", 0)) for v in stats.values() if isinstance(v, dict)),
            "bytes_in": int(net.get("total_net_input_bytes", 0)), "bytes_out": int(net.get("total_net_output_bytes", 0)),
            "memory_bytes": int(mem.get("used_memory", 0))}


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


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
    from bummerl.app import spawn_server

    with spawn_server() as (_, target):
        return asyncio.run(_timeout_load(target, matches, move_ms))


async def _ladder_load(target: str, pairs: int, concurrency: int, variant: str) -> dict[str, Any]:
    from bummerl_client import AsyncClient
    from bummerl_client.botrunner import run_bot
    from bummerl_client.bots import make_bot

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
    from bummerl.app import spawn_server

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


def _duplicate_pairs(variant: str, bot: str, opponent: str, pair_seeds: list[tuple[int, int, list[int]]],
                     deals: int = 1, tc: str | None = None) -> dict[str, Any]:
    """Play duplicate pairs in this process (a worker of :func:`bench_strong`): for each ``(pair,
    seed, suit_perm)`` the decks of ``seed`` twice, ``bot`` at seat 0 then at seat 1 with the suits
    relabelled (as ladder duplicate pairs are, ladder/service.py). A game is ``deals`` deals (the
    SRV-5 deal limit; 0 = a whole match to the variant's target, AT-MATCH-1, O66-MATCH-1,
    HU2-MATCH-1: its deals follow the same decks in both games, the dealers as the match goes).
    ``tc`` (the CLI form, e.g. ``"5+0.1"``, :meth:`bummerl.core.clocks.TimeControl.parse`): both
    bots play under that time control on the wall clock, their information sets carry the clocks
    as the server's do, and a bot that exceeds its time loses the game (``timeout``, SRV-5).
    Bots decide from the engine's information set, which has the shape the API serves
    (:mod:`bummerl.rules.base.views`), without the round trip through protobuf."""
    from bummerl.core.clocks import Clocks, TimeControl
    from bummerl.rules import MatchState, information_set
    from bummerl_bench.oracle import OracleBot, bench_bot
    from bummerl_client import InfoSet

    rules = find_variant(variant).configure({})
    control = TimeControl.parse(tc) if tc else None
    out: dict[str, Any] = {"pairs": [], "gp": [], "decisions": 0, "think_s": 0.0, "actions": 0, "cpu_s": 0.0,
                           "opp_decisions": 0, "opp_think_s": 0.0, "opp_cpu_s": 0.0, "deals": 0, "timeouts": 0,
                           "opp_timeouts": 0}

    def now_ms() -> int:
        return int(time.monotonic() * 1000)

    for pair, seed, perm in pair_seeds:
        scores = []
        margin = 0
        played = 0
        for leg in (0, 1):
            me = leg  # the bot's seat
            b = bench_bot(bot, pair * 2 + leg)
            o = bench_bot(opponent, pair * 2 + 1 - leg)
            seats = [b, o] if leg == 0 else [o, b]
            m = MatchState(rules, seed, max_deals=deals, suit_perm=perm if leg else ())
            clocks = Clocks.start(control, 2, m.to_act, now_ms()) if control else None
            while not m.over:
                s = m.to_act
                info = information_set(m, s)
                if clocks is not None and control is not None:
                    info = {**info, "clocks": clocks.view(now_ms()), "time_control": control.to_dict()}
                if isinstance(seats[s], OracleBot):
                    seats[s].see(m, s)  # the clairvoyant reference (bummerl_bench.oracle) sees the deal
                c0 = time.process_time()
                a = seats[s].choose(InfoSet(info))
                out["cpu_s" if s == me else "opp_cpu_s"] += time.process_time() - c0
                if clocks is not None and clocks.expired(now_ms()):
                    m.concede(s, "timeout")  # SRV-5: the seat out of time loses the game
                    out["timeouts" if s == me else "opp_timeouts"] += 1
                    break
                deal = m.deal_number
                m.apply(a if isinstance(a, int) else int(a) if a.strip().isdigit() else parse_action(a))
                out["actions"] += 1
                if clocks is not None:
                    clocks = clocks.after_action(s, now_ms(), m.to_act, m.deal_number != deal)
            scores.append(0.5 if m.winner < 0 else float(m.winner == me))
            for res in m.results:
                if not res.playoff:
                    margin += res.game_points[me] - res.game_points[1 - me]
                    played += 1
            out["decisions"] += getattr(b, "decisions", 0)
            out["think_s"] += getattr(b, "think_s", 0.0)
            out["opp_decisions"] += getattr(o, "decisions", 0)
            out["opp_think_s"] += getattr(o, "think_s", 0.0)
        out["pairs"].append(sum(scores) / 2)
        out["gp"].append(margin / max(1, played))
        out["deals"] += played
    return out


def seated_legs(num_players: int) -> list[list[int]]:
    """The seatings of one duplicate set at a 3- or 4-seat table, as 1 = the bot under test, 0 =
    its opponent: three seats, the bot in each seat against two opponents; four seats (teams
    0&2 vs 1&3), the bot's team in each partnership position against a team of two opponents.
    These are all the seatings that differ once identical bots are not told apart (the ladder's
    ``seatings`` lists ``n!`` arrangements of distinct bots)."""
    if num_players == 4:
        return [[1, 0, 1, 0], [0, 1, 0, 1]]
    return [[1 if s == k else 0 for s in range(num_players)] for k in range(num_players)]


def _duplicate_sets(variant: str, bot: str, opponent: str, deals: int,
                    set_seeds: list[tuple[int, int, list[list[int]]]]) -> dict[str, Any]:
    """Play complete duplicate sets at a 3- or 4-seat table (a worker of :func:`bench_strong`):
    for each ``(set, seed, suit_perms)`` the deck plan of ``seed`` under every seating of
    :func:`seated_legs` (leg ``k`` with suit relabelling ``suit_perms[k]``, the first none), each
    game ``deals`` deals long. A game scores the bot's placement score (the share of the other
    teams placed behind its team, shared places half: ``ladder.stats.placement_scores``); a set
    scores the mean of its games. Bots decide from the engine's information set (the served shape)."""
    from bummerl.ladder.stats import placement_scores
    from bummerl.rules import MatchState, information_set
    from bummerl_client import InfoSet
    from bummerl_client.bots import make_bot

    rules = find_variant(variant).configure({})
    n = rules.spec.num_players
    team_of = rules.spec.team_of_seat
    out: dict[str, Any] = {"pairs": [], "gp": [], "decisions": 0, "think_s": 0.0, "actions": 0, "cpu_s": 0.0}
    for k, seed, perms in set_seeds:
        scores = []
        margin = 0.0
        for leg, seating in enumerate(seated_legs(n)):
            seats = [make_bot(bot if x else opponent, (k * 8 + leg) * n + s) for s, x in enumerate(seating)]
            m = MatchState(rules, seed, max_deals=deals, suit_perm=perms[leg] or ())
            while not m.over:
                s = m.to_act
                info = InfoSet(information_set(m, s))
                c0 = time.process_time()
                a = seats[s].choose(info)
                if seating[s]:
                    out["cpu_s"] += time.process_time() - c0
                m.apply(a if isinstance(a, int) else int(a) if a.strip().isdigit() else parse_action(a))
                out["actions"] += 1
            mine = [s for s in range(n) if seating[s]]
            scores.append(placement_scores(m.placements, team_of)[mine[0]])
            gp = [sum(r.game_points[s] for r in m.results) for s in range(n)]
            margin += (statistics.fmean(gp[s] for s in mine) - statistics.fmean(gp[s] for s in range(n) if not seating[s])) / max(1, len(m.results))
            for s in mine:
                out["decisions"] += getattr(seats[s], "decisions", 0)
                out["think_s"] += getattr(seats[s], "think_s", 0.0)
        out["pairs"].append(statistics.fmean(scores))
        out["gp"].append(margin / len(scores))
    return out


def bench_strong(pairs: int = 200, variant: str = "all", bot: str = "strong:samples=32,seed=1", opponent: str = "greedy",
                 jobs: int = 1, seed: int = 1, progress: Any = None, deals: int | None = None,
                 tc: str | None = None) -> list[dict[str, Any]]:
    """``bot`` against ``opponent`` over ``pairs`` duplicate deal pairs per variant (``all`` = every
    two-player variant): each deck is played twice, ``deals`` deals per game (default 1; 0 = whole
    matches to the variant's target, a pair of matches then being the unit), with the seats
    swapped and the suits relabelled in the second game; ``tc`` puts both bots under a time
    control (CLI form, e.g. ``"5+0.1"``; a bot out of time loses the game; ``timeouts`` and
    ``opponent_timeouts`` count them) (:func:`_duplicate_pairs`). Elo difference of ``bot`` over ``opponent`` with its
    95% interval and LOS from the pair scores (pentanomial, :mod:`bummerl.ladder.stats`), the mean
    game-point margin per deal, and ``bot``'s mean decision time in **milliseconds** (its own
    clock inside ``choose``). ``jobs`` worker processes share the pairs. Deterministic deals for a
    ``seed``; the bots' choices are deterministic only if they have no time limit. ``bot`` and
    ``opponent`` are bot specs (:func:`bummerl_client.bots.make_bot`) or, at two seats, ``oracle``:
    the clairvoyant reference of :mod:`bummerl_bench.oracle` (ValueError at three or four seats).

    Three- and four-seat variants (``multi`` = all six): ``pairs`` complete duplicate *sets*
    (:func:`_duplicate_sets`, every seating of :func:`seated_legs`), ``deals`` deals per game
    (default: as many as seats, so that each seat deals once and, in the rotation games, each pair
    plays once); the unit of the Elo
    estimate is the set, the score the bot's mean placement score, ``pentanomial`` is None and
    ``gp/deal`` is the bot's (team's) game points minus the opponents' mean per deal."""
    import concurrent.futures

    from bummerl.ladder.formats import fixed_suits, suit_perms
    from bummerl.ladder.stats import estimate, pentanomial
    from bummerl.rules import list_variants
    from bummerl_bench.oracle import is_oracle

    if variant in ("all", "multi"):
        variants = [v.id for v in list_variants() if (v.num_players == 2) == (variant == "all")]
    else:
        variants = [find_variant(variant).id]
    if (is_oracle(bot) or is_oracle(opponent)) and any(find_variant(v).num_players > 2 for v in variants):
        raise ValueError("the clairvoyant reference 'oracle' plays the two-seat variants only")
    results = []
    for v in variants:
        rng = random.Random(f"bummerl/bench-strong/{seed}/{v}")
        spec = find_variant(v)
        n = spec.num_players
        if deals is not None and deals < 0:
            raise ValueError(f"deals must be >= 0 (0 = whole matches), not {deals}")
        if n > 2 and (deals == 0 or tc):
            raise ValueError("whole matches (deals 0) and a time control are measured at two seats only")
        game_deals = deals or n
        plan: list[Any] = []
        for i in range(pairs):
            if n > 2:
                legs = len(seated_legs(n))
                plan.append((i, rng.randrange(2**63), [[], *suit_perms(rng, legs - 1, fixed_suits(spec.configure({})))]))
                continue
            perm = [0, 1, 2, 3]
            while perm == [0, 1, 2, 3]:
                rng.shuffle(perm)
            plan.append((i, rng.randrange(2**63), perm))
        chunks = [plan[k::max(1, jobs * 4)] for k in range(max(1, jobs * 4))]

        pair_deals = 1 if deals is None else deals
        works = [((_duplicate_sets, v, bot, opponent, game_deals, c) if n > 2
                  else (_duplicate_pairs, v, bot, opponent, c, pair_deals, tc)) for c in chunks if c]

        t0 = time.perf_counter()
        merged: dict[str, Any] = {"pairs": [], "gp": [], "decisions": 0, "think_s": 0.0, "actions": 0, "cpu_s": 0.0,
                                  "opp_decisions": 0, "opp_think_s": 0.0, "opp_cpu_s": 0.0, "deals": 0, "timeouts": 0,
                                  "opp_timeouts": 0}
        if jobs > 1:
            with concurrent.futures.ProcessPoolExecutor(jobs) as ex:
                futs = [ex.submit(*w) for w in works]
                parts = []
                for f in concurrent.futures.as_completed(futs):
                    parts.append(f.result())
                    if progress:
                        progress(f"{v}: {sum(len(p['pairs']) for p in parts)}/{pairs} pairs")
        else:
            parts = [w[0](*w[1:]) for w in works]
        for p in parts:
            for k in merged:
                merged[k] += p.get(k, 0)
        est = estimate(merged["pairs"])

        def fin(x: float) -> float | None:  # JSON has no infinity: an unbounded figure is null
            return round(x, 1) if math.isfinite(x) else None

        results.append({
            "variant": v, "bot": bot, "opponent": opponent, "pairs": len(merged["pairs"]), "seed": seed,
            "elo": fin(est.elo), "elo_ci95": fin(est.elo_ci95),
            "elo_low": fin(est.elo_low), "elo_high": fin(est.elo_high),
            "los": round(est.los, 4), "score": round(est.score, 4),
            "pentanomial": pentanomial(merged["pairs"]) if n == 2 else None,
            "unit": (f"set of {len(seated_legs(n))} games, {game_deals} deal(s) each" if n > 2
                     else "pair of whole matches" if pair_deals == 0 else "pair" if pair_deals == 1
                     else f"pair of {pair_deals}-deal games"),
            "gp_margin_per_deal": round(statistics.fmean(merged["gp"]), 3) if merged["gp"] else 0.0,
            "mean_decision_ms": round(1000 * merged["think_s"] / max(1, merged["decisions"]), 2),
            # the bot's CPU time per decision (process time of the worker around ``choose``)
            "mean_decision_cpu_ms": round(1000 * merged["cpu_s"] / max(1, merged["decisions"]), 2),
            "decisions": merged["decisions"], "seconds": round(time.perf_counter() - t0, 1),
        })
        if n == 2:
            results[-1].update({"deals_per_game": pair_deals, "deals": merged["deals"], "tc": tc,
                                "timeouts": merged["timeouts"], "opponent_timeouts": merged["opp_timeouts"]})
        if n == 2 and merged["opp_decisions"]:
            # the same figures of the opponent when it counts its decisions (``strong``, ``strong-v1``):
            # both bots of a comparison at the same time per decision
            results[-1]["opponent_decision_ms"] = round(1000 * merged["opp_think_s"] / merged["opp_decisions"], 2)
            results[-1]["opponent_decision_cpu_ms"] = round(1000 * merged["opp_cpu_s"] / merged["opp_decisions"], 2)
        if progress:
            progress(f"{v}: done in {results[-1]['seconds']} s")
    return results


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

"""``bummerl bench floor``: what Python gRPC + Redis can do at all, next to our SubmitAction.

The floor is a minimal ``grpc.aio`` servicer in its own process that, per call, decodes a
``SubmitActionRequest``, does one ``HGET`` of the match version and one Lua compare-and-set
(``HSET`` of the next version when the expected one matches), and answers a
``SubmitActionResponse`` with the new version. It runs on the same Valkey as the service
measured right after it in the same run (``bummerl serve`` in another process), with the same
number of calls in flight, so the ratio ``service / floor`` is comparable across machines.

With ``--play`` it measures the stream path instead (how bots on the SDK runner play): the same
process also serves a minimal ``Play`` (first request: match and seat; each later one: the HGET and
the Lua CAS of the unary floor with the request's expected version, then one ``MatchUpdate`` with
the new version to each seat of the match: the version only, where the service's updates carry
the information set, ~1.3 KB, which made a scratch version of this floor ~15% dearer), and the
service runs under the Play load of
``bummerl bench service --play``; the figures are each server's CPU per action, over the unary
floor's CPU per call (issue 26's target) and over the Play floor's per action (what gRPC streams
and the two Redis calls cost at least, next to what the service adds).

Figures: calls/s and p50/p99 (ms) of both, their ratio (SubmitAction, and every RPC of the
service's load), and the p50/p99 of the service and of the floor, each paced open-loop at half the
service's saturating rate (latency when the server is not the bottleneck, next to what this machine
gives one gRPC call with two Redis round trips at that rate). The load client's collector is tuned
as a server's is (:func:`bummerl.app.tune_gc`), so its own pauses do not show in the figures.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from typing import Any

CAS = """
if redis.call('HGET', KEYS[1], 'version') == ARGV[1] then
  redis.call('HSET', KEYS[1], 'version', ARGV[2])
  return 1
end
return 0
"""


async def _floor_serve(port: int, redis_url: str) -> None:
    """The floor server: ``/bummerl.v1.GameService/SubmitAction`` and the Play floor (``Play``),
    until killed."""
    import grpc
    import redis.asyncio as aioredis

    from bummerl.v1 import game_pb2

    client = aioredis.Redis.from_url(redis_url, max_connections=256)
    cas = client.register_script(CAS)

    async def submit(request: Any, context: Any) -> Any:
        key = f"bm:floor:{request.match_id}"
        current = await client.hget(key, "version")
        version = int(current or 0)
        await cas(keys=[key], args=[str(version), str(version + 1)])
        return game_pb2.SubmitActionResponse(version=version + 1)

    seats: dict[str, list[asyncio.Queue[int] | None]] = {}  # match -> each seat's open Play call

    async def play(requests: Any, context: Any) -> Any:
        """The Play floor: an update to every seat of the match per action that passed the CAS."""
        first = await anext(aiter(requests), None)
        if first is None:
            return
        key = f"bm:floor:play:{first.match_id}"
        table = seats.setdefault(first.match_id, [None, None])
        mine: asyncio.Queue[int] = asyncio.Queue()
        table[first.seat % 2] = mine

        async def actions() -> None:
            async for req in requests:
                current = await client.hget(key, "version")  # the load, as the unary floor's
                version = req.expected_version
                if int(current or 0) == version and await cas(keys=[key], args=[str(version), str(version + 1)]):
                    for q in table:
                        if q is not None:
                            q.put_nowait(version + 1)

        await client.hsetnx(key, "version", "0")  # the CAS compares with a stored version
        task = asyncio.create_task(actions())
        try:
            mine.put_nowait(int(await client.hget(key, "version") or 0))
            while True:
                yield game_pb2.MatchUpdate(version=await mine.get())
        finally:
            task.cancel()
            if table[first.seat % 2] is mine:
                table[first.seat % 2] = None

    handler = grpc.method_handlers_generic_handler("bummerl.v1.GameService", {
        "SubmitAction": grpc.unary_unary_rpc_method_handler(
            submit, request_deserializer=game_pb2.SubmitActionRequest.FromString,
            response_serializer=game_pb2.SubmitActionResponse.SerializeToString),
        "Play": grpc.stream_stream_rpc_method_handler(
            play, request_deserializer=game_pb2.PlayRequest.FromString,
            response_serializer=game_pb2.MatchUpdate.SerializeToString),
    })
    server = grpc.aio.server()
    server.add_generic_rpc_handlers((handler,))
    bound = server.add_insecure_port(f"127.0.0.1:{port}")
    await server.start()
    from bummerl.app import loop_name

    print(f"floor listening on 127.0.0.1:{bound} ({loop_name(asyncio.get_running_loop())})", flush=True)
    await server.wait_for_termination()


def _floor_main(port: int, redis_url: str) -> None:
    """The floor server's process: :func:`_floor_serve` on the event loop ``bummerl serve`` uses
    (``BUMMERL_EVENT_LOOP``, :func:`bummerl.app.loop_factory`), so that the ratio compares servers,
    not loops."""
    from bummerl.app import loop_factory
    from bummerl.config import Settings

    with asyncio.Runner(loop_factory=loop_factory(Settings.from_env().event_loop)) as runner:
        runner.run(_floor_serve(port, redis_url))


async def _floor_load(target: str, in_flight: int, seconds: float, rate: float | None = None) -> dict[str, Any]:
    """``in_flight`` callers of the floor for ``seconds``; ``rate`` (calls/s over all callers)
    paces them open-loop as the service's half-load run is paced."""
    import random

    import grpc

    from bummerl.v1 import game_pb2, game_pb2_grpc

    lat: list[float] = []
    async with grpc.aio.insecure_channel(target) as channel:
        await asyncio.wait_for(channel.channel_ready(), 20)
        stub = game_pb2_grpc.GameServiceStub(channel)
        stop_at = time.perf_counter() + seconds

        async def caller(i: int) -> None:
            version = 0
            period = in_flight / rate if rate else 0.0
            next_at = time.perf_counter() + random.Random(i).random() * period
            while time.perf_counter() < stop_at:
                if period:
                    await asyncio.sleep(max(0.0, next_at - time.perf_counter()))
                    next_at += period
                t = time.perf_counter()
                resp = await stub.SubmitAction(game_pb2.SubmitActionRequest(
                    match_id=f"m{i}", seat=0, expected_version=version, action_id=0))
                lat.append(time.perf_counter() - t)
                version = resp.version

        t0 = time.perf_counter()
        await asyncio.gather(*(caller(i) for i in range(in_flight)))
        dt = time.perf_counter() - t0
    from bummerl_bench.benches import latency_figures

    f = latency_figures(lat, dt)
    return {"calls": f["submit_calls"], "seconds": f["seconds"], "calls_per_s": f["actions_per_s"],
            "p50_ms": f["p50_ms"], "p99_ms": f["p99_ms"]}


async def _play_floor_load(target: str, matches: int, seconds: float) -> dict[str, Any]:
    """``matches`` two-seat tables on the Play floor for ``seconds``: each seat acts on every update
    whose version is its turn (even versions seat 0, odd seat 1) and it has not acted on yet.
    Returns ``{"actions", "seconds", "actions_per_s"}``."""
    import grpc

    from bummerl.v1 import game_pb2, game_pb2_grpc

    actions = 0
    async with grpc.aio.insecure_channel(target) as channel:
        await asyncio.wait_for(channel.channel_ready(), 20)
        stub = game_pb2_grpc.GameServiceStub(channel)
        stop_at = time.perf_counter() + seconds

        async def seat(match: int, s: int) -> None:
            nonlocal actions
            out: asyncio.Queue[Any] = asyncio.Queue()
            out.put_nowait(game_pb2.PlayRequest(match_id=f"m{match}", seat=s))

            async def requests() -> Any:
                while (req := await out.get()) is not None:
                    yield req

            call = stub.Play(requests())
            acted = -1
            try:
                async for u in call:
                    if time.perf_counter() >= stop_at:
                        break
                    if u.version % 2 == s and u.version > acted:
                        acted = u.version
                        actions += 1
                        out.put_nowait(game_pb2.PlayRequest(expected_version=u.version, action_id=0))
            finally:
                out.put_nowait(None)
                call.cancel()

        async def bounded(match: int, s: int) -> None:
            try:  # a seat whose partner left waits for nothing more
                await asyncio.wait_for(seat(match, s), max(0.1, stop_at - time.perf_counter()) + 1)
            except TimeoutError:
                pass

        t0 = time.perf_counter()
        await asyncio.gather(*(bounded(m, s) for m in range(matches) for s in (0, 1)))
        dt = min(time.perf_counter() - t0, seconds)
    return {"actions": actions, "seconds": round(dt, 3), "actions_per_s": round(actions / dt, 1)}


def bench_floor(matches: int = 64, seconds: float = 10.0, variant: str = "schnapsen-at",
                play: bool = False) -> dict[str, Any]:
    """Run the floor, then ``bummerl serve`` under the bench-service load, on one Valkey (the
    embedded one, or ``BUMMERL_REDIS_URL``). ``matches``: calls in flight / concurrent matches.
    Returns ``{"floor": {...}, "service": {...}, "ratio", "call_ratio", "service_half_load": {...},
    "floor_half_load": {...}}`` (calls/s, p50_ms, p99_ms; the floor paced at the service's half
    rate; ``floor["event_loop"]``: the loop both servers ran on, from ``BUMMERL_EVENT_LOOP``).
    ``ratio``: the service's SubmitAction/s over the floor's calls/s (the issue's target);
    ``call_ratio``: all the service's RPCs/s (SubmitAction plus the GetInformationSet of the seat
    whose turn it becomes, plus CreateMatch) over the floor's. ``floor`` and ``service`` carry
    ``server_cpu`` (:func:`bummerl_bench.benches.cpu_figures`: each server's CPU per call at full load);
    ``cpu_ratio``: the service's CPU per RPC over the floor's per call.

    ``play``: the stream path instead of polling (module docstring). Returns ``{"floor": {...},
    "play_floor": {...}, "service_play": {...}, "play_cpu_ratio", "play_over_play_floor"}``: the
    unary floor as above, the Play floor and the service under the Play load (each with
    ``actions_per_s`` or ``calls_per_s`` and ``server_cpu``); ``play_cpu_ratio``: the service's
    CPU per action over the unary floor's per call (issue 26's target: <= 2.2);
    ``play_over_play_floor``: over the Play floor's per action."""
    from bummerl.app import tune_gc
    from bummerl.store import resolve_redis_url
    from bummerl_bench.benches import _free_port, _service_load, _stream_load, cpu_figures
    from bummerl_bench.servers import spawn_server

    redis_url, embedded = resolve_redis_url(None, None)
    saved = os.environ.get("BUMMERL_REDIS_URL")
    os.environ["BUMMERL_REDIS_URL"] = redis_url
    try:
        port = _free_port()
        proc = subprocess.Popen(
            [sys.executable, "-c", f"from bummerl_bench.floor import _floor_main; _floor_main({port}, {redis_url!r})"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        try:
            assert proc.stdout is not None
            event_loop = ""
            for line in proc.stdout:
                if "floor listening" in line:
                    event_loop = line.rsplit("(", 1)[-1].strip(" )\n")
                    break
            tune_gc()  # the load client's own collector pauses would show in its latency figures
            floor = {**cpu_figures(proc.pid, lambda: asyncio.run(_floor_load(f"127.0.0.1:{port}", matches, seconds)),
                                   actions="calls"),
                     "event_loop": event_loop}
            if play:
                play_floor = cpu_figures(proc.pid, lambda: asyncio.run(
                    _play_floor_load(f"127.0.0.1:{port}", matches, seconds)), actions="actions")
                with spawn_server(own_redis=False) as (server, target):
                    service_play = cpu_figures(server.pid, lambda: asyncio.run(
                        _stream_load(target, matches, seconds, variant, play=True)))
                return {"in_flight": matches, "floor": floor, "play_floor": play_floor, "service_play": service_play,
                        "play_cpu_ratio": _per_action_ratio(service_play["server_cpu"], floor["server_cpu"], "ms_per_call"),
                        "play_over_play_floor": _per_action_ratio(service_play["server_cpu"], play_floor["server_cpu"],
                                                                  "ms_per_action")}
            with spawn_server(own_redis=False) as (server, target):
                service = cpu_figures(server.pid, lambda: asyncio.run(_service_load(target, matches, seconds, variant)))
                rate = max(1.0, service["actions_per_s"] / 2)
                half = asyncio.run(_service_load(target, matches, seconds, variant, rate=rate))
            # the floor paced at the same rate: the latency this machine gives one gRPC call with
            # two Redis round trips when nothing queues (the reference for the service's p99)
            floor_half = asyncio.run(_floor_load(f"127.0.0.1:{port}", matches, seconds, rate=rate))
        finally:
            proc.kill()
            proc.wait()
    finally:
        if saved is None:
            os.environ.pop("BUMMERL_REDIS_URL", None)
        else:
            os.environ["BUMMERL_REDIS_URL"] = saved
        if embedded is not None:
            embedded.stop()
    return {"in_flight": matches, "floor": floor, "service": service, "service_half_load": half,
            "floor_half_load": floor_half,
            "ratio": round(service["actions_per_s"] / floor["calls_per_s"], 3) if floor["calls_per_s"] else None,
            "call_ratio": round(service["calls_per_s"] / floor["calls_per_s"], 3) if floor["calls_per_s"] else None,
            "cpu_ratio": _cpu_ratio(service["server_cpu"], floor["server_cpu"])}


def _cpu_ratio(service: dict[str, Any] | None, floor: dict[str, Any] | None) -> float | None:
    """The service's server CPU per RPC over the floor's per call (None without /proc)."""
    if not service or not floor or not service["ms_per_call"] or not floor["ms_per_call"]:
        return None
    return round(service["ms_per_call"] / floor["ms_per_call"], 2)


def _per_action_ratio(service: dict[str, Any] | None, floor: dict[str, Any] | None, floor_key: str) -> float | None:
    """The service's server CPU per action over the floor's ``floor_key`` (``ms_per_call`` of the
    unary floor, ``ms_per_action`` of the Play floor); None without /proc."""
    if not service or not floor or not service["ms_per_action"] or not floor.get(floor_key):
        return None
    return round(service["ms_per_action"] / floor[floor_key], 2)

"""``bummerl bench floor``: what Python gRPC + Redis can do at all, next to our SubmitAction.

The floor is a minimal ``grpc.aio`` servicer in its own process that, per call, decodes a
``SubmitActionRequest``, does one ``HGET`` of the match version and one Lua compare-and-set
(``HSET`` of the next version when the expected one matches), and answers a
``SubmitActionResponse`` with the new version. It runs on the same Valkey as the service
measured right after it in the same run (``bummerl serve`` in another process), with the same
number of calls in flight, so the ratio ``service / floor`` is comparable across machines.

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
    """The floor server: ``/bummerl.v1.GameService/SubmitAction`` only, until killed."""
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

    handler = grpc.method_handlers_generic_handler("bummerl.v1.GameService", {
        "SubmitAction": grpc.unary_unary_rpc_method_handler(
            submit, request_deserializer=game_pb2.SubmitActionRequest.FromString,
            response_serializer=game_pb2.SubmitActionResponse.SerializeToString),
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


def bench_floor(matches: int = 64, seconds: float = 10.0, variant: str = "schnapsen-at") -> dict[str, Any]:
    """Run the floor, then ``bummerl serve`` under the bench-service load, on one Valkey (the
    embedded one, or ``BUMMERL_REDIS_URL``). ``matches``: calls in flight / concurrent matches.
    Returns ``{"floor": {...}, "service": {...}, "ratio", "call_ratio", "service_half_load": {...},
    "floor_half_load": {...}}`` (calls/s, p50_ms, p99_ms; the floor paced at the service's half
    rate; ``floor["event_loop"]``: the loop both servers ran on, from ``BUMMERL_EVENT_LOOP``).
    ``ratio``: the service's SubmitAction/s over the floor's calls/s (the issue's target);
    ``call_ratio``: all the service's RPCs/s (SubmitAction plus the GetInformationSet of the seat
    whose turn it becomes, plus CreateMatch) over the floor's. ``floor`` and ``service`` carry
    ``server_cpu`` (:func:`bummerl_bench.benches.cpu_figures`: each server's CPU per call at full load);
    ``cpu_ratio``: the service's CPU per RPC over the floor's per call."""
    from bummerl.app import spawn_server, tune_gc
    from bummerl.store import resolve_redis_url
    from bummerl_bench.benches import _free_port, _service_load, cpu_figures

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

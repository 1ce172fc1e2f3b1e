"""Building and running the service's servers: gRPC (+ health, reflection), REST gateway, metrics."""

from __future__ import annotations

import asyncio
import logging
import signal
from collections.abc import Iterable, Mapping
from typing import Any

import grpc
import grpc.aio
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from bummerl import metrics
from bummerl.api.gateway import Gateway
from bummerl.api.gateway import start_gateway as _start_gateway
from bummerl.api.interceptors import build_interceptors
from bummerl.api.services import bind
from bummerl.config import Settings

log = logging.getLogger(__name__)

#: Channel options of the gRPC server: keepalive pings find dead bots on long streams.
SERVER_OPTIONS: tuple[tuple[str, Any], ...] = (
    ("grpc.keepalive_time_ms", 30_000),
    ("grpc.keepalive_timeout_ms", 10_000),
    ("grpc.http2.min_ping_interval_without_data_ms", 10_000),
    ("grpc.keepalive_permit_without_calls", 1),
)

SHUTDOWN_GRACE_SECONDS = 5.0
"""Time given to running RPCs on shutdown, seconds."""


async def build_server(
    servicer: Any,
    settings: Settings,
    *more_servicers: Any,
    health_servicer: health.aio.HealthServicer | None = None,
) -> tuple[grpc.aio.Server, int]:
    """A ``grpc.aio`` server (not started) with the interceptor chain of
    :func:`bummerl.api.interceptors.build_interceptors`, ``servicer`` and ``more_servicers``
    (instances of generated ``*Servicer`` subclasses, e.g. GameService, LadderService),
    ``grpc.health.v1`` (SERVING for ``""`` and every service name) and server reflection, bound
    to ``settings.host:settings.port`` (port 0 = ephemeral). Pass ``health_servicer`` to keep a
    handle for ``enter_graceful_shutdown()``. Returns ``(server, bound_port)``; raises ``OSError``
    if the address cannot be bound."""
    server = grpc.aio.server(interceptors=build_interceptors(settings), options=list(SERVER_OPTIONS))
    bindings = [bind(s) for s in (servicer, *more_servicers)]
    for b in bindings:
        b.add_to_server(b.servicer, server)
    metrics.init_grpc_metrics(b.descriptor for b in bindings)

    health_servicer = health_servicer or health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    for name in ("", *(b.full_name for b in bindings)):
        await health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)

    names = [b.full_name for b in bindings] + [health.SERVICE_NAME, reflection.SERVICE_NAME]
    reflection.enable_server_reflection(names, server)

    address = f"{settings.host}:{settings.port}"
    try:
        port = server.add_insecure_port(address)
    except RuntimeError as exc:
        raise OSError(f"cannot bind gRPC server to {address}: {exc}") from exc
    if port == 0:
        raise OSError(f"cannot bind gRPC server to {address}")
    return server, port


async def start_gateway(handlers: Mapping[str, Any] | Iterable[Any], host: str, port: int) -> Gateway:
    """Start the REST/JSON gateway (:func:`bummerl.api.gateway.start_gateway`) for the same
    servicer objects the gRPC server uses. Returns the running gateway (``.port``, ``.close()``)."""
    return await _start_gateway(handlers, host, port)


async def serve(servicer: Any, settings: Settings, *more_servicers: Any, ready: asyncio.Event | None = None) -> None:
    """Run gRPC, the gateway (``http_port`` != 0) and the metrics server (``metrics_port`` != 0)
    until SIGINT/SIGTERM or cancellation, then shut down gracefully (health NOT_SERVING first,
    :data:`SHUTDOWN_GRACE_SECONDS` for running calls). Sets ``ready`` once everything listens."""
    health_servicer = health.aio.HealthServicer()
    server, port = await build_server(servicer, settings, *more_servicers, health_servicer=health_servicer)
    await server.start()
    log.info("gRPC on %s:%d", settings.host, port)
    gateway = None
    if settings.http_port:
        gateway = await start_gateway([servicer, *more_servicers], settings.host, settings.http_port)
    if settings.metrics_port:
        mport = metrics.start_metrics_server(settings.metrics_port, settings.host)
        log.info("metrics on %s:%d/metrics", settings.host, mport)

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    installed = []
    for sig in (signal.SIGINT, signal.SIGTERM):
        try:
            loop.add_signal_handler(sig, stop.set)
            installed.append(sig)
        except (NotImplementedError, RuntimeError, ValueError):  # not the main thread / Windows
            pass
    if ready is not None:
        ready.set()
    try:
        await stop.wait()
    finally:
        for sig in installed:
            loop.remove_signal_handler(sig)
        await health_servicer.enter_graceful_shutdown()
        if gateway is not None:
            await gateway.close()
        await server.stop(SHUTDOWN_GRACE_SECONDS)

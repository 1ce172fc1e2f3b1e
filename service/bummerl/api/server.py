"""Building the service's servers: gRPC (+ interceptors, health, reflection) and the REST gateway.

Running them together with Redis and metrics is :class:`bummerl.app.Runtime`."""

from __future__ import annotations

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
    if the address cannot be bound, including a port another process listens on (unless
    ``settings.reuse_port``)."""
    options = [*SERVER_OPTIONS, ("grpc.so_reuseport", 1 if settings.reuse_port else 0)]
    server = grpc.aio.server(interceptors=build_interceptors(settings), options=options)
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


async def start_gateway(handlers: Mapping[str, Any] | Iterable[Any], host: str, port: int,
                        **options: Any) -> Gateway:
    """Start the REST/JSON gateway (:func:`bummerl.api.gateway.start_gateway`) for the same
    servicer objects the gRPC server uses; ``options`` go to :class:`bummerl.api.gateway.Gateway`
    (``max_connections``, ``body_timeout_s`` in seconds, ``cors_origins``). Returns the running
    gateway (``.port``, ``.close()``)."""
    return await _start_gateway(handlers, host, port, **options)


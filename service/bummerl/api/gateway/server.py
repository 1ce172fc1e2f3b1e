"""The gateway's HTTP server on aiohttp: :class:`Gateway` (a request to its route's handler, the
``/healthz`` and ``/readyz`` probes, the web pages, server streams as NDJSON or Server-Sent Events,
CORS, gzip) and :func:`start_gateway`. The limits of a gateway (body and header sizes, timeouts,
connections, also per client address, and the time to a request head) and the pages' content
types and Content-Security-Policy are the constants here."""

from __future__ import annotations

import asyncio
import logging
import time
import urllib.parse
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import grpc
from aiohttp import ClientPayloadError, web
from aiohttp.http_exceptions import HttpProcessingError
from google.protobuf.message import Message

from bummerl import metrics
from bummerl.api import errors
from bummerl.api.gateway import connections
from bummerl.api.gateway.checks import BadRequest
from bummerl.api.gateway.connections import (
    _Admission,
    _Busy,
    _closing,
    _JsonErrorHandler,
    _parse_error_text,
    _peer_of,
)
from bummerl.api.gateway.context import GatewayContext, _status_from
from bummerl.api.gateway.routing import Route, build_routes
from bummerl.api.gateway.transcode import (
    _error_body,
    _frame,
    _json_bytes,
    _render,
    _stream_bytes,
    build_request,
)
from bummerl.api.interceptors import Recorder

log = logging.getLogger("bummerl.api.gateway")  # the package's logger: log lines keep their name
access = logging.getLogger("bummerl.access")

MAX_BODY_BYTES = 1 << 20
"""Largest accepted request body, bytes (413 above)."""
MAX_HEADER_BYTES = 64 << 10
"""Largest accepted request line plus headers, bytes."""
KEEP_ALIVE_SECONDS = 75.0
"""Idle time after which a keep-alive connection is closed, seconds."""
BODY_TIMEOUT_SECONDS = 10.0
"""A request body that has not fully arrived after this many seconds is answered 408."""
MAX_CONNECTIONS = 1000
"""Open connections per gateway; more are answered 503 and closed."""
MAX_CONNECTIONS_PER_ADDRESS = 64
"""Open connections per client IP address; more from that address are answered 503 and closed
(other addresses are unaffected). 0 = no per-address cap."""
HEAD_TIMEOUT_SECONDS = 10.0
"""A connection whose first request head (request line and headers) has not fully arrived after
this many seconds is closed, so that idle connections cannot hold the connection caps. 0 = no limit."""
GZIP_MIN_BYTES = 1024
"""Responses at least this large are gzip-compressed when the client accepts gzip."""

PAGE_TYPES = {".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".svg": "image/svg+xml",
              ".png": "image/png", ".json": "application/json", ".ico": "image/x-icon"}
"""Files the gateway serves from ``pages``, by suffix, with their content type."""
PAGE_CSP = ("default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; "
            "frame-ancestors 'none'; base-uri 'none'; form-action 'self'")
"""Content-Security-Policy of the pages: nothing from another origin."""

READY_TIMEOUT_SECONDS = 2.0
"""Longest a ``/readyz`` check may take before the gateway answers 503, seconds."""


def _header_safe(name: str, value: str) -> bool:
    return not name.endswith("-bin") and name.isascii() and value.isascii() and "\r" not in value + name and "\n" not in value + name


class Gateway:
    """A running gateway on aiohttp; :attr:`port` is the bound port. Stop with :meth:`close`.

    ``max_connections``: open connections beyond it get 503 at once;
    ``max_connections_per_address``: the same per client IP address (0 = no such cap).
    ``head_timeout_s``: a connection that has not sent a complete request head within it is
    closed (seconds; 0 = no limit). ``body_timeout_s``: a
    request whose body does not arrive within it gets 408 (seconds). ``cors_origins``: origins
    allowed by CORS (``"*"`` = any; empty = no CORS headers). ``reuse_port``: share the port
    with another process (SO_REUSEPORT); otherwise a port in use raises ``OSError``. Responses over
    :data:`GZIP_MIN_BYTES` are gzip-compressed for clients that accept it. ``ready``: the
    readiness check of ``/readyz`` (a coroutine function that raises or returns False when the
    server cannot serve, e.g. Redis unreachable); None = ready whenever live. ``pages``: the
    directory of the web pages served at ``/`` and ``/web/`` (None = no pages).
    """

    def __init__(self, routes: list[Route], *, max_connections: int = MAX_CONNECTIONS,
                 max_connections_per_address: int = MAX_CONNECTIONS_PER_ADDRESS,
                 head_timeout_s: float = HEAD_TIMEOUT_SECONDS, body_timeout_s: float = BODY_TIMEOUT_SECONDS, cors_origins: Iterable[str] = (),
                 reuse_port: bool = False, ready: Callable[[], Awaitable[Any]] | None = None,
                 pages: Path | None = None) -> None:
        self.routes = routes
        self.port = 0
        self.max_connections = max_connections
        self.max_connections_per_address = max_connections_per_address
        self.head_timeout_s = head_timeout_s
        self._admission = _Admission(max_connections_per_address)
        self.body_timeout_s = body_timeout_s
        self.cors_origins = frozenset(cors_origins)
        self.reuse_port = reuse_port
        self.ready = ready
        self.pages = pages
        self._runner: web.AppRunner | None = None
        self._server: asyncio.base_events.Server | None = None
        self._handlers: set[asyncio.Task[Any]] = set()

    async def start(self, host: str, port: int) -> None:
        app = web.Application(client_max_size=MAX_BODY_BYTES)
        app.router.add_route("*", "/{tail:.*}", self._handle)
        self._runner = web.AppRunner(app, access_log=None, handler_cancellation=True,
                                     keepalive_timeout=KEEP_ALIVE_SECONDS, lingering_time=1.0, max_field_size=MAX_HEADER_BYTES // 8,
                                     max_line_size=MAX_HEADER_BYTES // 8)
        await self._runner.setup()
        server = self._runner.server
        assert server is not None

        def factory() -> asyncio.Protocol:
            if len(server.connections) >= self.max_connections:
                return _Busy()
            # what Server.__call__ does, with JSON error responses (aiohttp has no hook for the class)
            handler = _JsonErrorHandler(server, loop=asyncio.get_running_loop(), **server._kwargs)
            handler.admission = self._admission  # the per-address cap, checked once the peer is known
            handler.head_timeout_s = self.head_timeout_s
            return handler

        try:
            self._server = await asyncio.get_running_loop().create_server(factory, host, port,
                                                                          reuse_port=self.reuse_port or None)
        except OSError as exc:
            await self._runner.cleanup()
            raise OSError(exc.errno, f"cannot bind REST gateway to {host}:{port}: {exc.strerror or exc}") from None
        self.port = self._server.sockets[0].getsockname()[1]

    async def close(self) -> None:
        """Stop accepting, end open connections (including streams) and wait for them."""
        if self._server is not None:
            self._server.close()
        for task in list(self._handlers):
            task.cancel()
        if self._handlers:
            await asyncio.gather(*self._handlers, return_exceptions=True)
        if self._runner is not None:
            if self._runner.server is not None:
                await self._runner.server.shutdown(1.0)
            await self._runner.cleanup()
            self._runner = None
        if self._server is not None:
            await self._server.wait_closed()
            self._server = None

    # -- responses ------------------------------------------------------------------------

    def _cors(self, request: web.Request) -> dict[str, str]:
        origin = request.headers.get("Origin")
        if not origin or not self.cors_origins or ("*" not in self.cors_origins and origin not in self.cors_origins):
            return {}
        return {"Access-Control-Allow-Origin": "*" if "*" in self.cors_origins else origin,
                "Access-Control-Expose-Headers": f"{errors.CURRENT_VERSION_KEY}, {errors.RETRY_AFTER_KEY}",
                "Vary": "Origin"}

    def _json(self, request: web.Request, status: int, body: Any,
              headers: Iterable[tuple[str, str]] = ()) -> web.Response:
        payload = _json_bytes(body)
        resp = web.Response(status=status, body=payload, content_type="application/json",
                            headers={**{k: v for k, v in headers if _header_safe(k, v)}, **self._cors(request)})
        if len(payload) >= GZIP_MIN_BYTES and "gzip" in request.headers.get("Accept-Encoding", ""):
            resp.enable_compression(web.ContentCoding.gzip)
        return resp

    def _status(self, request: web.Request, status: errors.Status) -> web.Response:
        headers = list(status.trailing_metadata)
        if status.code == grpc.StatusCode.UNAUTHENTICATED:
            headers.append(("WWW-Authenticate", "Bearer"))
        retry = next((v for k, v in headers if k == errors.RETRY_AFTER_KEY and v.isdigit()), None)
        if retry is not None:  # the standard header too (whole seconds, rounded up)
            headers.append(("Retry-After", str(max(1, -(-int(retry) // 1000)))))
        return self._json(request, status.http_status, _error_body(status), headers)

    # -- dispatch -------------------------------------------------------------------------

    def _match(self, method: str, path: str) -> tuple[Route | None, dict[str, str], list[str]]:
        allowed = []
        for route in self.routes:
            m = route.pattern.match(path)
            if m is None:
                continue
            if route.http_method != method:
                allowed.append(route.http_method)
                continue
            params = {name: urllib.parse.unquote(m.group(f"v{i}")) for i, name in enumerate(route.variables)}
            return route, params, allowed
        return None, {}, allowed

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        task = asyncio.current_task()
        assert task is not None
        self._handlers.add(task)
        try:
            resp = await self._dispatch(request)
        finally:
            self._handlers.discard(task)
        if isinstance(request.protocol, _JsonErrorHandler):
            resp = request.protocol.answered(resp)  # a half-closed connection ends after its last answer
        return resp

    async def _dispatch(self, request: web.Request) -> web.StreamResponse:
        raw_path, _, query = request.raw_path.partition("?")
        method = "GET" if request.method == "HEAD" else request.method
        if method == "GET" and raw_path in ("/healthz", "/readyz"):
            return await self._probe(request, raw_path == "/readyz")
        if method == "GET" and self.pages is not None and (raw_path == "/" or raw_path.startswith("/web/")):
            return self._page(request, "index.html" if raw_path == "/" else raw_path[len("/web/"):])
        route, params, allowed = self._match(method, raw_path)
        if request.method == "OPTIONS":
            allow = sorted({*allowed, *([route.http_method] if route else [])} | ({"HEAD"} if "GET" in allowed else set()))
            if not allow:
                return self._status(request, errors.Status(grpc.StatusCode.NOT_FOUND, f"no route for {raw_path}"))
            headers = {"Allow": ", ".join([*allow, "OPTIONS"]), **self._cors(request)}
            if headers.get("Access-Control-Allow-Origin"):
                headers["Access-Control-Allow-Methods"] = headers["Allow"]
                headers["Access-Control-Allow-Headers"] = "authorization, content-type"
                headers["Access-Control-Max-Age"] = "600"
            return web.Response(status=204, headers=headers)
        if route is None:
            if allowed:
                status = errors.Status(grpc.StatusCode.UNIMPLEMENTED, f"method {request.method} not allowed")
                return self._json(request, 405, _error_body(status),
                                  [("Allow", ", ".join(sorted({*allowed, "OPTIONS"})))])
            return self._status(request, errors.Status(grpc.StatusCode.NOT_FOUND,
                                                       f"no route for {request.method} {errors.clip(raw_path)}"))
        rec = Recorder(metrics.grpc_type(False, route.server_streaming), route.service, route.method.name)
        rec.started.inc()
        t0 = time.perf_counter()
        code = grpc.StatusCode.OK
        try:
            try:
                body = await asyncio.wait_for(request.read(), self.body_timeout_s)
            except TimeoutError:
                code = grpc.StatusCode.DEADLINE_EXCEEDED
                st = errors.Status(code, f"the request body did not arrive within {self.body_timeout_s:g} s")
                return _closing(self._json(request, 408, _error_body(st)))
            except web.HTTPRequestEntityTooLarge:
                code = grpc.StatusCode.INVALID_ARGUMENT
                st = errors.Status(code, f"request body larger than {MAX_BODY_BYTES} bytes")
                return _closing(self._json(request, 413, _error_body(st)))
            except (HttpProcessingError, ClientPayloadError, ValueError) as exc:
                code = grpc.StatusCode.INVALID_ARGUMENT
                st = errors.Status(code, f"malformed request body: {_parse_error_text(exc)}")
                return _closing(self._json(request, 400, _error_body(st)))
            except ConnectionError:  # the client went away before its body arrived: nothing to answer
                code = grpc.StatusCode.CANCELLED
                # read through the module: replacing connections._faults (tests do) reaches both users
                connections._faults.note("client disconnected before its request body arrived", request.remote)
                return _closing(web.Response(status=499))
            try:
                message = build_request(route, params, query, body)
            except BadRequest as exc:
                code = grpc.StatusCode.INVALID_ARGUMENT
                return self._status(request, errors.Status(code, errors.clip(str(exc), 300)))
            if body or route.body:
                rec.received.inc()
            context = GatewayContext(tuple((k.lower(), v) for k, v in request.headers.items()),
                                     _peer_of(request))
            if route.server_streaming:
                resp, code = await self._stream(request, route, message, context, rec)
                return resp
            try:
                response = route.call(message, context)
                if asyncio.iscoroutine(response) or isinstance(response, asyncio.Future):
                    response = await response
            except Exception as exc:
                status = _status_from(exc, context)
                code = status.code
                return self._status(request, status)
            ctx_code = context.code()
            if ctx_code is not None and ctx_code != grpc.StatusCode.OK:
                code = ctx_code
                return self._status(request, errors.Status(ctx_code, context.details() or "", context.trailing_metadata()))
            rec.sent.inc()
            return self._json(request, 200, _render(route, response), context.trailing_metadata())
        except asyncio.CancelledError:
            code = grpc.StatusCode.CANCELLED
            raise
        finally:
            rec.done(t0, code)
            access.info("http %s %s -> %s/%s %s %.1f ms", request.method, errors.clip(raw_path, 200), route.service,
                         route.method.name, code.name, (time.perf_counter() - t0) * 1000)

    def _page(self, request: web.Request, name: str) -> web.Response:
        """A file of :attr:`pages` (only plain file names with a :data:`PAGE_TYPES` suffix)."""
        assert self.pages is not None
        path = self.pages / name
        ctype = PAGE_TYPES.get(path.suffix)
        if ctype is None or "/" in name or "\\" in name or name.startswith(".") or not path.is_file():
            return self._status(request, errors.Status(grpc.StatusCode.NOT_FOUND, f"no page {errors.clip(name, 80)}"))
        resp = web.Response(body=path.read_bytes(), content_type=ctype, charset="utf-8" if ctype.startswith("text") else None,
                            headers={"Content-Security-Policy": PAGE_CSP, "X-Content-Type-Options": "nosniff",
                                     "Cache-Control": "no-cache", "Referrer-Policy": "no-referrer"})
        if "gzip" in request.headers.get("Accept-Encoding", ""):
            resp.enable_compression(web.ContentCoding.gzip)
        return resp

    async def _probe(self, request: web.Request, readiness: bool) -> web.Response:
        """``/healthz`` (this process answers) or ``/readyz`` (and :attr:`ready` passes within
        :data:`READY_TIMEOUT_SECONDS`); never cached."""
        headers = [("Cache-Control", "no-store")]
        if not readiness:
            return self._json(request, 200, {"status": "ok"}, headers)
        if self.ready is not None:
            try:
                ok = await asyncio.wait_for(self.ready(), READY_TIMEOUT_SECONDS)
            except Exception as exc:  # noqa: BLE001 - any failure of the check means "not ready"
                why = "timed out" if isinstance(exc, TimeoutError) else type(exc).__name__
                return self._json(request, 503, {"status": "unavailable", "message": f"readiness check failed: {why}"},
                                  headers)
            if ok is False:
                return self._json(request, 503, {"status": "unavailable", "message": "not ready"}, headers)
        return self._json(request, 200, {"status": "ready"}, headers)

    async def _stream(self, request: web.Request, route: Route, message: Message, context: GatewayContext,
                      rec: Recorder) -> tuple[web.StreamResponse, grpc.StatusCode]:
        try:
            result = route.call(message, context)
            if not hasattr(result, "__aiter__"):
                raise TypeError(f"{route.method.full_name}: streaming handlers must be async generators")
            items: AsyncIterator[Any] = result.__aiter__()
        except Exception as exc:
            status = _status_from(exc, context)
            return self._status(request, status), status.code
        try:
            try:
                first = await items.__anext__()
            except StopAsyncIteration:
                first = None
            except Exception as exc:
                status = _status_from(exc, context)
                return self._status(request, status), status.code
            if isinstance(request.protocol, _JsonErrorHandler):
                request.protocol.streaming = True  # an EOF from now on: the client left (not a half-close)
            sse = "text/event-stream" in request.headers.get("Accept", "")
            resp = web.StreamResponse(status=200, headers={
                "Content-Type": "text/event-stream" if sse else "application/x-ndjson",
                "Cache-Control": "no-cache", **self._cors(request)})
            await resp.prepare(request)
            code = grpc.StatusCode.OK
            if first is not None:
                await resp.write(_stream_bytes(route, first, sse))
                rec.sent.inc()
                while True:
                    try:
                        item = await items.__anext__()
                    except StopAsyncIteration:
                        break
                    except Exception as exc:
                        status = _status_from(exc, context)
                        code = status.code
                        await resp.write(_frame({"error": _error_body(status)}, sse))
                        break
                    await resp.write(_stream_bytes(route, item, sse))
                    rec.sent.inc()
            await resp.write_eof()
            return resp, code
        except (ConnectionError, asyncio.CancelledError):
            context._cancelled = True  # the client went away
            raise
        finally:
            if isinstance(request.protocol, _JsonErrorHandler):
                request.protocol.streaming = False
            aclose = getattr(items, "aclose", None)
            if aclose is not None:
                try:
                    await aclose()
                except Exception:
                    log.exception("gateway: closing %s failed", route.method.full_name)


async def start_gateway(handlers: Mapping[str, Any] | Iterable[Any], host: str, port: int,
                        **options: Any) -> Gateway:
    """Start the REST/JSON gateway on ``host:port`` (0 = ephemeral) for ``handlers``: servicer
    objects (subclasses of generated ``*Servicer`` classes), as an iterable or as
    ``{service full name: servicer}``; ``options`` go to :class:`Gateway` (``max_connections``,
    ``max_connections_per_address``, ``head_timeout_s``, ``body_timeout_s``, ``cors_origins``). Returns the running gateway (``.port``, ``.close()``)."""
    gateway = Gateway(build_routes(handlers), **options)
    await gateway.start(host, port)
    log.info("REST gateway on %s:%d (%d routes)", host, gateway.port, len(gateway.routes))
    return gateway

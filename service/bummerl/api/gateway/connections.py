"""The connections of the gateway below its routes: :class:`_JsonErrorHandler` (aiohttp's
connection handler, with JSON answers to requests that fail before a route sees them),
:class:`_Busy` (the 503 of a connection over the cap), :class:`_Admission` (open connections per
client address, the per-address cap), :class:`_ExpectedFaults` (one log line per
kind of network fault and interval; :data:`_faults` is the instance the gateway logs with, replace
it here, e.g. in tests), :func:`_closing` and :func:`_peer_of`."""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections.abc import Callable
from typing import cast

import grpc
from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError
from aiohttp.streams import StreamReader
from aiohttp.web_protocol import RequestHandler
from aiohttp.web_request import BaseRequest

from bummerl.api import errors
from bummerl.api.gateway.transcode import _json_bytes

log = logging.getLogger("bummerl.api.gateway")  # the package's logger: log lines keep their name


def _parse_error_text(exc: BaseException | None, message: str | None = None) -> str:
    """The first line of an HTTP parse error without the echoed bytes (``Invalid character in
    chunk size``), at most 200 characters."""
    what = str(getattr(exc, "message", None) or message or type(exc).__name__)
    what = re.split(r""":\s*b['"]""", what.strip().splitlines()[0] if what.strip() else "")[0].rstrip(": ")
    return errors.clip(what or type(exc).__name__, 200)


class _ExpectedFaults:
    """One log line per kind of expected fault (a client that went away, ...) at most every
    ``every_s`` seconds, with how many more happened meanwhile: such faults are the network's, not
    bugs, so they get neither a traceback nor a line each."""

    MAX_KINDS = 256
    """Kinds remembered at most (the texts of parse errors vary); past it the memory starts over."""

    def __init__(self, every_s: float = 60.0, clock: Callable[[], float] = time.monotonic) -> None:
        self.every_s = every_s
        self.clock = clock
        self._last: dict[str, float] = {}
        self._since: dict[str, int] = {}

    def note(self, what: str, peer: str | None) -> None:
        """Log ``what`` (from ``peer``) unless it was logged less than ``every_s`` seconds ago."""
        now = self.clock()
        if len(self._last) >= self.MAX_KINDS and what not in self._last:
            self._last.clear()
            self._since.clear()
        last = self._last.get(what)
        if last is not None and now - last < self.every_s:
            self._since[what] = self._since.get(what, 0) + 1
            return
        more = self._since.pop(what, 0)
        self._last[what] = now
        log.info("gateway: %s (%s)%s", what, peer or "unknown peer",
                 f"; {more} more in the last {now - last:.0f} s" if more and last is not None else "")


_faults = _ExpectedFaults()


class _JsonErrorHandler(RequestHandler):
    """aiohttp's connection handler with JSON error responses for requests that fail before a
    route sees them (bad request line, headers, chunk sizes or trailers): ``400`` (or aiohttp's
    status) with ``{"code": "INVALID_ARGUMENT", "reason": "MALFORMED_REQUEST", "message": ...}``,
    logged at INFO without a traceback (one line per kind and minute, :class:`_ExpectedFaults`); the
    connection is closed.

    A framing error in the body of the request a route is reading (a bad chunk size after the
    first chunks): aiohttp's C parser drops that body and queues a 400 for after the request, so
    the route would wait for the rest of the body until its timeout (408). :meth:`data_received`
    hands the error to the body instead, and the route answers 400 at once and closes."""

    def data_received(self, data: bytes) -> None:
        queue = getattr(self, "_messages", None)
        queued = len(queue) if queue is not None else 0
        super().data_received(data)
        if queue is not None and len(queue) > queued:
            self._last_body = queue[-1][1]  # the body still arriving, if any: the newest request's
        current = getattr(self, "_current_request", None)
        if queue is None or current is None or len(queue) <= queued:
            return
        exc = getattr(queue[-1][0], "exc", None)  # aiohttp's _ErrInfo of the framing error
        body = current.content
        if isinstance(exc, HttpProcessingError) and not body.at_eof() and body.exception() is None:
            body.set_exception(exc)
            body.feed_eof()  # nothing more of this body will come: aiohttp must not wait for it after the 400

    admission: _Admission | None = None
    """Open connections per client address (set by the gateway): a connection over its address's
    cap is answered 503 (:func:`_answer_busy`) and closed, and never becomes a connection of aiohttp."""
    head_timeout_s = 0.0
    """Seconds within which the connection's first request head (request line and headers) must
    have arrived in full; otherwise the connection is closed (0 = no limit; set by the gateway), so
    that connections that never send a request cannot hold the connection caps."""
    _address: str | None = None
    _refused = False
    _head_handle: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        address = _address_of(transport)
        if self.admission is not None:
            if not self.admission.admit(address):
                self._refused = True
                _faults.note("connection over the per-address cap answered 503", address)
                _answer_busy(transport)
                return
            self._address = address
        super().connection_made(transport)
        if self.head_timeout_s > 0:
            self._head_handle = asyncio.get_running_loop().call_later(self.head_timeout_s, self._head_timed_out)

    def _head_timed_out(self) -> None:
        self._head_handle = None
        if self.transport is None or getattr(self, "_request_count", 0) > 0 or getattr(self, "_messages", None):
            return  # a request arrived: aiohttp's keep-alive and the body timeout govern the rest
        _faults.note(f"connection closed: no complete request head within {self.head_timeout_s:g} s", self._address)
        self.force_close()

    def connection_lost(self, exc: BaseException | None) -> None:
        if self._head_handle is not None:
            self._head_handle.cancel()
            self._head_handle = None
        if self._address is not None and self.admission is not None:
            self.admission.release(self._address)
            self._address = None
        if self._refused:
            return  # never a connection of aiohttp: nothing of it to clean up
        super().connection_lost(exc)

    half_closed = False
    """The client half-closed its side; the gateway closes the connection after its last answer."""
    streaming = False
    """A server stream is being sent (set by the gateway): an EOF then means the client left."""
    _last_body: object = None

    def eof_received(self) -> bool | None:  # type: ignore[override]  # asyncio.Protocol returns bool | None
        """The client half-closed its side (``shutdown(SHUT_WR)``) after sending its requests. An
        HTTP/1.1 server still answers them: keep the transport open for writing (returning True;
        aiohttp's own returns None, and asyncio then closed the connection, which cancelled the
        request's handler: the request got no answer) and close after the last answer
        (:meth:`answered`). A body that can no longer arrive in full is failed at once, as the
        body of a client that left (the route answers 499 and notes it once), not waited for. With no request pending, or during a server stream (a client
        closing a watch sends the same EOF), the connection closes at once, as before."""
        if self.streaming:
            return None  # EOF during a server stream (a watch): the client went away, as before
        messages = getattr(self, "_messages", None) or ()
        # start() takes a request off the queue and hands it to a task of its own: no waiter
        # means a request is being answered (its task may not have run yet)
        busy = getattr(self, "_request_count", 0) > 0 and getattr(self, "_waiter", None) is None
        if self.transport is None or not (messages or busy):
            return None  # nothing to answer: asyncio closes the transport
        if messages:
            self.half_closed = True  # pipelined requests wait: close after the last (answered())
        else:
            self.close()  # close after the answer being made
        body = self._last_body  # only the newest request's body can still be arriving
        if isinstance(body, StreamReader) and not body.is_eof() and body.exception() is None:
            # as a client that left mid-body (the same FIN): one INFO line, no wait for the body timeout
            body.set_exception(ConnectionResetError("the client closed its side before the request body was complete"))
            body.feed_eof()  # nothing more will come: aiohttp must not linger reading it after the answer
        return True

    def answered(self, resp: web.StreamResponse) -> web.StreamResponse:
        """``resp`` of a request on this connection: closing the connection after it when the
        client half-closed and no further request of it waits (pipelined ones are answered first)."""
        if self.half_closed and not getattr(self, "_messages", None):
            resp.force_close()
        return resp

    def handle_error(self, request: BaseRequest, status: int = 500, exc: BaseException | None = None,
                     message: str | None = None) -> web.StreamResponse:
        if status >= 500 and isinstance(exc, ConnectionError):
            # the client went away mid-answer (a spectator closing its watch): the call's expected
            # end, not a server fault (aiohttp's ClientConnectionResetError is a ConnectionResetError)
            log.debug("gateway: %s closed the connection during the answer (%s)", request.remote, exc)
            code, reason, text = grpc.StatusCode.CANCELLED, "CANCELLED", "the client closed the connection"
        elif status >= 500:
            log.error("gateway: error handling a request from %s", request.remote, exc_info=exc)
            code, reason, text = grpc.StatusCode.INTERNAL, "INTERNAL", "internal error"
        else:
            text = f"malformed HTTP request: {_parse_error_text(exc, message)}"
            _faults.note(text, request.remote)
            code, reason = grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST"
        if request.writer.output_size > 0:
            raise ConnectionError("response already started, cannot send the error")
        resp = web.Response(status=status, content_type="application/json",
                            body=_json_bytes({"code": code.name, "reason": reason, "message": text}))
        resp.force_close()
        return resp


def _answer_busy(transport: asyncio.BaseTransport,
                 message: str = "too many open connections, retry") -> None:
    """Answer 503 with a JSON error (``TOO_MANY_CONNECTIONS``) and ``Retry-After: 1`` on
    ``transport`` and close it."""
    body = _json_bytes({"code": "UNAVAILABLE", "reason": "TOO_MANY_CONNECTIONS", "message": message})
    head = (f"HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nContent-Length: {len(body)}"
            "\r\nRetry-After: 1\r\nConnection: close\r\n\r\n").encode()
    # a cast, not an isinstance check: uvloop's TCP transports are not asyncio.WriteTransport
    # subclasses (the assertion that stood here failed on uvloop, and the client got a reset)
    writer = cast(asyncio.WriteTransport, transport)
    writer.write(head + body)
    writer.close()


class _Busy(asyncio.Protocol):
    """Answers a connection over the cap with 503 and closes it."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        _answer_busy(transport)


class _Admission:
    """Open connections per client address (the peer's IP address, not its port), at most
    ``per_address`` each (0 = no per-address cap): one client's connections cannot take the
    gateway's whole connection cap from everyone else."""

    def __init__(self, per_address: int) -> None:
        self.per_address = per_address
        self.open: dict[str, int] = {}

    def admit(self, address: str) -> bool:
        """Count a new connection from ``address``; False (not counted) when it would exceed the cap."""
        count = self.open.get(address, 0)
        if self.per_address and count >= self.per_address:
            return False
        self.open[address] = count + 1
        return True

    def release(self, address: str) -> None:
        """A connection counted by :meth:`admit` ended."""
        count = self.open.get(address, 0) - 1
        if count > 0:
            self.open[address] = count
        else:
            self.open.pop(address, None)


def _address_of(transport: asyncio.BaseTransport) -> str:
    """The peer's IP address of ``transport`` (``"unknown"`` when it has none, e.g. a Unix socket)."""
    peer = transport.get_extra_info("peername")
    return str(peer[0]) if isinstance(peer, tuple) and peer else "unknown"


def _closing(resp: web.Response) -> web.Response:
    """``resp`` with the connection closed after it (the rest of the body is not read)."""
    resp.force_close()
    return resp


def _peer_of(request: web.Request) -> str:
    """The client's address in grpc's peer format (``ipv4:1.2.3.4:5678``, ``ipv6:[::1]:5678``), so
    that per-peer limits count a client alike over REST and gRPC."""
    peer = request.transport.get_extra_info("peername") if request.transport else None
    if not isinstance(peer, tuple):
        return "unknown"
    host, port = peer[0], peer[1]
    return f"ipv6:[{host}]:{port}" if ":" in str(host) else f"ipv4:{host}:{port}"

"""In-process REST/JSON gateway driven by the ``google.api.http`` annotations (stdlib asyncio).

Routes are read at runtime from the service descriptors of the servicers it is given: one route
per annotated RPC (and per ``additional_bindings`` entry); there is no hand-written endpoint.
A request is turned into the RPC's request message from, in this order,

1. the JSON body (``body: "*"`` -> the whole message; ``body: "field"`` -> that field),
2. the query string (only when the body is not ``"*"``; ``?from_version=3``, ``?a.b=1``,
   repeated fields by repeating the key),
3. the path variables of the template (``{match_id}``, ``{name=shelves/*}``), which win,

and passed to the *same* handler coroutine the gRPC server calls, with a :class:`GatewayContext`
(HTTP headers as invocation metadata, so ``Authorization: Bearer <token>`` reaches the handler
as ``authorization`` metadata).

Responses (proto3 JSON, proto field names, every field printed, int64 as strings, enums by name):

* unary: ``200`` with the response message;
* server streaming: ``200``, ``Content-Type: application/x-ndjson``, one line per message
  ``{"result": <message>}``; an error after the first message ends the stream with a line
  ``{"error": {"code": "ABORTED", "message": "..."}}`` (grpc-gateway's framing). Errors before
  the first message are ordinary error responses;
* errors: the HTTP status of :data:`bummerl.api.errors.HTTP_STATUS` and
  ``{"code": "NOT_FOUND", "message": "...", "metadata": {...}}`` (``metadata`` only when the RPC
  set trailing metadata, e.g. ``bummerl-current-version``, which is also sent as a header).
  Unknown paths give 404, a known path with another method 405, a bad body/parameter 400.

Client-streaming RPCs are not served. HTTP/1.1 keep-alive is supported; bodies up to
:data:`MAX_BODY_BYTES`.
"""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import re
import urllib.parse
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any

import grpc
import grpc.aio
from google.api import annotations_pb2, http_pb2
from google.protobuf import json_format, message_factory
from google.protobuf.descriptor import FieldDescriptor, MethodDescriptor
from google.protobuf.message import Message

from bummerl.api import errors
from bummerl.api.codec import to_json_dict
from bummerl.api.services import bind_all

log = logging.getLogger(__name__)

MAX_BODY_BYTES = 1 << 20
"""Largest accepted request body, bytes (413 above)."""
MAX_HEADER_BYTES = 64 << 10
"""Largest accepted request line plus headers, bytes."""
KEEP_ALIVE_SECONDS = 75.0
"""Idle time after which a keep-alive connection is closed, seconds."""

_HTTP_VERBS = ("get", "put", "post", "delete", "patch")


class GatewayAbort(grpc.aio.AbortError):  # type: ignore[misc]
    """Raised by :meth:`GatewayContext.abort`; a ``grpc.aio.AbortError`` so that handler code and
    :func:`bummerl.api.errors.map_errors` treat it exactly like a gRPC abort."""

    def __init__(self, code: grpc.StatusCode, details: str) -> None:
        super().__init__(f"{code.name}: {details}")
        self.code = code
        self.details = details


class GatewayContext:
    """The subset of ``grpc.aio.ServicerContext`` a handler may use under the gateway.

    ``invocation_metadata()`` holds the HTTP request headers (names lowercased). ``abort()`` raises
    :class:`GatewayAbort`; ``set_code``/``set_details``/``set_trailing_metadata`` are honoured.
    """

    def __init__(self, metadata: tuple[tuple[str, str], ...], peer: str) -> None:
        self._metadata = metadata
        self._peer = peer
        self._code: grpc.StatusCode | None = None
        self._details: str | None = None
        self._trailing: tuple[tuple[str, str], ...] = ()
        self._initial: tuple[tuple[str, str], ...] = ()
        self._cancelled = False

    def invocation_metadata(self) -> tuple[tuple[str, str], ...]:
        return self._metadata

    def peer(self) -> str:
        return self._peer

    async def abort(
        self, code: grpc.StatusCode, details: str = "", trailing_metadata: Iterable[tuple[str, Any]] = ()
    ) -> None:
        if code == grpc.StatusCode.OK:
            raise ValueError("abort() needs a non-OK status code")
        self._code, self._details = code, details
        if trailing_metadata:
            self.set_trailing_metadata(trailing_metadata)
        raise GatewayAbort(code, details)

    def set_code(self, code: grpc.StatusCode) -> None:
        self._code = code

    def code(self) -> grpc.StatusCode | None:
        return self._code

    def set_details(self, details: str) -> None:
        self._details = details

    def details(self) -> str | None:
        return self._details

    def set_trailing_metadata(self, trailing_metadata: Iterable[tuple[str, Any]]) -> None:
        self._trailing = tuple((str(k), str(v)) for k, v in trailing_metadata)

    def trailing_metadata(self) -> tuple[tuple[str, str], ...]:
        return self._trailing

    async def send_initial_metadata(self, initial_metadata: Iterable[tuple[str, Any]]) -> None:
        self._initial = tuple((str(k), str(v)) for k, v in initial_metadata)

    def time_remaining(self) -> float | None:
        return None

    def cancelled(self) -> bool:
        return self._cancelled

    def done(self) -> bool:
        return self._cancelled

    def auth_context(self) -> dict[str, list[bytes]]:
        return {}


# ---------------------------------------------------------------------------------------------
# Path templates (google/api/http.proto syntax)


def _split_top(text: str, sep: str) -> list[str]:
    parts: list[str] = []
    current: list[str] = []
    depth = 0
    for ch in text:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        if ch == sep and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(ch)
    parts.append("".join(current))
    return parts


def _segments_regex(segments: list[str], variables: list[str], top: bool) -> str:
    out = []
    for seg in segments:
        if seg == "*":
            out.append("[^/]+")
        elif seg == "**":
            out.append(".*")
        elif seg.startswith("{") and seg.endswith("}"):
            if not top:
                raise ValueError("nested variables are not allowed in a path template")
            name, _, sub = seg[1:-1].partition("=")
            sub_regex = _segments_regex(sub.split("/"), variables, False) if sub else "[^/]+"
            variables.append(name.strip())
            out.append(f"(?P<v{len(variables) - 1}>{sub_regex})")
        else:
            out.append(re.escape(seg))
    return "/".join(out)


def compile_template(template: str) -> tuple[re.Pattern[str], tuple[str, ...]]:
    """Compile an http rule path template to a regex and the field paths of its variables, in
    group order (``v0``, ``v1``, ...).

    >>> rx, names = compile_template("/v1/matches/{match_id}/seats/{seat}/stream")
    >>> names, rx.match("/v1/matches/m1/seats/0/stream").groupdict()
    (('match_id', 'seat'), {'v0': 'm1', 'v1': '0'})
    """
    if not template.startswith("/"):
        raise ValueError(f"path template must start with '/': {template!r}")
    segments = _split_top(template[1:], "/")
    verb = ""
    last = _split_top(segments[-1], ":")
    if len(last) == 2:
        segments[-1], verb = last
    elif len(last) > 2:
        raise ValueError(f"bad verb in path template {template!r}")
    variables: list[str] = []
    regex = "/" + _segments_regex(segments, variables, True) + (":" + re.escape(verb) if verb else "")
    return re.compile(f"^{regex}$"), tuple(variables)


# ---------------------------------------------------------------------------------------------
# Routes


@dataclass(frozen=True)
class Route:
    """One HTTP binding of one RPC."""

    http_method: str
    template: str
    pattern: re.Pattern[str]
    variables: tuple[str, ...]
    body: str
    response_body: str
    service: str
    method: MethodDescriptor
    request_class: type[Message]
    call: Callable[[Message, Any], Any]

    @property
    def server_streaming(self) -> bool:
        return bool(self.method.server_streaming)


def _rule_bindings(rule: http_pb2.HttpRule) -> list[tuple[str, str, str, str]]:
    found = []
    kind = rule.WhichOneof("pattern")
    if kind in _HTTP_VERBS:
        found.append((kind.upper(), getattr(rule, kind), rule.body, rule.response_body))
    elif kind == "custom":
        found.append((rule.custom.kind.upper(), rule.custom.path, rule.body, rule.response_body))
    for extra in rule.additional_bindings:
        found.extend(_rule_bindings(extra))
    return found


def build_routes(handlers: Mapping[str, Any] | Iterable[Any]) -> list[Route]:
    """Routes for every ``google.api.http``-annotated RPC of the given servicers (see
    :func:`bummerl.api.services.bind_all` for the accepted forms). Client-streaming RPCs are
    skipped."""
    routes = []
    for binding in bind_all(handlers):
        for method in binding.descriptor.methods:
            options = method.GetOptions()
            if not options.HasExtension(annotations_pb2.http):
                continue
            if method.client_streaming:
                log.warning("gateway: %s/%s is client-streaming, not served", binding.full_name, method.name)
                continue
            rule = options.Extensions[annotations_pb2.http]
            call = getattr(binding.servicer, method.name)
            request_class = message_factory.GetMessageClass(method.input_type)
            for http_method, template, body, response_body in _rule_bindings(rule):
                pattern, variables = compile_template(template)
                routes.append(
                    Route(http_method, template, pattern, variables, body, response_body, binding.full_name,
                          method, request_class, call)
                )
    return routes


# ---------------------------------------------------------------------------------------------
# Request building


class BadRequest(ValueError):
    """A request the gateway cannot turn into the RPC's message (-> 400 INVALID_ARGUMENT)."""


def _field_path(descriptor: Any, path: str) -> list[Any]:
    fields = []
    current: Any = descriptor
    for part in path.split("."):
        if current is None:
            raise BadRequest(f"{path!r} is not a field path")
        f = current.fields_by_name.get(part)
        if f is None:
            raise BadRequest(f"unknown field {path!r}")
        fields.append(f)
        current = f.message_type
    return fields


def _parse_scalar(field: Any, text: str) -> Any:
    t = field.type
    try:
        if t == FieldDescriptor.TYPE_STRING:
            return text
        if t == FieldDescriptor.TYPE_BOOL:
            if text.lower() in ("true", "1"):
                return True
            if text.lower() in ("false", "0"):
                return False
            raise ValueError(text)
        if t in (FieldDescriptor.TYPE_FLOAT, FieldDescriptor.TYPE_DOUBLE):
            return float(text)
        if t == FieldDescriptor.TYPE_ENUM:
            value = field.enum_type.values_by_name.get(text)
            return value.number if value is not None else int(text)
        if t == FieldDescriptor.TYPE_BYTES:
            return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
        if t == FieldDescriptor.TYPE_MESSAGE:
            raise ValueError("message fields cannot be set from the path or query")
        return int(text)
    except ValueError as exc:
        raise BadRequest(f"bad value {text!r} for {field.name}: {exc}") from None


def _set_path(msg: Message, path: str, values: list[str]) -> None:
    fields = _field_path(msg.DESCRIPTOR, path)
    target = msg
    for f in fields[:-1]:
        if f.is_repeated:
            raise BadRequest(f"{path!r} goes through a repeated field")
        target = getattr(target, f.name)
    last = fields[-1]
    if last.message_type is not None:
        raise BadRequest(f"{path!r} is a message field")
    if last.is_repeated:
        getattr(target, last.name).extend(_parse_scalar(last, v) for v in values)
    else:
        if len(values) != 1:
            raise BadRequest(f"{path!r} given {len(values)} times")
        try:
            setattr(target, last.name, _parse_scalar(last, values[0]))
        except (TypeError, ValueError) as exc:
            raise BadRequest(f"bad value for {path!r}: {exc}") from None


def build_request(route: Route, path_params: Mapping[str, str], query: str, body: bytes) -> Message:
    """The RPC request message from path params (field path -> raw text), query string and body.
    Raises :class:`BadRequest`."""
    msg = route.request_class()
    if route.body:
        if body.strip():
            try:
                data = json.loads(body)
            except ValueError as exc:
                raise BadRequest(f"body is not JSON: {exc}") from None
            try:
                if route.body == "*":
                    json_format.ParseDict(data, msg)
                else:
                    json_format.ParseDict({route.body: data}, msg)
            except json_format.ParseError as exc:
                raise BadRequest(str(exc)) from None
    elif body.strip():
        raise BadRequest(f"{route.http_method} {route.template} takes no body")
    if query:
        if route.body == "*":
            raise BadRequest("query parameters are not accepted when the body holds the request")
        for key, values in urllib.parse.parse_qs(query, keep_blank_values=True, strict_parsing=False).items():
            if key in path_params:
                continue
            _set_path(msg, key, values)
    for name, value in path_params.items():
        _set_path(msg, name, [value])
    return msg


# ---------------------------------------------------------------------------------------------
# HTTP server


class _ClientError(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


@dataclass
class _Request:
    method: str
    target: str
    version: str
    headers: list[tuple[str, str]]
    body: bytes

    def header(self, name: str) -> str | None:
        for k, v in self.headers:
            if k == name:
                return v
        return None

    @property
    def keep_alive(self) -> bool:
        conn = (self.header("connection") or "").lower()
        if self.version == "HTTP/1.0":
            return conn == "keep-alive"
        return conn != "close"


async def _read_request(reader: asyncio.StreamReader) -> _Request | None:
    try:
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), KEEP_ALIVE_SECONDS)
    except (TimeoutError, asyncio.IncompleteReadError, ConnectionError):
        return None
    except asyncio.LimitOverrunError:
        raise _ClientError(431, "request header too large") from None
    lines = head.decode("latin-1").split("\r\n")
    try:
        method, target, version = lines[0].split(" ")
    except ValueError:
        raise _ClientError(400, "malformed request line") from None
    if not version.startswith("HTTP/1."):
        raise _ClientError(505, "HTTP/1.x only")
    headers = []
    for line in lines[1:]:
        if not line:
            continue
        name, sep, value = line.partition(":")
        if not sep:
            raise _ClientError(400, "malformed header")
        headers.append((name.strip().lower(), value.strip()))
    request = _Request(method.upper(), target, version, headers, b"")
    if (request.header("transfer-encoding") or "").lower() == "chunked":
        request.body = await _read_chunked(reader)
    else:
        length_text = request.header("content-length") or "0"
        try:
            length = int(length_text)
        except ValueError:
            raise _ClientError(400, "bad Content-Length") from None
        if length < 0 or length > MAX_BODY_BYTES:
            raise _ClientError(413, "request body too large")
        request.body = await reader.readexactly(length) if length else b""
    return request


async def _read_chunked(reader: asyncio.StreamReader) -> bytes:
    body = bytearray()
    while True:
        size_line = await reader.readuntil(b"\r\n")
        try:
            size = int(size_line.split(b";")[0].strip(), 16)
        except ValueError:
            raise _ClientError(400, "bad chunk size") from None
        if size == 0:
            while (await reader.readuntil(b"\r\n")) != b"\r\n":  # trailers
                pass
            return bytes(body)
        if len(body) + size > MAX_BODY_BYTES:
            raise _ClientError(413, "request body too large")
        body += await reader.readexactly(size)
        await reader.readexactly(2)


def _json_bytes(obj: Any) -> bytes:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode()


def _error_body(status: errors.Status) -> dict[str, Any]:
    body: dict[str, Any] = {"code": errors.grpc_code_name(status.code), "message": status.details}
    if status.trailing_metadata:
        body["metadata"] = dict(status.trailing_metadata)
    return body


def _header_safe(name: str, value: str) -> bool:
    return not name.endswith("-bin") and name.isascii() and value.isascii() and "\r" not in value + name and "\n" not in value + name


class Gateway:
    """A running gateway; :attr:`port` is the bound port. Stop with :meth:`close`."""

    def __init__(self, routes: list[Route]) -> None:
        self.routes = routes
        self.port = 0
        self._server: asyncio.base_events.Server | None = None
        self._connections: set[asyncio.Task[None]] = set()

    async def start(self, host: str, port: int) -> None:
        self._server = await asyncio.start_server(self._serve_connection, host, port, limit=MAX_HEADER_BYTES)
        self.port = self._server.sockets[0].getsockname()[1]

    async def close(self) -> None:
        """Stop accepting, end open connections (including streams) and wait for them."""
        if self._server is not None:
            self._server.close()
        for task in list(self._connections):
            task.cancel()
        if self._connections:
            await asyncio.gather(*self._connections, return_exceptions=True)
        if self._server is not None:
            await self._server.wait_closed()

    # -- connection -----------------------------------------------------------------------

    async def _serve_connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._connections.add(task)
        peer = writer.get_extra_info("peername")
        peer_text = f"ipv4:{peer[0]}:{peer[1]}" if isinstance(peer, tuple) else "unknown"
        try:
            while True:
                try:
                    request = await _read_request(reader)
                except _ClientError as exc:
                    await self._write_simple(writer, exc.status, {"code": "INVALID_ARGUMENT", "message": str(exc)},
                                             keep_alive=False, version="HTTP/1.1")
                    break
                except (asyncio.IncompleteReadError, ConnectionError):
                    break
                if request is None:
                    break
                keep_alive = await self._dispatch(request, reader, writer, peer_text)
                if not keep_alive:
                    break
        except (ConnectionError, asyncio.CancelledError):
            pass
        except Exception:
            log.exception("gateway: connection failed")
        finally:
            self._connections.discard(task)
            writer.close()
            try:
                await writer.wait_closed()
            except (ConnectionError, asyncio.CancelledError):
                pass

    async def _write_simple(
        self,
        writer: asyncio.StreamWriter,
        status: int,
        body: Any,
        *,
        keep_alive: bool,
        version: str,
        headers: Iterable[tuple[str, str]] = (),
    ) -> None:
        payload = _json_bytes(body)
        head = [f"{version} {status} {_reason(status)}", "Content-Type: application/json",
                f"Content-Length: {len(payload)}", f"Connection: {'keep-alive' if keep_alive else 'close'}"]
        head += [f"{k}: {v}" for k, v in headers if _header_safe(k, v)]
        writer.write(("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + payload)
        await writer.drain()

    async def _write_status(
        self, writer: asyncio.StreamWriter, request: _Request, status: errors.Status, keep_alive: bool
    ) -> None:
        headers = list(status.trailing_metadata)
        if status.code == grpc.StatusCode.UNAUTHENTICATED:
            headers.append(("WWW-Authenticate", "Bearer"))
        await self._write_simple(writer, status.http_status, _error_body(status), keep_alive=keep_alive,
                                 version=request.version, headers=headers)

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

    async def _dispatch(
        self, request: _Request, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, peer: str
    ) -> bool:
        keep_alive = request.keep_alive
        path, _, query = request.target.partition("?")
        route, params, allowed = self._match(request.method, path)
        if route is None:
            if allowed:
                status = errors.Status(grpc.StatusCode.UNIMPLEMENTED, f"method {request.method} not allowed")
                await self._write_simple(writer, 405, _error_body(status), keep_alive=keep_alive,
                                         version=request.version, headers=[("Allow", ", ".join(sorted(set(allowed))))])
            else:
                status = errors.Status(grpc.StatusCode.NOT_FOUND, f"no route for {request.method} {path}")
                await self._write_status(writer, request, status, keep_alive)
            return keep_alive
        try:
            message = build_request(route, params, query, request.body)
        except BadRequest as exc:
            await self._write_status(writer, request, errors.Status(grpc.StatusCode.INVALID_ARGUMENT, str(exc)),
                                     keep_alive)
            return keep_alive
        context = GatewayContext(tuple(request.headers), peer)
        log.debug("gateway: %s %s -> %s/%s", request.method, path, route.service, route.method.name)
        if route.server_streaming:
            await self._stream(route, message, context, request, reader, writer)
            return False
        try:
            response = route.call(message, context)
            if asyncio.iscoroutine(response) or isinstance(response, asyncio.Future):
                response = await response
        except Exception as exc:
            await self._write_status(writer, request, _status_from(exc, context), keep_alive)
            return keep_alive
        code = context.code()
        if code is not None and code != grpc.StatusCode.OK:
            status = errors.Status(code, context.details() or "", context.trailing_metadata())
            await self._write_status(writer, request, status, keep_alive)
            return keep_alive
        await self._write_simple(writer, 200, _render(route, response), keep_alive=keep_alive,
                                 version=request.version, headers=context.trailing_metadata())
        return keep_alive

    async def _stream(
        self,
        route: Route,
        message: Message,
        context: GatewayContext,
        request: _Request,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
    ) -> None:
        try:
            result = route.call(message, context)
            if not hasattr(result, "__aiter__"):
                raise TypeError(f"{route.method.full_name}: streaming handlers must be async generators")
            items: AsyncIterator[Any] = result.__aiter__()
        except Exception as exc:
            await self._write_status(writer, request, _status_from(exc, context), False)
            return
        chunked = request.version != "HTTP/1.0"
        try:
            try:
                first = await items.__anext__()
            except StopAsyncIteration:
                first = None
            except Exception as exc:
                await self._write_status(writer, request, _status_from(exc, context), False)
                return
            head = [f"{request.version} 200 OK", "Content-Type: application/x-ndjson", "Connection: close",
                    "Cache-Control: no-cache"]
            if chunked:
                head.append("Transfer-Encoding: chunked")
            writer.write(("\r\n".join(head) + "\r\n\r\n").encode("latin-1"))

            async def send(obj: Any) -> None:
                line = _json_bytes(obj) + b"\n"
                writer.write(f"{len(line):x}\r\n".encode() + line + b"\r\n" if chunked else line)
                await writer.drain()

            if first is not None:
                await send({"result": _render(route, first)})
                await self._pump(route, items, context, reader, send)
            if chunked:
                writer.write(b"0\r\n\r\n")
                await writer.drain()
        finally:
            aclose = getattr(items, "aclose", None)
            if aclose is not None:
                try:
                    await aclose()
                except Exception:
                    log.exception("gateway: closing %s failed", route.method.full_name)

    async def _pump(
        self,
        route: Route,
        items: AsyncIterator[Any],
        context: GatewayContext,
        reader: asyncio.StreamReader,
        send: Callable[[Any], Any],
    ) -> None:
        """Forward stream items until the end, an error, or the client hanging up (which cancels
        the handler's generator and marks the context cancelled)."""
        eof = asyncio.ensure_future(reader.read(4096))
        nxt: asyncio.Future[Any] | None = None
        try:
            while True:
                nxt = asyncio.ensure_future(items.__anext__())
                while True:
                    done, _ = await asyncio.wait({nxt, eof}, return_when=asyncio.FIRST_COMPLETED)
                    if eof in done and nxt not in done:
                        if eof.exception() is None and eof.result():
                            eof = asyncio.ensure_future(reader.read(4096))  # stray bytes: ignore
                            continue
                        context._cancelled = True  # client went away
                        return
                    break
                try:
                    item = nxt.result()
                except StopAsyncIteration:
                    return
                except Exception as exc:
                    await send({"error": _error_body(_status_from(exc, context))})
                    return
                await send({"result": _render(route, item)})
        finally:
            pending = [t for t in (nxt, eof) if t is not None]
            for t in pending:
                t.cancel()
            await asyncio.gather(*pending, return_exceptions=True)


def _reason(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Client Closed Request" if status == 499 else "Unknown"


def _status_from(exc: BaseException, context: GatewayContext) -> errors.Status:
    if isinstance(exc, GatewayAbort):
        return errors.Status(exc.code, exc.details, context.trailing_metadata())
    if isinstance(exc, grpc.aio.AbortError):  # pragma: no cover - only a real grpc context raises it
        return errors.Status(grpc.StatusCode.UNKNOWN, "aborted")
    return errors.status_of(exc)


def _render(route: Route, response: Message) -> Any:
    if route.response_body:
        field = response.DESCRIPTOR.fields_by_name.get(route.response_body)
        if field is not None and field.message_type is not None and not field.is_repeated:
            return to_json_dict(getattr(response, route.response_body))
    return to_json_dict(response)


async def start_gateway(handlers: Mapping[str, Any] | Iterable[Any], host: str, port: int) -> Gateway:
    """Start the REST/JSON gateway on ``host:port`` (0 = ephemeral) for ``handlers``: servicer
    objects (subclasses of generated ``*Servicer`` classes), as an iterable or as
    ``{service full name: servicer}``. Returns the running :class:`Gateway` (``.port``, ``.close()``)."""
    gateway = Gateway(build_routes(handlers))
    await gateway.start(host, port)
    log.info("REST gateway on %s:%d (%d routes)", host, gateway.port, len(gateway.routes))
    return gateway

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
  set trailing metadata, named as in the gRPC ``ErrorInfo``: ``current_version`` for the trailer
  ``bummerl-current-version``, which is also sent as that HTTP header).
  Unknown paths give 404, a known path with another method 405, a bad body/parameter 400.

Client-streaming RPCs are not served. HTTP/1.1 keep-alive is supported; bodies up to
:data:`MAX_BODY_BYTES`.

Besides the RPC routes: ``GET /healthz`` (liveness: ``200 {"status": "ok"}`` while the process
serves) and ``GET /readyz`` (readiness: ``200 {"status": "ready"}`` when the gateway's ``ready``
check, e.g. a Redis ping, answers within :data:`READY_TIMEOUT_SECONDS`, else ``503
{"status": "unavailable", "message": ...}``), for load balancers that do not speak gRPC health.
With ``pages`` (a directory, the package's ``bummerl/web``) ``GET /`` serves its ``index.html``
and ``GET /web/<file>`` its other files (no subdirectories, no listing), with a Content-Security-
Policy that allows only this origin (the pages make no external request).
A server-streaming route answers with Server-Sent Events (``data: <message>`` per event, ``event:
error`` for an error after the first message) instead of NDJSON when the request's ``Accept`` asks
for ``text/event-stream``.
"""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import re
import time
import urllib.parse
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import grpc.aio
from aiohttp import ClientPayloadError, web
from aiohttp.http_exceptions import HttpProcessingError
from aiohttp.web_protocol import RequestHandler
from aiohttp.web_request import BaseRequest
from google.api import annotations_pb2, http_pb2
from google.protobuf import json_format, message_factory
from google.protobuf.descriptor import FieldDescriptor, MethodDescriptor
from google.protobuf.message import Message

from bummerl import metrics
from bummerl.api import errors
from bummerl.api.codec import to_json_dict
from bummerl.api.interceptors import Recorder
from bummerl.api.services import bind_all

log = logging.getLogger(__name__)
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
GZIP_MIN_BYTES = 1024
"""Responses at least this large are gzip-compressed when the client accepts gzip."""
MAX_JSON_DEPTH = 64
"""Deepest nesting a JSON body may have (400 beyond)."""

PAGE_TYPES = {".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".svg": "image/svg+xml",
              ".png": "image/png", ".json": "application/json", ".ico": "image/x-icon"}
"""Files the gateway serves from ``pages``, by suffix, with their content type."""
PAGE_CSP = ("default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; "
            "frame-ancestors 'none'; base-uri 'none'; form-action 'self'")
"""Content-Security-Policy of the pages: nothing from another origin."""

READY_TIMEOUT_SECONDS = 2.0
"""Longest a ``/readyz`` check may take before the gateway answers 503, seconds."""

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

    is_gateway = True
    """Marks a gateway context (errors go in the JSON body, not in ``grpc-status-details-bin``)."""

    def __init__(self, metadata: tuple[tuple[str, str], ...], peer: str) -> None:
        self._metadata = metadata
        self._peer = peer
        self._code: grpc.StatusCode | None = None
        self._details: str | None = None
        self._trailing: tuple[tuple[str, str], ...] = ()
        self._initial: tuple[tuple[str, str], ...] = ()
        self._cancelled = False
        self.reason = ""
        """Machine-readable reason of the error the handler aborted with (set by map_errors)."""

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


_F = FieldDescriptor
_INT_KINDS = {
    _F.TYPE_INT32: ("int32", -2**31, 2**31 - 1), _F.TYPE_SINT32: ("int32", -2**31, 2**31 - 1),
    _F.TYPE_SFIXED32: ("int32", -2**31, 2**31 - 1), _F.TYPE_UINT32: ("uint32", 0, 2**32 - 1),
    _F.TYPE_FIXED32: ("uint32", 0, 2**32 - 1), _F.TYPE_INT64: ("int64", -2**63, 2**63 - 1),
    _F.TYPE_SINT64: ("int64", -2**63, 2**63 - 1), _F.TYPE_SFIXED64: ("int64", -2**63, 2**63 - 1),
    _F.TYPE_UINT64: ("uint64", 0, 2**64 - 1), _F.TYPE_FIXED64: ("uint64", 0, 2**64 - 1),
}


def _parse_scalar(field: Any, text: str, path: str) -> Any:
    """``text`` (a path segment or query value) as the value of ``field``; BadRequest names
    ``path`` and the type expected, e.g. ``seat must be an integer (int32), got 'x'``."""
    t = field.type
    if t == _F.TYPE_STRING:
        return text
    if t == _F.TYPE_BOOL:
        if text.lower() in ("true", "1"):
            return True
        if text.lower() in ("false", "0"):
            return False
        raise BadRequest(f"{path} must be true or false, got {text!r}")
    if t in (_F.TYPE_FLOAT, _F.TYPE_DOUBLE):
        try:
            return float(text)
        except ValueError:
            raise BadRequest(f"{path} must be a number, got {text!r}") from None
    if t == _F.TYPE_ENUM:
        value = field.enum_type.values_by_name.get(text)
        if value is not None:
            return value.number
        if field.enum_type.values_by_number.get(_int_or_none(text)) is not None:
            return int(text)
        names = ", ".join(v.name for v in field.enum_type.values)
        raise BadRequest(f"{path} must be one of {names}, got {text!r}")
    if t == _F.TYPE_BYTES:
        try:
            return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
        except ValueError:
            raise BadRequest(f"{path} must be URL-safe base64, got {text!r}") from None
    if t == _F.TYPE_MESSAGE:
        raise BadRequest(f"{path} is a message field: it cannot be set from the path or query")
    return _in_int_range(t, _int_or_none(text), path, repr(text))


def _in_int_range(t: int, n: int | None, where: str, shown: str) -> int:
    """``n`` if it is an integer in the range of the protobuf integer type ``t``; else BadRequest
    naming ``where`` and the type (``shown``: the value as the client sent it)."""
    kind, lo, hi = _INT_KINDS[t]
    if n is None:
        raise BadRequest(f"{where} must be an integer ({kind}), got {shown}")
    if not lo <= n <= hi:
        raise BadRequest(f"{where} must be an integer in {lo}..{hi} ({kind}), got {n}")
    return n


def _int_or_none(text: str) -> int | None:
    """``text`` as a decimal integer (an optional sign, digits only), else None."""
    body = text[1:] if text[:1] in "+-" else text
    return int(text) if body.isascii() and body.isdigit() else None


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
        getattr(target, last.name).extend(_parse_scalar(last, v, path) for v in values)
    else:
        if len(values) != 1:
            raise BadRequest(f"{path!r} given {len(values)} times")
        setattr(target, last.name, _parse_scalar(last, values[0], path))


def _depth(value: Any) -> int:
    """Nesting depth of parsed JSON (iterative: no recursion limit)."""
    deepest = 0
    stack = [(value, 1)]
    while stack:
        v, d = stack.pop()
        deepest = max(deepest, d)
        if deepest > MAX_JSON_DEPTH:
            return deepest
        if isinstance(v, dict):
            stack.extend((x, d + 1) for x in v.values())
        elif isinstance(v, list):
            stack.extend((x, d + 1) for x in v)
    return deepest


_UNKNOWN_FIELD = re.compile(r'(?:Failed to parse (?P<outer>\w+) field: )?Message type "(?:[\w.]+\.)?(?P<type>\w+)" has no '
                            r'field named "(?P<field>[^"]*)" at "(?P<at>[^"]*)"\.\s*Available Fields\(except '
                            r'extensions\): "\[(?P<fields>[^\]]*)\]"')


def _shown(v: Any) -> str:
    """A JSON value in a message, short."""
    return errors.clip(json.dumps(v, ensure_ascii=False), 40)


def _json_kind(v: Any) -> str:
    return {dict: "an object", list: "an array", str: "a string", bool: "true/false", type(None): "null"}.get(
        type(v), "a number")


def _check_json(data: Any, descriptor: Any, path: str = "") -> None:
    """Check JSON ``data`` against the request message ``descriptor`` before protobuf parses it, so
    that a value of the wrong type gets a :class:`BadRequest` in the API's terms that names its
    field and the type expected (``expected_version must be an integer (int64), got 'abc'``;
    protobuf's own errors quote Python: "invalid literal for int() with base 10", "expected string
    or bytes-like object"). Unknown fields are left to protobuf (:func:`_json_error_text`);
    well-known types (``google.protobuf.*``) are not looked into."""
    if not isinstance(data, dict):
        return
    by_name = {**{f.json_name: f for f in descriptor.fields}, **{f.name: f for f in descriptor.fields}}
    oneofs: dict[str, str] = {}
    for key, value in data.items():
        f = by_name.get(key)
        if f is None or value is None:
            continue
        where = f"{path}.{f.name}" if path else f.name
        if f.containing_oneof is not None:
            other = oneofs.setdefault(f.containing_oneof.name, f.name)
            if other != f.name:
                raise BadRequest(f"{path + ': ' if path else ''}set one of {other} and {f.name}, not both")
        entry = f.message_type
        if entry is not None and entry.GetOptions().map_entry:
            if not isinstance(value, dict):
                raise BadRequest(f"{where} must be an object (string keys), got {_json_kind(value)}: {_shown(value)}")
            vf = entry.fields_by_name["value"]
            for k, v in value.items():
                if vf.type == vf.TYPE_STRING and not isinstance(v, str):  # a table option given as a number
                    raise BadRequest(f"{where}: the value of {k!r} must be a JSON string (e.g. \"5\", not 5), "
                                     f"got {errors.clip(json.dumps(v), 40)}")
                _check_value(vf, v, f"{where}[{k!r}]")
        elif f.is_repeated:
            if not isinstance(value, list):
                raise BadRequest(f"{where} must be an array, got {_json_kind(value)}: {_shown(value)}")
            for i, v in enumerate(value):
                _check_value(f, v, f"{where}[{i}]")
        else:
            _check_value(f, value, where)


def _check_value(f: Any, v: Any, where: str) -> None:
    """One JSON value of field ``f`` (an element, for a repeated field); see :func:`_check_json`."""
    t = f.type
    if v is None:
        return
    if t == _F.TYPE_MESSAGE or t == _F.TYPE_GROUP:
        m = f.message_type
        if m.full_name.startswith("google.protobuf."):
            return
        if not isinstance(v, dict):
            known = ", ".join(x.name for x in m.fields)
            raise BadRequest(f"{where}: expected a {m.name} object with the fields {known}, e.g. "
                             f"{{\"{m.fields[0].name}\": ...}}, not {v!r}" if isinstance(v, str) else
                             f"{where}: expected a {m.name} object with the fields {known}, not {_json_kind(v)}: "
                             f"{_shown(v)}")
        _check_json(v, m, where)
    elif t == _F.TYPE_STRING:
        if not isinstance(v, str):
            raise BadRequest(f"{where} must be a string, got {_json_kind(v)}: {_shown(v)}")
    elif t == _F.TYPE_BOOL:
        if not isinstance(v, bool):
            raise BadRequest(f"{where} must be true or false, got {_shown(v)}")
    elif t in (_F.TYPE_FLOAT, _F.TYPE_DOUBLE):
        if isinstance(v, bool) or not isinstance(v, int | float | str):
            raise BadRequest(f"{where} must be a number, got {_json_kind(v)}: {_shown(v)}")
        if isinstance(v, str):
            try:
                float(v)
            except ValueError:
                raise BadRequest(f"{where} must be a number, got {_shown(v)}") from None
    elif t == _F.TYPE_ENUM:
        names = [x.name for x in f.enum_type.values]
        if not ((isinstance(v, str) and v in names)
                or (isinstance(v, int) and not isinstance(v, bool) and v in f.enum_type.values_by_number)):
            raise BadRequest(f"{where} must be one of {', '.join(names)}, got {_shown(v)}")
    elif t == _F.TYPE_BYTES:
        if not isinstance(v, str):
            raise BadRequest(f"{where} must be a base64 string, got {_json_kind(v)}: {_shown(v)}")
    elif t in _INT_KINDS:
        n: int | None = None
        if isinstance(v, int) and not isinstance(v, bool):
            n = v
        elif isinstance(v, float) and v.is_integer():
            n = int(v)
        elif isinstance(v, str):
            n = _int_or_none(v.strip())
        _in_int_range(t, n, where, _shown(v))


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def _json_error_text(text: str) -> str:
    """A protobuf JSON parse error in the API's own terms: field names in snake_case as the docs
    and the JSON answers write them (protobuf's message lists camelCase names), a string where an
    object was expected said so; anything else as protobuf wrote it (a map value that is not a
    string is caught before, by :func:`_check_json`)."""
    m = _UNKNOWN_FIELD.search(text)
    if m:
        known = ", ".join(_snake(f.strip(" '")) for f in m["fields"].split(",") if f.strip(" '"))
        where = m["at"].split(".", 1)[1] if "." in m["at"] else ""
        if m["outer"] and where.endswith("]"):  # a repeated message field given as strings, e.g. "seats": ["a"]
            return (f"{where}: expected a {m['type']} object with the fields {known}, e.g. {{\"{known.split(', ')[0]}\": "
                    f"...}}, not {m['field']!r}")
        return f"unknown field {m['field']!r}{' in ' + where if where else ''} ({m['type']}); its fields: {known}"
    return text


def build_request(route: Route, path_params: Mapping[str, str], query: str, body: bytes) -> Message:
    """The RPC request message from path params (field path -> raw text), query string and body.
    Raises :class:`BadRequest`."""
    msg = route.request_class()
    data: Any = None
    if route.body:
        if body.strip():
            try:  # UTF-8 only (json.loads of bytes would take UTF-16 and UTF-32 as well, RFC 8259 wants UTF-8)
                data = json.loads(body.decode("utf-8"))
            except UnicodeDecodeError as exc:
                raise BadRequest(f"body is not JSON in UTF-8 (byte {exc.start} is not UTF-8)") from None
            except ValueError as exc:
                raise BadRequest(f"body is not JSON: {errors.clip(str(exc), 120)}") from None
            except RecursionError:
                raise BadRequest("body is nested too deeply") from None
            if _depth(data) > MAX_JSON_DEPTH:
                raise BadRequest(f"body is nested deeper than {MAX_JSON_DEPTH} levels")
            if route.body == "*" and not isinstance(data, dict):
                raise BadRequest(f"body must be a JSON object, got {type(data).__name__.replace('NoneType', 'null')}")
            _check_json(data if route.body == "*" else {route.body: data}, msg.DESCRIPTOR)
            try:
                if route.body == "*":
                    json_format.ParseDict(data, msg)
                else:
                    json_format.ParseDict({route.body: data}, msg)
            except (json_format.ParseError, TypeError, AttributeError, RecursionError) as exc:
                raise BadRequest(errors.clip(_json_error_text(str(exc)), 300)) from None
    elif body.strip():
        raise BadRequest(f"{route.http_method} {route.template} takes no body")
    if query:
        if route.body == "*":
            raise BadRequest("query parameters are not accepted when the body holds the request")
        for key, values in urllib.parse.parse_qs(query, keep_blank_values=True, strict_parsing=False).items():
            if key in path_params:  # the path names it: the query may repeat it, not contradict it
                if values != [path_params[key]]:
                    raise BadRequest(f"{key}: the path says {path_params[key]}, the query {', '.join(values)} "
                                     f"(leave it out of the query)")
                continue
            _set_path(msg, key, values)
    in_body = {}
    if route.body == "*" and isinstance(data, dict):  # the body repeats a path field: it must agree with the path
        fields = msg.DESCRIPTOR.fields_by_name
        in_body = {name: _get_path(msg, name) for name in path_params
                   if name in fields and (name in data or fields[name].json_name in data)}
    for name, value in path_params.items():
        _set_path(msg, name, [value])
        if name in in_body and in_body[name] != _get_path(msg, name):
            raise BadRequest(f"{name}: the path says {value}, the body {in_body[name]} (leave it out of the body)")
    return msg


def _get_path(msg: Message, path: str) -> Any:
    for part in path.split("."):
        msg = getattr(msg, part)
    return msg



# ---------------------------------------------------------------------------------------------
# HTTP server (aiohttp)


def _json_bytes(obj: Any) -> bytes:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode()


def _error_body(status: errors.Status) -> dict[str, Any]:
    body: dict[str, Any] = {"code": errors.grpc_code_name(status.code), "message": status.details}
    reason = errors.reason_of(status)
    if reason:
        body["reason"] = reason
    if status.trailing_metadata:  # named as in the gRPC ErrorInfo: bummerl-current-version -> current_version
        body["metadata"] = {k.removeprefix("bummerl-").replace("-", "_"): v for k, v in status.trailing_metadata
                            if not k.endswith("-bin")}
    return body


def _header_safe(name: str, value: str) -> bool:
    return not name.endswith("-bin") and name.isascii() and value.isascii() and "\r" not in value + name and "\n" not in value + name


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
        current = getattr(self, "_current_request", None)
        if queue is None or current is None or len(queue) <= queued:
            return
        exc = getattr(queue[-1][0], "exc", None)  # aiohttp's _ErrInfo of the framing error
        body = current.content
        if isinstance(exc, HttpProcessingError) and not body.at_eof() and body.exception() is None:
            body.set_exception(exc)
            body.feed_eof()  # nothing more of this body will come: aiohttp must not wait for it after the 400

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


class _Busy(asyncio.Protocol):
    """Answers a connection over the cap with 503 and closes it."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        body = _json_bytes({"code": "UNAVAILABLE", "reason": "TOO_MANY_CONNECTIONS",
                            "message": "too many open connections, retry"})
        head = (f"HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nContent-Length: {len(body)}"
                "\r\nRetry-After: 1\r\nConnection: close\r\n\r\n").encode()
        assert isinstance(transport, asyncio.WriteTransport)
        transport.write(head + body)
        transport.close()


class Gateway:
    """A running gateway on aiohttp; :attr:`port` is the bound port. Stop with :meth:`close`.

    ``max_connections``: open connections beyond it get 503 at once. ``body_timeout_s``: a
    request whose body does not arrive within it gets 408 (seconds). ``cors_origins``: origins
    allowed by CORS (``"*"`` = any; empty = no CORS headers). ``reuse_port``: share the port
    with another process (SO_REUSEPORT); otherwise a port in use raises ``OSError``. Responses over
    :data:`GZIP_MIN_BYTES` are gzip-compressed for clients that accept it. ``ready``: the
    readiness check of ``/readyz`` (a coroutine function that raises or returns False when the
    server cannot serve, e.g. Redis unreachable); None = ready whenever live. ``pages``: the
    directory of the web pages served at ``/`` and ``/web/`` (None = no pages).
    """

    def __init__(self, routes: list[Route], *, max_connections: int = MAX_CONNECTIONS,
                 body_timeout_s: float = BODY_TIMEOUT_SECONDS, cors_origins: Iterable[str] = (),
                 reuse_port: bool = False, ready: Callable[[], Awaitable[Any]] | None = None,
                 pages: Path | None = None) -> None:
        self.routes = routes
        self.port = 0
        self.max_connections = max_connections
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
            return _JsonErrorHandler(server, loop=asyncio.get_running_loop(), **server._kwargs)

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
            return await self._dispatch(request)
        finally:
            self._handlers.discard(task)

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
                _faults.note("client disconnected before its request body arrived", request.remote)
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
            sse = "text/event-stream" in request.headers.get("Accept", "")
            resp = web.StreamResponse(status=200, headers={
                "Content-Type": "text/event-stream" if sse else "application/x-ndjson",
                "Cache-Control": "no-cache", **self._cors(request)})
            await resp.prepare(request)
            code = grpc.StatusCode.OK
            if first is not None:
                await resp.write(_frame({"result": _render(route, first)}, sse))
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
                    await resp.write(_frame({"result": _render(route, item)}, sse))
                    rec.sent.inc()
            await resp.write_eof()
            return resp, code
        except (ConnectionError, asyncio.CancelledError):
            context._cancelled = True  # the client went away
            raise
        finally:
            aclose = getattr(items, "aclose", None)
            if aclose is not None:
                try:
                    await aclose()
                except Exception:
                    log.exception("gateway: closing %s failed", route.method.full_name)


def _frame(obj: dict[str, Any], sse: bool) -> bytes:
    """One stream message: an NDJSON line, or a Server-Sent Event (``event: error`` for an error)."""
    if not sse:
        return _json_bytes(obj) + b"\n"
    return (b"event: error\n" if "error" in obj else b"") + b"data: " + _json_bytes(obj) + b"\n\n"


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


def _status_from(exc: BaseException, context: GatewayContext) -> errors.Status:
    if isinstance(exc, GatewayAbort):
        return errors.Status(exc.code, exc.details, context.trailing_metadata(), reason=context.reason)
    if isinstance(exc, grpc.aio.AbortError):  # pragma: no cover - only a real grpc context raises it
        return errors.Status(grpc.StatusCode.UNKNOWN, "aborted")
    return errors.status_of(exc)


def _render(route: Route, response: Message) -> Any:
    if route.response_body:
        field = response.DESCRIPTOR.fields_by_name.get(route.response_body)
        if field is not None and field.message_type is not None and not field.is_repeated:
            return to_json_dict(getattr(response, route.response_body))
    return to_json_dict(response)


async def start_gateway(handlers: Mapping[str, Any] | Iterable[Any], host: str, port: int,
                        **options: Any) -> Gateway:
    """Start the REST/JSON gateway on ``host:port`` (0 = ephemeral) for ``handlers``: servicer
    objects (subclasses of generated ``*Servicer`` classes), as an iterable or as
    ``{service full name: servicer}``; ``options`` go to :class:`Gateway` (``max_connections``,
    ``body_timeout_s``, ``cors_origins``). Returns the running gateway (``.port``, ``.close()``)."""
    gateway = Gateway(build_routes(handlers), **options)
    await gateway.start(host, port)
    log.info("REST gateway on %s:%d (%d routes)", host, gateway.port, len(gateway.routes))
    return gateway

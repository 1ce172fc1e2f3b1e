"""HTTP <-> RPC messages: :func:`build_request` (the request message from a route's path
variables, query string and JSON body, checked by :mod:`bummerl.api.gateway.checks`),
:func:`_render` (a response message as proto3 JSON), :func:`_error_body` (the JSON body of an error
status), :func:`_json_bytes` (compact UTF-8 JSON), :func:`_frame` (one message of a server
stream: an NDJSON line or a Server-Sent Event) and :class:`SharedMessage` (a stream message many
calls send: rendered once)."""

from __future__ import annotations

import json
import urllib.parse
from collections.abc import Mapping
from typing import Any

from google.protobuf import json_format
from google.protobuf.message import Message

from bummerl import metrics
from bummerl.api import errors
from bummerl.api.codec import to_json_dict
from bummerl.api.gateway.checks import BadRequest, _check_json, _json_error_text, _parse_scalar
from bummerl.api.gateway.routing import Route

MAX_JSON_DEPTH = 64
"""Deepest nesting a JSON body may have (400 beyond)."""


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


def _render(route: Route, response: Message) -> Any:
    if route.response_body:
        field = response.DESCRIPTOR.fields_by_name.get(route.response_body)
        if field is not None and field.message_type is not None and not field.is_repeated:
            return to_json_dict(getattr(response, route.response_body))
    return to_json_dict(response)


def _frame(obj: dict[str, Any], sse: bool) -> bytes:
    """One stream message: an NDJSON line, or a Server-Sent Event (``event: error`` for an error)."""
    if not sse:
        return _json_bytes(obj) + b"\n"
    return (b"event: error\n" if "error" in obj else b"") + b"data: " + _json_bytes(obj) + b"\n\n"


class SharedMessage:
    """A server-stream message that many calls send unchanged (one spectator update of a match
    version, :func:`bummerl.api.servicer.shared_watch_update`): a handler yields it instead of
    the message, and the gateway renders its JSON once and each framing (NDJSON line, Server-Sent
    Event) once, on first use, for every stream that sends it (:meth:`frame`)."""

    __slots__ = ("message", "_obj", "_frames")

    def __init__(self, message: Message) -> None:
        self.message = message
        self._obj: Any = None
        self._frames: dict[bool, bytes] = {}

    def frame(self, route: Route, sse: bool) -> bytes:
        """The message as ``route`` streams it (``{"result": <message>}`` in the framing of
        :func:`_frame`), made once per framing; counted in ``bummerl_watch_encodes_total{format="json"}``."""
        got = self._frames.get(sse)
        if got is None:
            if self._obj is None:
                self._obj = {"result": _render(route, self.message)}
            got = self._frames[sse] = _frame(self._obj, sse)
            metrics.watch_encoded("json")
        return got


def _stream_bytes(route: Route, item: Any, sse: bool) -> bytes:
    """One item a streaming handler yielded, framed (a :class:`SharedMessage` as it was framed
    already, another message rendered for this stream)."""
    if isinstance(item, SharedMessage):
        return item.frame(route, sse)
    return _frame({"result": _render(route, item)}, sse)

"""The gateway's routes, read from the ``google.api.http`` annotations of the service descriptors:
:func:`compile_template` (a path template of google/api/http.proto -> regex and variable names),
:class:`Route` (one HTTP binding of one RPC) and :func:`build_routes` (every binding of the given
servicers)."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from google.api import annotations_pb2, http_pb2
from google.protobuf import message_factory
from google.protobuf.descriptor import MethodDescriptor
from google.protobuf.message import Message

from bummerl.api.services import bind_all

log = logging.getLogger("bummerl.api.gateway")  # the package's logger: log lines keep their name


_HTTP_VERBS = ("get", "put", "post", "delete", "patch")


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

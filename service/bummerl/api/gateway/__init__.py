"""In-process REST/JSON gateway driven by the ``google.api.http`` annotations (aiohttp).

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

The modules, in import order (each imports only those before it):

* :mod:`~bummerl.api.gateway.context`: :class:`GatewayContext` and :class:`GatewayAbort`, what a
  handler sees of a REST call, and ``_status_from`` (the error status of what a handler raised);
* :mod:`~bummerl.api.gateway.routing`: :func:`compile_template` (path templates), :class:`Route`
  and :func:`build_routes` (the routes of the ``google.api.http`` annotations);
* :mod:`~bummerl.api.gateway.checks`: :class:`BadRequest` and the type checks of what a client
  sends (``_parse_scalar`` for path and query values, ``_check_json`` for JSON bodies, protobuf's
  parse errors reworded);
* :mod:`~bummerl.api.gateway.transcode`: :func:`build_request` (HTTP request -> request message,
  :data:`MAX_JSON_DEPTH`), the JSON of responses, errors and stream messages (NDJSON and SSE
  framing);
* :mod:`~bummerl.api.gateway.connections`: aiohttp's connection handler with JSON errors, the 503
  of connections over the cap, ``_ExpectedFaults`` (rate-limited log lines of network faults; the
  instance ``connections._faults`` is the one used);
* :mod:`~bummerl.api.gateway.server`: :class:`Gateway` (the aiohttp server: dispatch, probes, pages,
  streams, CORS, gzip), :func:`start_gateway`, the limits (:data:`MAX_BODY_BYTES`,
  :data:`MAX_CONNECTIONS`, :data:`MAX_CONNECTIONS_PER_ADDRESS`, ...) and the pages' :data:`PAGE_TYPES` and :data:`PAGE_CSP`.

The names below are re-exported from those modules; to replace one at run time (a test's
monkeypatch), replace it in the module that reads it, not here.
"""

from __future__ import annotations

from bummerl.api.gateway.checks import BadRequest
from bummerl.api.gateway.checks import _parse_scalar as _parse_scalar  # tests import it from here
from bummerl.api.gateway.connections import _ExpectedFaults as _ExpectedFaults  # tests import it from here
from bummerl.api.gateway.context import GatewayAbort, GatewayContext
from bummerl.api.gateway.routing import Route, build_routes, compile_template
from bummerl.api.gateway.server import (
    BODY_TIMEOUT_SECONDS,
    GZIP_MIN_BYTES,
    HEAD_TIMEOUT_SECONDS,
    KEEP_ALIVE_SECONDS,
    MAX_BODY_BYTES,
    MAX_CONNECTIONS,
    MAX_CONNECTIONS_PER_ADDRESS,
    MAX_HEADER_BYTES,
    PAGE_CSP,
    PAGE_TYPES,
    READY_TIMEOUT_SECONDS,
    Gateway,
    start_gateway,
)
from bummerl.api.gateway.transcode import MAX_JSON_DEPTH, SharedMessage, build_request

__all__ = [
    "BODY_TIMEOUT_SECONDS",
    "GZIP_MIN_BYTES",
    "HEAD_TIMEOUT_SECONDS",
    "KEEP_ALIVE_SECONDS",
    "MAX_BODY_BYTES",
    "MAX_CONNECTIONS",
    "MAX_CONNECTIONS_PER_ADDRESS",
    "MAX_HEADER_BYTES",
    "MAX_JSON_DEPTH",
    "PAGE_CSP",
    "PAGE_TYPES",
    "READY_TIMEOUT_SECONDS",
    "BadRequest",
    "Gateway",
    "GatewayAbort",
    "GatewayContext",
    "Route",
    "SharedMessage",
    "build_request",
    "build_routes",
    "compile_template",
    "start_gateway",
]

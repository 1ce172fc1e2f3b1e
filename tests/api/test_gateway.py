"""The REST gateway, health, reflection and gRPC metrics over real sockets.

A tiny in-test fake of GameService stands in for the real servicer: these tests check the
transport (routing from the http annotations, request building, JSON/NDJSON, error mapping),
not the game.
"""

from __future__ import annotations

import asyncio
import json
import socket
import time
import urllib.error
import urllib.request
from typing import Any

import grpc
import grpc.aio
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from prometheus_client import REGISTRY, generate_latest

from bummerl import metrics
from bummerl.api.errors import (
    IllegalActionError,
    NotFoundError,
    StaleVersionError,
    UnauthenticatedError,
    map_errors,
)
from bummerl.api.gateway import compile_template
from bummerl.api.metadata import bearer_token
from bummerl.api.server import build_server, start_gateway
from bummerl.config import Settings
from bummerl.v1 import common_pb2, game_pb2, game_pb2_grpc

MATCH = "m-0123456789abcdef"
SLOW = "m-slow"
TOKEN = "tok-" + "s3cr3t" * 6
CURRENT_VERSION = 5


class FakeGame(game_pb2_grpc.GameServiceServicer):
    """One match MATCH at CURRENT_VERSION; seat tokens are TOKEN for every seat."""

    def __init__(self) -> None:
        self.stream_closed = asyncio.Event()

    def _auth(self, context: Any) -> None:
        if bearer_token(context) != TOKEN:
            raise UnauthenticatedError("missing or wrong seat token")

    def _match(self, match_id: str) -> None:
        if match_id != MATCH:
            raise NotFoundError(f"no match {match_id!r}")

    def _infoset(self, seat: int, version: int) -> common_pb2.InformationSet:
        return common_pb2.InformationSet(
            match_id=MATCH, version=version, seat=seat, variant="schnapsen-at", num_seats=2,
            deal=common_pb2.DealView(phase=common_pb2.PHASE_LEAD, to_act=0, hand=["AH", "TS"]),
        )

    @map_errors
    async def ListVariants(self, request, context):
        return game_pb2.ListVariantsResponse(variants=[common_pb2.VariantInfo(id="schnapsen-at", num_players=2)])

    @map_errors
    async def CreateMatch(self, request, context):
        return game_pb2.CreateMatchResponse(
            match_id=MATCH,
            seat_tokens=[game_pb2.SeatToken(seat=i, token=TOKEN) for i in range(len(request.seats))],
            summary=game_pb2.MatchSummary(match_id=MATCH, variant=request.variant, options=request.options,
                                          seats=[game_pb2.SeatInfo(seat=i, name=s.name)
                                                 for i, s in enumerate(request.seats)]),
        )

    @map_errors
    async def GetInformationSet(self, request, context):
        self._match(request.match_id)
        self._auth(context)
        return self._infoset(request.seat, CURRENT_VERSION)

    @map_errors
    async def SubmitAction(self, request, context):
        self._match(request.match_id)
        self._auth(context)
        if request.expected_version != CURRENT_VERSION:
            raise StaleVersionError(CURRENT_VERSION)
        if request.WhichOneof("action") == "action_text" and request.action_text != "play AH":
            raise IllegalActionError(f"illegal action: {request.action_text}")
        return game_pb2.SubmitActionResponse(
            version=CURRENT_VERSION + 1,
            information_set=self._infoset(request.seat, CURRENT_VERSION + 1),
            events=[common_pb2.Event(version=CURRENT_VERSION + 1, deal_number=1,
                                     card_played=common_pb2.CardPlayed(seat=request.seat, card="AH"))],
        )

    @map_errors
    async def StreamMatch(self, request, context):
        self._match(request.match_id)
        self._auth(context)
        try:
            for v in range(request.from_version + 1, CURRENT_VERSION + 1):
                yield game_pb2.MatchUpdate(version=v, information_set=self._infoset(request.seat, v))
            if request.seat == 1:  # an endless stream: waits for events that never come
                await asyncio.Event().wait()
            if request.from_version == CURRENT_VERSION - 1:
                raise StaleVersionError(CURRENT_VERSION)  # an error after the first message
        finally:
            self.stream_closed.set()

    @map_errors
    async def GetMatchRecord(self, request, context):
        if request.match_id == SLOW:  # a handler that awaits: the client may half-close meanwhile
            await asyncio.sleep(0.3)
            return game_pb2.MatchRecord(match_id=SLOW, variant="schnapsen-at")
        self._match(request.match_id)
        return game_pb2.MatchRecord(match_id=MATCH, variant="schnapsen-at")


@pytest.fixture
async def servers():
    fake = FakeGame()
    server, port = await build_server(fake, Settings.from_env({}, host="127.0.0.1", port=0))
    await server.start()
    gateway = await start_gateway([fake], "127.0.0.1", 0)
    try:
        yield fake, port, f"http://127.0.0.1:{gateway.port}"
    finally:
        await gateway.close()
        await server.stop(None)


def _http(method: str, url: str, body: Any = None, token: str | None = TOKEN, raw: bytes | None = None):
    data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
    req = urllib.request.Request(url, data=data, method=method)
    if data is not None:
        req.add_header("Content-Type", "application/json")
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return resp.status, dict(resp.headers), resp.read()
    except urllib.error.HTTPError as err:
        return err.code, dict(err.headers), err.read()


async def http(method: str, url: str, body: Any = None, **kw: Any) -> tuple[int, dict[str, str], Any]:
    status, headers, payload = await asyncio.to_thread(_http, method, url, body, **kw)
    return status, {k.lower(): v for k, v in headers.items()}, payload


def test_compile_template() -> None:
    rx, names = compile_template("/v1/{name=shelves/*}/books/{book.id}:publish")
    assert names == ("name", "book.id")
    assert rx.match("/v1/shelves/s1/books/7:publish").groups() == ("shelves/s1", "7")
    assert rx.match("/v1/shelves/s1/x/books/7:publish") is None


async def test_get_with_path_params_and_auth_header(servers) -> None:
    _, _, base = servers
    status, headers, body = await http("GET", f"{base}/v1/matches/{MATCH}/seats/1/information-set")
    assert status == 200 and headers["content-type"] == "application/json"
    info = json.loads(body)
    assert info["match_id"] == MATCH and info["seat"] == 1 and info["version"] == str(CURRENT_VERSION)
    assert info["deal"]["phase"] == "PHASE_LEAD" and info["deal"]["hand"] == ["AH", "TS"]
    assert info["deal"]["to_act"] == 0  # default values are printed, so seat 0 is explicit


async def test_list_and_create(servers) -> None:
    _, _, base = servers
    status, _, body = await http("GET", f"{base}/v1/variants")
    assert status == 200 and json.loads(body)["variants"][0]["id"] == "schnapsen-at"
    status, _, body = await http(
        "POST", f"{base}/v1/matches",
        {"variant": "schnapsen-at", "options": {"target": "7"}, "seats": [{"name": "a"}, {"name": "b"}], "seed": "3"},
        token=None,
    )
    created = json.loads(body)
    assert status == 200 and [t["seat"] for t in created["seat_tokens"]] == [0, 1]
    assert created["summary"]["options"] == {"target": "7"} and created["summary"]["seats"][1]["name"] == "b"


async def test_post_with_json_body(servers) -> None:
    _, _, base = servers
    status, _, body = await http(
        "POST", f"{base}/v1/matches/{MATCH}/seats/0/actions", {"expected_version": CURRENT_VERSION, "action_text": "play AH"}
    )
    assert status == 200, body
    resp = json.loads(body)
    assert resp["version"] == str(CURRENT_VERSION + 1) and resp["duplicate"] is False
    assert resp["events"][0]["card_played"] == {"seat": 0, "card": "AH"}


@pytest.mark.parametrize(
    ("method", "path", "body", "token", "http_status", "code"),
    [
        ("GET", "/v1/matches/nope/record", None, TOKEN, 404, "NOT_FOUND"),
        ("POST", f"/v1/matches/{MATCH}/seats/0/actions", {"expected_version": 5, "action_text": "play KH"}, TOKEN,
         409, "FAILED_PRECONDITION"),
        ("GET", f"/v1/matches/{MATCH}/seats/0/information-set", None, "wrong", 401, "UNAUTHENTICATED"),
        ("GET", f"/v1/matches/{MATCH}/seats/0/information-set", None, None, 401, "UNAUTHENTICATED"),
        ("POST", f"/v1/matches/{MATCH}/seats/0/actions", {"expected_versionz": 5}, TOKEN, 400, "INVALID_ARGUMENT"),
        ("GET", f"/v1/matches/{MATCH}/seats/zero/information-set", None, TOKEN, 400, "INVALID_ARGUMENT"),
        ("GET", f"/v1/matches/{MATCH}/seats/0/stream?bogus=1", None, TOKEN, 400, "INVALID_ARGUMENT"),
        ("GET", "/v2/nothing", None, TOKEN, 404, "NOT_FOUND"),
        ("DELETE", "/v1/variants", None, TOKEN, 405, "UNIMPLEMENTED"),
    ],
)
async def test_errors_map_to_http(servers, method, path, body, token, http_status, code) -> None:
    _, _, base = servers
    status, _, payload = await http(method, base + path, body, token=token)
    assert status == http_status
    error = json.loads(payload)
    assert error["code"] == code and error["message"]


@pytest.mark.parametrize(
    ("path", "message"),
    [
        (f"/v1/matches/{MATCH}/seats/zero/information-set", "seat must be an integer (int32), got 'zero'"),
        (f"/v1/matches/{MATCH}/seats/1.5/information-set", "seat must be an integer (int32), got '1.5'"),
        (f"/v1/matches/{MATCH}/seats/99999999999/information-set",
         "seat must be an integer in -2147483648..2147483647 (int32), got 99999999999"),
        (f"/v1/matches/{MATCH}/seats/0/stream?from_version=soon", "from_version must be an integer (int64), got 'soon'"),
    ],
)
async def test_a_bad_path_or_query_value_names_the_field_and_the_type_expected(servers, path, message) -> None:
    """No Python internals ("invalid literal for int() with base 10") in a 400 of the API."""
    _, _, base = servers
    status, _, payload = await http("GET", base + path)
    assert status == 400
    assert json.loads(payload) == {"code": "INVALID_ARGUMENT", "message": message, "reason": "INVALID_ARGUMENT"}


def test_path_and_query_values_of_every_scalar_type_parse_or_say_what_is_expected() -> None:
    from google.protobuf import descriptor_pb2, descriptor_pool

    from bummerl.api.gateway import BadRequest, _parse_scalar

    f = descriptor_pb2.FieldDescriptorProto
    proto = descriptor_pb2.FileDescriptorProto(name="scalars_test.proto", package="scalars_test")
    enum = proto.enum_type.add(name="Color")
    for i, name in enumerate(["COLOR_UNSPECIFIED", "RED"]):
        enum.value.add(name=name, number=i)
    msg = proto.message_type.add(name="M")
    for i, (name, kind) in enumerate([("flag", f.TYPE_BOOL), ("ratio", f.TYPE_DOUBLE), ("count", f.TYPE_UINT32),
                                      ("blob", f.TYPE_BYTES), ("color", f.TYPE_ENUM)], start=1):
        msg.field.add(name=name, number=i, type=kind, label=f.LABEL_OPTIONAL,
                      type_name=".scalars_test.Color" if kind == f.TYPE_ENUM else None)
    pool = descriptor_pool.DescriptorPool()
    pool.Add(proto)
    fields = pool.FindMessageTypeByName("scalars_test.M").fields_by_name
    assert _parse_scalar(fields["flag"], "TRUE", "flag") is True and _parse_scalar(fields["ratio"], "0.5", "ratio") == 0.5
    assert _parse_scalar(fields["count"], "+7", "count") == 7 and _parse_scalar(fields["blob"], "aGk", "blob") == b"hi"
    assert _parse_scalar(fields["color"], "RED", "color") == 1 and _parse_scalar(fields["color"], "1", "color") == 1
    for name, text, message in [
        ("flag", "yes", "flag must be true or false, got 'yes'"),
        ("ratio", "half", "ratio must be a number, got 'half'"),
        ("count", "-1", "count must be an integer in 0..4294967295 (uint32), got -1"),
        ("count", "1_000", "count must be an integer (uint32), got '1_000'"),
        ("count", "\u0661", "count must be an integer (uint32), got '\u0661'"),  # an Arabic-Indic digit
        ("blob", "a", "blob must be URL-safe base64, got 'a'"),
        ("color", "BLUE", "color must be one of COLOR_UNSPECIFIED, RED, got 'BLUE'"),
        ("color", "7", "color must be one of COLOR_UNSPECIFIED, RED, got '7'"),
    ]:
        with pytest.raises(BadRequest) as err:
            _parse_scalar(fields[name], text, name)
        assert str(err.value) == message


async def test_stale_version_is_409_with_current_version(servers) -> None:
    _, _, base = servers
    status, headers, payload = await http(
        "POST", f"{base}/v1/matches/{MATCH}/seats/0/actions", {"expected_version": 2, "action_id": 3}
    )
    assert status == 409
    error = json.loads(payload)
    assert error["code"] == "ABORTED" and str(CURRENT_VERSION) in error["message"]
    assert error["metadata"] == {"current_version": str(CURRENT_VERSION)}  # the ErrorInfo's name
    assert headers["bummerl-current-version"] == str(CURRENT_VERSION)


async def test_bad_json_body(servers) -> None:
    _, _, base = servers
    status, _, payload = await http("POST", f"{base}/v1/matches/{MATCH}/seats/0/actions", raw=b"{not json")
    assert status == 400 and json.loads(payload)["code"] == "INVALID_ARGUMENT"


async def test_ndjson_stream(servers) -> None:
    fake, _, base = servers
    status, headers, payload = await http("GET", f"{base}/v1/matches/{MATCH}/seats/0/stream?from_version=2")
    assert status == 200 and headers["content-type"] == "application/x-ndjson"
    lines = [json.loads(line) for line in payload.decode().splitlines()]
    assert [line["result"]["version"] for line in lines] == ["3", "4", "5"]
    assert lines[0]["result"]["information_set"]["seat"] == 0
    assert fake.stream_closed.is_set()


async def test_ndjson_stream_error_after_first_message(servers) -> None:
    _, _, base = servers
    status, _, payload = await http("GET", f"{base}/v1/matches/{MATCH}/seats/0/stream?from_version=4")
    lines = [json.loads(line) for line in payload.decode().splitlines()]
    assert status == 200 and lines[0]["result"]["version"] == "5"
    assert lines[1] == {"error": {"code": "ABORTED", "message": lines[1]["error"]["message"], "reason": "STALE_VERSION",
                                  "metadata": {"current_version": "5"}}}


async def test_stream_error_before_first_message_is_a_status(servers) -> None:
    _, _, base = servers
    status, _, payload = await http("GET", f"{base}/v1/matches/nope/seats/0/stream")
    assert status == 404 and json.loads(payload)["code"] == "NOT_FOUND"


async def test_stream_client_disconnect_closes_the_handler(servers) -> None:
    fake, _, base = servers
    _, writer = await _open_endless_stream(int(base.rsplit(":", 1)[1]))
    assert not fake.stream_closed.is_set()
    writer.close()
    await writer.wait_closed()
    await asyncio.wait_for(fake.stream_closed.wait(), 5)


async def _open_endless_stream(port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(
        f"GET /v1/matches/{MATCH}/seats/1/stream?from_version=4 HTTP/1.1\r\nHost: x\r\n"
        f"Authorization: Bearer {TOKEN}\r\n\r\n".encode()
    )
    await writer.drain()
    head = await reader.readuntil(b"\r\n\r\n")
    assert b" 200 " in head.split(b"\r\n")[0] and b"chunked" in head.lower()
    assert b'"version":"5"' in await reader.readuntil(b"}\n")
    return reader, writer


async def test_gateway_close_ends_open_streams() -> None:
    fake = FakeGame()
    gateway = await start_gateway({"bummerl.v1.GameService": fake}, "127.0.0.1", 0)
    reader, writer = await _open_endless_stream(gateway.port)
    await asyncio.wait_for(gateway.close(), 5)
    assert fake.stream_closed.is_set()
    assert await reader.read() == b"\r\n"  # end of the open chunk, then EOF: no terminating chunk
    writer.close()


async def test_keep_alive_serves_several_requests(servers) -> None:
    _, _, base = servers
    port = int(base.rsplit(":", 1)[1])
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    for _ in range(2):
        writer.write(b"GET /v1/variants HTTP/1.1\r\nHost: x\r\n\r\n")
        await writer.drain()
        head = (await reader.readuntil(b"\r\n\r\n")).decode()
        length = int(next(h.split(":")[1] for h in head.split("\r\n") if h.lower().startswith("content-length")))
        assert json.loads(await reader.readexactly(length))["variants"]
    writer.close()
    await writer.wait_closed()


def _half_closed(port: int, data: bytes, timeout: float = 5.0) -> tuple[bytes, float]:
    """Send ``data`` on a raw socket, ``shutdown(SHUT_WR)``, read until the server closes: (all it
    answered, seconds it took)."""
    t0 = time.monotonic()
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall(data)
        sock.shutdown(socket.SHUT_WR)
        out = b""
        while chunk := sock.recv(65536):
            out += chunk
    return out, time.monotonic() - t0


def _responses(raw: bytes) -> list[tuple[int, Any]]:
    """The (status, JSON body) of each HTTP/1.1 response in ``raw`` (Content-Length framed)."""
    out = []
    while raw:
        head, _, rest = raw.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        length = int(next(v for k, _, v in (x.partition(":") for x in lines[1:]) if k.lower() == "content-length"))
        out.append((int(lines[0].split()[1]), json.loads(rest[:length])))
        raw = rest[length:]
    return out


async def test_a_request_whose_client_half_closes_is_answered(servers) -> None:
    """Issue 38: a client that sends its request and then shuts down its sending side gets the
    answer (the handler awaits meanwhile: it used to be cancelled and the request dropped), and
    the server closes the connection after it; a body or pipelined request too."""
    _, _, base = servers
    port = int(base.rsplit(":", 1)[1])
    get = f"GET /v1/matches/{SLOW}/record HTTP/1.1\r\nHost: x\r\n\r\n".encode()
    raw, took = await asyncio.to_thread(_half_closed, port, get)
    assert [(st, b["match_id"]) for st, b in _responses(raw)] == [(200, SLOW)] and took < 3
    body = json.dumps({"variant": "schnapsen-at", "seats": [{"name": "a"}, {"name": "b"}]}).encode()
    post = (f"POST /v1/matches HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n").encode() + body
    raw, _ = await asyncio.to_thread(_half_closed, port, post)
    assert [(st, b["match_id"]) for st, b in _responses(raw)] == [(200, MATCH)]
    raw, _ = await asyncio.to_thread(_half_closed, port, get + b"GET /v1/variants HTTP/1.1\r\nHost: x\r\n\r\n" + get)
    assert [st for st, _ in _responses(raw)] == [200, 200, 200]


async def test_a_body_cut_short_by_a_half_close_ends_at_once(servers) -> None:
    """The rest of the body can no longer come: taken as a client that left mid-body (499, the
    connection closed) at once, not after the body timeout (408, 10 s)."""
    _, _, base = servers
    port = int(base.rsplit(":", 1)[1])
    raw, took = await asyncio.to_thread(_half_closed, port, b"POST /v1/matches HTTP/1.1\r\nHost: x\r\n"
                                        b"Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{")
    assert raw.startswith(b"HTTP/1.1 499 ") and took < 3


# --- gRPC side: health, reflection, metrics ---------------------------------------------------


async def test_health_service(servers) -> None:
    _, port, _ = servers
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        for name in ("", "bummerl.v1.GameService"):
            resp = await stub.Check(health_pb2.HealthCheckRequest(service=name))
            assert resp.status == health_pb2.HealthCheckResponse.SERVING


async def test_reflection(servers) -> None:
    _, port, _ = servers
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub = reflection_pb2_grpc.ServerReflectionStub(channel)

        async def ask(**kw):
            call = stub.ServerReflectionInfo()
            await call.write(reflection_pb2.ServerReflectionRequest(**kw))
            await call.done_writing()
            return await call.read()

        listed = await ask(list_services="")
        names = {s.name for s in listed.list_services_response.service}
        assert {"bummerl.v1.GameService", "grpc.health.v1.Health"} <= names
        files = await ask(file_containing_symbol="bummerl.v1.GameService")
        assert files.file_descriptor_response.file_descriptor_proto


def _sample(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


async def test_grpc_metrics_and_no_secret_labels(servers) -> None:
    _, port, _ = servers
    labels = {"grpc_type": "unary", "grpc_service": "bummerl.v1.GameService", "grpc_method": "GetMatchRecord"}
    ok_before = _sample("grpc_server_handled_total", **labels, grpc_code="OK")
    nf_before = _sample("grpc_server_handled_total", **labels, grpc_code="NotFound")
    started_before = _sample("grpc_server_started_total", **labels)
    stream_labels = {**labels, "grpc_type": "server_stream", "grpc_method": "StreamMatch"}
    sent_before = _sample("grpc_server_msg_sent_total", **stream_labels)
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub = game_pb2_grpc.GameServiceStub(channel)
        await stub.GetMatchRecord(game_pb2.GetMatchRecordRequest(match_id=MATCH))
        with pytest.raises(grpc.aio.AioRpcError):
            await stub.GetMatchRecord(game_pb2.GetMatchRecordRequest(match_id="nope"))
        md = (("authorization", f"Bearer {TOKEN}"),)
        updates = [u async for u in stub.StreamMatch(game_pb2.StreamMatchRequest(match_id=MATCH, from_version=2),
                                                     metadata=md)]
        assert len(updates) == 3
    assert _sample("grpc_server_started_total", **labels) == started_before + 2
    assert _sample("grpc_server_handled_total", **labels, grpc_code="OK") == ok_before + 1
    assert _sample("grpc_server_handled_total", **labels, grpc_code="NotFound") == nf_before + 1
    assert _sample("grpc_server_handling_seconds_count", **labels) >= 2
    assert _sample("grpc_server_msg_sent_total", **stream_labels) == sent_before + 3
    exposition = generate_latest(REGISTRY).decode()
    assert MATCH not in exposition and TOKEN not in exposition and "AH" not in exposition


async def test_metrics_http_server() -> None:
    metrics.action_applied("schnapsen-at")
    port = metrics.start_metrics_server(0, "127.0.0.1")
    status, _, body = await http("GET", f"http://127.0.0.1:{port}/metrics", token=None)
    assert status == 200
    assert b'bummerl_actions_total{variant="schnapsen-at"}' in body
    assert b"grpc_server_started_total" in body


def test_metrics_multiprocess_mode(tmp_path) -> None:
    """With PROMETHEUS_MULTIPROC_DIR set, /metrics serves the aggregate of the processes' files."""
    import os
    import subprocess
    import sys

    script = (
        "import urllib.request\n"
        "from bummerl import metrics\n"
        "metrics.match_created('santase')\n"
        "metrics.set_active_matches(3)\n"
        "port = metrics.start_metrics_server(0, '127.0.0.1')\n"
        "print(urllib.request.urlopen(f'http://127.0.0.1:{port}/metrics', timeout=10).read().decode())\n"
    )
    env = {**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert 'bummerl_matches_created_total{variant="santase"} 1.0' in out.stdout
    assert "bummerl_active_matches 3.0" in out.stdout
    assert list(tmp_path.iterdir())  # values live in the shared directory



async def test_healthz_and_readyz() -> None:
    """REST liveness and readiness for load balancers: /readyz follows the readiness check (a
    Redis ping in the server), /healthz only that the process answers; SSE framing on request."""
    state = {"ok": True}

    async def ready() -> bool:
        if state["ok"] == "raise":
            raise ConnectionError("redis down")
        return bool(state["ok"])

    fake = FakeGame()
    gateway = await start_gateway([fake], "127.0.0.1", 0, ready=ready)
    base = f"http://127.0.0.1:{gateway.port}"
    try:
        status, headers, payload = await http("GET", f"{base}/healthz", token=None)
        assert status == 200 and json.loads(payload) == {"status": "ok"} and headers["cache-control"] == "no-store"
        assert (await http("GET", f"{base}/readyz", token=None))[0] == 200
        state["ok"] = False
        status, _, payload = await http("GET", f"{base}/readyz", token=None)
        assert status == 503 and json.loads(payload)["status"] == "unavailable"
        assert (await http("GET", f"{base}/healthz", token=None))[0] == 200
        state["ok"] = "raise"
        status, _, payload = await http("GET", f"{base}/readyz", token=None)
        assert status == 503 and "ConnectionError" in json.loads(payload)["message"]
    finally:
        await gateway.close()


async def test_readyz_of_the_server_pings_redis(rt) -> None:
    status, _, payload = await http("GET", f"http://127.0.0.1:{rt.http_port}/readyz", token=None)
    assert status == 200 and json.loads(payload) == {"status": "ready"}


async def test_server_sent_events_stream(servers) -> None:
    _, _, base = servers

    def get() -> tuple[str, bytes]:
        req = urllib.request.Request(f"{base}/v1/matches/{MATCH}/seats/0/stream?from_version=4",
                                     headers={"Authorization": f"Bearer {TOKEN}", "Accept": "text/event-stream"})
        with urllib.request.urlopen(req, timeout=10) as resp:
            return resp.headers["Content-Type"], resp.read()

    ctype, payload = await asyncio.to_thread(get)
    frames = payload.decode().split("\n\n")
    assert ctype == "text/event-stream"
    assert json.loads(frames[0].removeprefix("data: "))["result"]["version"] == "5"
    assert frames[1].startswith("event: error\ndata: ") and "ABORTED" in frames[1]


async def test_pages_are_served_with_a_same_origin_policy(tmp_path) -> None:
    """GET / is the pages' index.html, /web/<file> their files, with a CSP that allows only this
    origin; nothing outside the directory, no other suffix, no listing."""
    from bummerl.web import WEB_DIR

    fake = FakeGame()
    (tmp_path / "secret.txt").write_text("x")
    gateway = await start_gateway([fake], "127.0.0.1", 0, pages=WEB_DIR)
    base = f"http://127.0.0.1:{gateway.port}"
    try:
        status, headers, payload = await http("GET", f"{base}/", token=None)
        assert status == 200 and headers["content-type"].startswith("text/html") and b"/web/app.js" in payload
        assert "default-src 'self'" in headers["content-security-policy"]
        status, headers, _ = await http("GET", f"{base}/web/app.js", token=None)
        assert status == 200 and headers["content-type"].startswith("text/javascript")
        for bad in ("/web/__init__.py", "/web/../config.py", "/web/%2e%2e/config.py", "/web/", "/web/nope.js"):
            assert (await http("GET", base + bad, token=None))[0] == 404, bad
        assert (await http("GET", f"{base}/v1/variants", token=None))[0] == 200  # the API is unchanged
    finally:
        await gateway.close()

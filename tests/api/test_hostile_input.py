"""Hostile and clumsy input (issue: production face): every case gets a precise error, over REST a
JSON error body, never a dropped connection, a traceback or an unbounded resource; nothing stored
changes. A real server (gRPC and the aiohttp gateway) on loopback and a real Valkey."""

from __future__ import annotations

import asyncio
import gzip
import json
import logging
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest
from grpc_status import rpc_status

from bummerl import metrics
from bummerl.app import Runtime
from bummerl.config import Settings
from bummerl.v1 import game_pb2, game_pb2_grpc
from bummerl_client import AsyncClient, BummerlError


@pytest.fixture
async def rt(redis_url: str) -> AsyncIterator[Runtime]:
    settings = Settings.from_env({}, port=0, http_port=0, metrics_port=0, redis_url=redis_url,
                                 http_body_timeout_s=0.5, http_max_connections=20, http_cors_origins="https://ui.example")
    async with Runtime(settings, gateway_port=0) as r:
        yield r


async def raw_http(port: int, data: bytes, read_timeout: float = 5.0) -> bytes:
    """Send raw bytes, return everything the server answers until it closes (or the timeout)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(data)
    await writer.drain()
    out = b""
    try:
        while True:
            chunk = await asyncio.wait_for(reader.read(65536), read_timeout)
            if not chunk:
                break
            out += chunk
    except TimeoutError:
        pass
    finally:
        writer.close()
    return out


def parse(resp: bytes) -> tuple[int, dict[str, str], Any]:
    head, _, body = resp.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
    return int(lines[0].split()[1]), headers, json.loads(body) if body.strip().startswith(b"{") else body


def post(path: str, body: bytes, extra: str = "") -> bytes:
    return (f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n"
            f"Connection: close\r\n{extra}\r\n").encode() + body


async def test_a_body_that_never_arrives_gets_408_and_the_connection_is_closed(rt: Runtime) -> None:
    assert rt.http_port
    t0 = asyncio.get_running_loop().time()
    resp = await raw_http(rt.http_port, b"POST /v1/matches HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{", 10)
    status, _, body = parse(resp)
    assert status == 408 and body["code"] == "DEADLINE_EXCEEDED"
    assert asyncio.get_running_loop().time() - t0 < 5


@pytest.mark.parametrize("body", [b"123", b"true", b"null", b'"text"', b"[1, 2]", b"[" * 1000 + b"]" * 1000,
                                  b'{"variant": ' + b"[" * 1000 + b"]" * 1000 + b"}", b"{not json"])
async def test_bodies_that_are_not_a_request_object_are_400_json(rt: Runtime, body: bytes) -> None:
    assert rt.http_port
    status, _, out = parse(await raw_http(rt.http_port, post("/v1/matches", body)))
    assert status == 400 and out["code"] == "INVALID_ARGUMENT" and out["reason"] == "INVALID_ARGUMENT"
    assert len(out["message"]) < 400


@pytest.mark.parametrize("chunks", [b"-1\r\nabc\r\n0\r\n\r\n", b"zz\r\nabc\r\n0\r\n\r\n",
                                    b"2\r\n{}\r\n0\r\nX-Trailer: " + b"a" * 100_000 + b"\r\n\r\n"])
async def test_bad_chunked_bodies_are_400_json(rt: Runtime, chunks: bytes) -> None:
    assert rt.http_port
    req = b"POST /v1/matches HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n" + chunks
    status, _, out = parse(await raw_http(rt.http_port, req))
    assert status == 400 and isinstance(out, dict) and out["code"] == "INVALID_ARGUMENT"
    assert out["reason"] == "MALFORMED_REQUEST" and "b'" not in out["message"] and "\n" not in out["message"]


async def test_connections_over_the_cap_get_503(rt: Runtime) -> None:
    assert rt.http_port
    held = [await asyncio.open_connection("127.0.0.1", rt.http_port) for _ in range(20)]
    await asyncio.sleep(0.1)
    resp = await raw_http(rt.http_port, b"GET /v1/variants HTTP/1.1\r\nHost: x\r\n\r\n")
    status, _, out = parse(resp)
    assert status == 503 and out["reason"] == "TOO_MANY_CONNECTIONS"
    for _, w in held:
        w.close()
    await asyncio.sleep(0.2)
    status, _, _ = parse(await raw_http(rt.http_port, b"GET /v1/variants HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"))
    assert status == 200


async def test_head_options_cors_and_gzip(rt: Runtime) -> None:
    assert rt.http_port
    status, headers, _ = parse(await raw_http(rt.http_port, b"OPTIONS /v1/matches HTTP/1.1\r\nHost: x\r\n"
                                                            b"Origin: https://ui.example\r\nConnection: close\r\n\r\n"))
    assert status == 204 and "POST" in headers["allow"] and headers["access-control-allow-origin"] == "https://ui.example"
    resp = await raw_http(rt.http_port, b"HEAD /v1/variants HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    assert resp.startswith(b"HTTP/1.1 200") and resp.partition(b"\r\n\r\n")[2] == b""
    resp = await raw_http(rt.http_port, b"GET /v1/variants HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\n"
                                        b"Origin: https://evil.example\r\nConnection: close\r\n\r\n")
    head, _, body = resp.partition(b"\r\n\r\n")
    assert b"Content-Encoding: gzip" in head and b"Access-Control-Allow-Origin" not in head
    if b"Transfer-Encoding: chunked" in head:  # de-chunk
        out, rest = b"", body
        while rest:
            size, _, rest = rest.partition(b"\r\n")
            n = int(size, 16)
            if n == 0:
                break
            out, rest = out + rest[:n], rest[n + 2:]
        body = out
    assert "variants" in json.loads(gzip.decompress(body))


async def test_malformed_protobuf_is_invalid_argument_counted_and_not_logged_as_error(
        rt: Runtime, caplog: pytest.LogCaptureFixture) -> None:
    labels = ("unary", "bummerl.v1.GameService", "GetInformationSet", "InvalidArgument")
    before = metrics.GRPC_SERVER_HANDLED.labels(*labels)._value.get()
    async with grpc.aio.insecure_channel(rt.target) as ch:
        call = ch.unary_unary("/bummerl.v1.GameService/GetInformationSet",
                              request_serializer=lambda b: b, response_deserializer=lambda b: b)
        with caplog.at_level(logging.ERROR), pytest.raises(grpc.aio.AioRpcError) as e:
            await call(b"\xff\xff\xff\xff\x0f garbage")
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT and "malformed request" in (e.value.details() or "")
    from google.rpc import error_details_pb2  # the reason docs/CLIENTS.md lists for it (it had no ErrorInfo)

    st = rpc_status.from_call(e.value)
    assert st is not None
    info = error_details_pb2.ErrorInfo()
    assert st.details[0].Unpack(info) and info.reason == "MALFORMED_REQUEST" and info.domain == "bummerl.v1"
    for _ in range(200):  # the server counts the call as it ends, which may be just after the client has the status
        if metrics.GRPC_SERVER_HANDLED.labels(*labels)._value.get() > before:
            break
        await asyncio.sleep(0.01)
    assert metrics.GRPC_SERVER_HANDLED.labels(*labels)._value.get() == before + 1
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


async def test_huge_action_text_is_invalid_argument_with_a_clipped_message(rt: Runtime) -> None:
    async with AsyncClient(rt.target) as c:
        m = await c.create_match("schnapsen-at")
        with pytest.raises(BummerlError) as e:
            await c.submit_action(m.match_id, 0, m.tokens[0], 1, "play " + "Q" * 20_000)
    assert e.value.code == grpc.StatusCode.INVALID_ARGUMENT and len(e.value.details) < 1100


async def test_errors_carry_error_info_reasons_over_grpc_and_rest(rt: Runtime) -> None:
    async with AsyncClient(rt.target) as c:
        m = await c.create_match("schnapsen-at", seed=5)
        info = await c.information_set(m.match_id, 0, m.tokens[0])
        seat = int(info["deal"]["to_act"])
    async with grpc.aio.insecure_channel(rt.target) as ch:
        from bummerl.v1 import game_pb2_grpc

        stub = game_pb2_grpc.GameServiceStub(ch)

        async def reason(req: Any, token: str) -> tuple[str, dict[str, str]]:
            with pytest.raises(grpc.aio.AioRpcError) as e:
                await stub.SubmitAction(req, metadata=[("authorization", f"Bearer {token}")])
            st = rpc_status.from_call(e.value)
            assert st is not None
            from google.rpc import error_details_pb2

            ei = error_details_pb2.ErrorInfo()
            st.details[0].Unpack(ei)
            assert ei.domain == "bummerl.v1"
            return ei.reason, dict(ei.metadata)

        other = 1 - seat
        r, _ = await reason(game_pb2.SubmitActionRequest(match_id=m.match_id, seat=other, expected_version=1,
                                                         action_id=0), m.tokens[other])
        assert r == "NOT_YOUR_TURN"
        r, md = await reason(game_pb2.SubmitActionRequest(match_id=m.match_id, seat=seat, expected_version=9,
                                                          action_id=0), m.tokens[seat])
        assert r == "STALE_VERSION" and md == {"current_version": "1"}
        r, _ = await reason(game_pb2.SubmitActionRequest(match_id=m.match_id, seat=seat, expected_version=1,
                                                         action_id=40), m.tokens[seat])
        assert r == "ILLEGAL_ACTION"
    assert rt.http_port
    body = json.dumps({"expected_version": "1", "action_id": 40}).encode()
    status, _, out = parse(await raw_http(rt.http_port, post(f"/v1/matches/{m.match_id}/seats/{seat}/actions", body,
                                                             f"Authorization: Bearer {m.tokens[seat]}\r\n")))
    assert status == 409 and out["reason"] == "ILLEGAL_ACTION" and "[" not in out["message"]
    # no expected_version: a malformed request, not a stale one (it was 409 "stale expected_version")
    body = json.dumps({"action_id": 40}).encode()
    status, _, out = parse(await raw_http(rt.http_port, post(f"/v1/matches/{m.match_id}/seats/{seat}/actions", body,
                                                             f"Authorization: Bearer {m.tokens[seat]}\r\n")))
    assert status == 400 and out["reason"] == "INVALID_ARGUMENT" and "expected_version is required" in out["message"]
    # protobuf's JSON parse errors in the API's terms: snake_case fields (it listed camelCase ones),
    # a string where a SeatSpec object belongs, a map value that must be a string
    for path, req, text in (
            (f"/v1/matches/{m.match_id}/seats/{seat}/actions", {"expected_version": "1", "action": "play TC"},
             "unknown field 'action' (SubmitActionRequest); its fields: match_id, seat, expected_version, action_id, "
             "action_text"),
            ("/v1/matches", {"variant": "schnapsen-at", "seats": ["a", "b"]}, "seats[0]: expected a SeatSpec object"),
            ("/v1/matches", {"variant": "schnapsen-at", "options": {"match_target": 5}},
             "options: the value of 'match_target' must be a JSON string (e.g. \"5\", not 5), got 5")):
        status, _, out = parse(await raw_http(rt.http_port, post(path, json.dumps(req).encode(),
                                                                 f"Authorization: Bearer {m.tokens[seat]}\r\n")))
        assert status == 400 and out["message"].startswith(text) and "Id'" not in out["message"], out
    # the reasons README and docs/CLIENTS.md list for a bad table (they came back as INVALID_ARGUMENT)
    for req, want, text in (({"variant": "nope"}, "UNKNOWN_VARIANT", "unknown variant 'nope'"),
                            ({"variant": "schnapsen-at", "options": {"bogus": "1"}}, "INVALID_OPTION", "option 'bogus'")):
        status, _, out = parse(await raw_http(rt.http_port, post("/v1/matches", json.dumps(req).encode())))
        assert status == 400 and out["reason"] == want and out["message"].startswith(text), out
    with pytest.raises(BummerlError) as err:
        async with AsyncClient(rt.target) as c:
            await c.create_match("schnapsen-at", options={"marriages_per_lead": "many"})
    assert err.value.code == grpc.StatusCode.INVALID_ARGUMENT and err.value.reason == "INVALID_OPTION"


async def test_an_authorization_header_that_is_not_utf8_is_401_not_500(
        rt: Runtime, caplog: pytest.LogCaptureFixture) -> None:
    """Issue 25: aiohttp keeps such a header with surrogate escapes, which no token hash accepts:
    it was INTERNAL (500) with a traceback on every route that reads the token."""
    async with AsyncClient(rt.target) as c:
        m = await c.create_match("schnapsen-at")
    assert rt.http_port
    seat_route = f"GET /v1/matches/{m.match_id}/seats/0/information-set HTTP/1.1\r\n".encode()
    with caplog.at_level(logging.INFO):
        admin_route = (b"POST /v1/matches HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n"
                       b"Authorization: Bearer \xc3\x28\r\nConnection: close\r\n\r\n{}")
        for request in (seat_route + b"Host: x\r\nAuthorization: Bearer \xff\xfe\r\nConnection: close\r\n\r\n",
                        admin_route):
            status, headers, out = parse(await raw_http(rt.http_port, request))
            assert status == 401 and out["code"] == "UNAUTHENTICATED", out
            assert "not printable ASCII" in out["message"] and headers.get("connection") == "close"
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]


async def test_a_bad_chunk_after_the_first_is_answered_400_at_once(rt: Runtime, caplog: pytest.LogCaptureFixture) -> None:
    """Issue 25: a chunk-size error in a body the route is already reading was dropped by aiohttp's
    parser: the route waited for the rest until the body timeout (408 here, after 0.5 s; 10 s by
    default) and aiohttp logged a traceback. Now: 400 with the parser's reason, connection closed."""
    assert rt.http_port
    reader, writer = await asyncio.open_connection("127.0.0.1", rt.http_port)
    with caplog.at_level(logging.INFO):
        writer.write(b"POST /v1/matches HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n")
        await writer.drain()
        await asyncio.sleep(0.1)  # the route is reading the body now
        writer.write(b"zz\r\n\r\n")
        await writer.drain()
        resp = await asyncio.wait_for(reader.read(65536), 5)
        rest = await asyncio.wait_for(reader.read(65536), 5)
    writer.close()
    status, headers, out = parse(resp)
    assert status == 400 and out["code"] == "INVALID_ARGUMENT", out
    assert out["message"] == "malformed request body: Invalid character in chunk size"
    assert headers.get("connection") == "close" and rest == b""  # then closed, nothing else sent
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]


async def test_clients_that_leave_mid_body_leave_one_log_line_not_tracebacks(
        rt: Runtime, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 25: each client that closed its connection in the middle of a body left an ERROR with
    a traceback (ConnectionResetError out of the route). An expected fault: one INFO line per
    minute with a count, never a traceback."""
    from bummerl.api.gateway import connections  # the module whose _faults the gateway logs with

    if hasattr(connections, "_ExpectedFaults"):  # a fresh memory of what was logged
        monkeypatch.setattr(connections, "_faults", connections._ExpectedFaults())
    assert rt.http_port
    with caplog.at_level(logging.INFO):
        for head in (b"Content-Length: 100\r\n", b"Transfer-Encoding: chunked\r\n\r\n10", b"Content-Length: 50\r\n"):
            _, writer = await asyncio.open_connection("127.0.0.1", rt.http_port)
            writer.write(b"POST /v1/matches HTTP/1.1\r\nHost: x\r\n" + head + b'\r\n{"vari')
            await writer.drain()
            await asyncio.sleep(0.1)
            writer.close()
        await asyncio.sleep(0.3)
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    lines = [r for r in caplog.records if "disconnected" in r.getMessage()]
    assert len(lines) == 1 and lines[0].levelno == logging.INFO


def test_expected_faults_log_one_line_per_kind_and_interval_with_a_count(caplog: pytest.LogCaptureFixture) -> None:
    from bummerl.api.gateway import _ExpectedFaults

    now = [0.0]
    faults = _ExpectedFaults(every_s=60, clock=lambda: now[0])
    with caplog.at_level(logging.INFO, logger="bummerl.api.gateway"):
        for t in (0, 1, 2, 30):
            now[0] = t
            faults.note("client went away", "1.2.3.4")
        faults.note("other fault", "5.6.7.8")
        now[0] = 61
        faults.note("client went away", "1.2.3.4")
    got = [r.getMessage() for r in caplog.records]
    assert got == ["gateway: client went away (1.2.3.4)", "gateway: other fault (5.6.7.8)",
                   "gateway: client went away (1.2.3.4); 3 more in the last 61 s"]


async def test_a_spectator_leaving_mid_stream_is_not_an_error(rt: Runtime, caplog: pytest.LogCaptureFixture) -> None:
    """Clients that open a REST stream (the watch, NDJSON) and hang up after the first line while
    moves keep coming: an expected end of the call, never logged as an ERROR with a traceback."""
    from bummerl.bots import make_bot
    from bummerl_client import play_seat

    assert rt.http_port
    async with AsyncClient(rt.target) as c:
        m = await c.create_match("schnapsen-at", seed=3)
        caplog.set_level(logging.ERROR)

        async def hang_up() -> None:
            reader, writer = await asyncio.open_connection("127.0.0.1", rt.http_port)
            writer.write(f"GET /v1/matches/{m.match_id}/watch HTTP/1.1\r\nHost: x\r\n\r\n".encode())
            await writer.drain()
            await reader.readuntil(b"\r\n\r\n")
            await reader.readline()
            writer.transport.abort()  # gone at once, without reading the rest

        async def spectators() -> None:
            for _ in range(12):
                await hang_up()
                await asyncio.sleep(0.01)

        # bounded: the match stalled here on a cluster while the hub lost its streams (hub._shard)
        await asyncio.wait_for(asyncio.gather(spectators(), *(play_seat(c, m.match_id, s, m.tokens[s], make_bot(
            "random", seed=s)) for s in range(2))), 60)
        await asyncio.sleep(0.3)  # the gateway notices the last closed connections
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], [r.getMessage() for r in caplog.records]


@pytest.mark.parametrize(("path", "body", "message"), [
    ("actions", b'{"expected_version": "abc", "action_id": 1}', 'expected_version must be an integer (int64), got "abc"'),
    ("actions", b'{"expected_version": 1.5, "action_id": 1}', "expected_version must be an integer (int64), got 1.5"),
    ("actions", b'{"expected_version": -1, "action_id": 1}', "expected_version must be at least 1, got -1: "),
    ("actions", b'{"expected_version": 1, "action_id": 1, "action_text": "play QH"}',
     "set one of action_id and action_text, not both"),
    ("actions", b'{"expected_version": 1, "action_text": ["x"]}', 'action_text must be a string, got an array: ["x"]'),
    ("actions", b'{"expected_version": 1, "action_id": true}', "action_id must be an integer (int32), got true"),
    ("matches", b'{"variant": 5}', "variant must be a string, got a number: 5"),
    ("matches", b'{}', "variant is required; known: bauernschnapsen, "),
    ("matches", b'{"variant": "santase", "seed": "x"}', 'seed must be an integer (uint64), got "x"'),
    ("matches", b'{"variant": "santase", "seed": -1}', "seed must be an integer in 0..18446744073709551615 (uint64), got -1"),
    ("matches", b'{"variant": "santase", "seed": NaN}', "seed must be an integer (uint64), got NaN"),
    ("matches", b'{"variant": "santase", "options": ["a"]}', 'options must be an object (string keys), got an array: ["a"]'),
    ("matches", b'{"variant": "santase", "seats": "ab"}', 'seats must be an array, got a string: "ab"'),
    ("matches", b'{"variant": "santase", "seats": [{"name": 7}]}', "seats[0].name must be a string, got a number: 7"),
    ("matches", b'{"variant": "santase", "time_control": {"scope": "NOPE"}}',
     'time_control.scope must be one of TIME_CONTROL_SCOPE_UNSPECIFIED, TIME_CONTROL_SCOPE_DEAL, TIME_CONTROL_SCOPE_MATCH, '
     'got "NOPE"'),
    ("matches", b'{"variant": "santase", "time_control": 5}',
     "time_control: expected a TimeControl object with the fields "),
    ("matches", b'{"variant": "\xff"}', "body is not JSON in UTF-8 (byte 13 is not UTF-8)"),
    ("matches", '{"variant": "santase"}'.encode("utf-16"), "body is not JSON in UTF-8 (byte 0 is not UTF-8)"),
])
async def test_a_body_value_of_the_wrong_type_names_its_field_and_the_type_expected(
        rt: Runtime, path: str, body: bytes, message: str) -> None:
    """A hostile-client walkthrough: such bodies were answered in protobuf's and Python's words
    ("invalid literal for int() with base 10", "expected string or bytes-like object",
    "Couldn't parse integer", "'utf-8' codec can't decode"), or, UTF-16, parsed."""
    assert rt.http_port
    async with AsyncClient(rt.target) as c:
        m = await c.create_match("santase")
    url = f"/v1/matches/{m.match_id}/seats/0/actions" if path == "actions" else "/v1/matches"
    status, _, out = parse(await raw_http(rt.http_port, post(url, body, f"Authorization: Bearer {m.tokens[0]}\r\n")))
    assert status == 400 and out["code"] == "INVALID_ARGUMENT", out
    assert out["message"].startswith(message), out["message"]
    for internal in ("int()", "bytes-like", "Couldn't parse", "codec", "Failed to parse"):
        assert internal not in out["message"]
    async with AsyncClient(rt.target) as c:  # and the match is as it was
        assert int((await c.information_set(m.match_id, 0, m.tokens[0]))["version"]) == 1


async def test_a_body_or_query_that_contradicts_the_path_is_refused(rt: Runtime) -> None:
    """The path won in silence over a body or query naming another match or seat; repeating the
    path's own value stays allowed."""
    assert rt.http_port
    async with AsyncClient(rt.target) as c:
        m = await c.create_match("santase")
        seat = int((await c.information_set(m.match_id, 0, m.tokens[0]))["deal"]["to_act"])
        legal = (await c.information_set(m.match_id, seat, m.tokens[seat]))["legal_actions"][0]["id"]
    auth = f"Authorization: Bearer {m.tokens[seat]}\r\n"
    url = f"/v1/matches/{m.match_id}/seats/{seat}/actions"
    for req, message in (({"match_id": "zzz"}, f"match_id: the path says {m.match_id}, the body zzz (leave it out"),
                         ({"seat": 1 - seat}, f"seat: the path says {seat}, the body {1 - seat} (leave it out")):
        body = json.dumps({**req, "expected_version": 1, "action_id": legal}).encode()
        status, _, out = parse(await raw_http(rt.http_port, post(url, body, auth)))
        assert status == 400 and out["message"].startswith(message), out
    get = (f"GET /v1/matches/{m.match_id}/seats/{seat}/information-set?seat={1 - seat} HTTP/1.1\r\nHost: x\r\n{auth}"
           f"Connection: close\r\n\r\n").encode()
    status, _, out = parse(await raw_http(rt.http_port, get))
    assert status == 400 and out["message"] == f"seat: the path says {seat}, the query {1 - seat} (leave it out of the query)"
    async with AsyncClient(rt.target) as c:
        assert int((await c.information_set(m.match_id, seat, m.tokens[seat]))["version"]) == 1  # nothing applied
    body = json.dumps({"match_id": m.match_id, "seat": seat, "expected_version": 1, "action_id": legal}).encode()
    status, _, out = parse(await raw_http(rt.http_port, post(url, body, auth)))
    assert status == 200 and out["version"] == "2", out  # the same values as the path: fine


async def test_two_authorization_entries_are_refused_over_grpc_and_rest(rt: Runtime) -> None:
    """With two, the last one counted; now neither does (UNAUTHENTICATED, 401)."""
    async with AsyncClient(rt.target) as c:
        m = await c.create_match("santase")
    async with grpc.aio.insecure_channel(rt.target) as ch:
        stub = game_pb2_grpc.GameServiceStub(ch)
        with pytest.raises(grpc.aio.AioRpcError) as ei:
            await stub.GetInformationSet(game_pb2.GetInformationSetRequest(match_id=m.match_id, seat=0),
                                         metadata=(("authorization", "Bearer wrong"),
                                                   ("authorization", f"Bearer {m.tokens[0]}")))
        assert ei.value.code() == grpc.StatusCode.UNAUTHENTICATED
        assert ei.value.details() == "2 authorization headers; send one: Bearer <token>"
    assert rt.http_port
    get = (f"GET /v1/matches/{m.match_id}/seats/0/information-set HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer wrong\r\n"
           f"Authorization: Bearer {m.tokens[0]}\r\nConnection: close\r\n\r\n").encode()
    status, _, out = parse(await raw_http(rt.http_port, get))
    assert status == 401 and out["code"] == "UNAUTHENTICATED" and "2 authorization headers" in out["message"]

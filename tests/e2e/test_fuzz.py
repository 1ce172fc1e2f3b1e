"""A fuzz campaign (hypothesis) over gRPC and REST against a real ``bummerl serve`` on a real
Valkey: no call is ever answered INTERNAL/UNKNOWN (gRPC) or 5xx (REST), every REST error is the
JSON error body, and every rejected call leaves the stored matches byte-identical (state hash,
event stream, deadline, active set)."""

from __future__ import annotations

import http.client
import json
import string
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import grpc
import pytest
import redis
from e2e_servers import free_port, start_server
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bummerl.store import keys
from bummerl.v1 import game_pb2, game_pb2_grpc
from bummerl_client import Client

LAYOUT = keys.KeyLayout()
"""The key layout of the server under test: a single node, one shard."""

BAD_GRPC = {grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN}
FUZZ = settings(max_examples=200, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


@dataclass
class Target:
    grpc_target: str
    http_port: int
    redis: redis.Redis
    matches: list[tuple[str, list[str]]]  # (match id, seat tokens)
    stub: game_pb2_grpc.GameServiceStub

    def snapshot(self) -> list[Any]:
        """Everything stored for the fuzzed matches, raw bytes."""
        out: list[Any] = []
        for match_id, _ in self.matches:
            state, events, deadlines, active, _feed = LAYOUT.shard_keys(match_id)
            out += [self.redis.hgetall(state), self.redis.xrange(events), self.redis.zscore(deadlines, match_id),
                    self.redis.sismember(active, match_id)]
        return out


@pytest.fixture(scope="module")
def target(redis_url: str) -> Iterator[Target]:
    port, http_port = free_port(), free_port()
    proc: subprocess.Popen[str] = start_server(redis_url, port, "--http-port", str(http_port))
    channel = grpc.insecure_channel(f"127.0.0.1:{port}")
    r = redis.Redis.from_url(redis_url)
    try:
        with Client(f"127.0.0.1:{port}") as c:
            created = [c.create_match(v, seed=7) for v in ("schnapsen-at", "santase", "snaps-original66")]
        yield Target(f"127.0.0.1:{port}", http_port, r, [(m.match_id, list(m.tokens)) for m in created],
                     game_pb2_grpc.GameServiceStub(channel))
    finally:
        channel.close()
        r.close()
        proc.terminate()
        proc.wait(20)


printable = st.text(alphabet=string.printable, max_size=40)
int64ish = st.one_of(st.integers(-3, 8), st.integers(-(2**63), 2**63 - 1))
int32ish = st.one_of(st.integers(-3, 4), st.integers(-(2**31), 2**31 - 1))


def _token(draw: st.DrawFn, tokens: list[str]) -> str:
    return draw(st.one_of(st.sampled_from(tokens), st.text(alphabet=string.ascii_letters + string.digits + "._-",
                                                            max_size=60)))


@st.composite
def grpc_calls(draw: st.DrawFn, t: Target) -> tuple[str, Any, str]:
    idx = draw(st.integers(0, len(t.matches) - 1))
    match_id = draw(st.one_of(st.just(t.matches[idx][0]), printable))
    token = _token(draw, t.matches[idx][1])
    seat = draw(int32ish)
    kind = draw(st.sampled_from(["submit", "info", "resign", "record", "create"]))
    if kind == "submit":
        req = game_pb2.SubmitActionRequest(match_id=match_id, seat=seat, expected_version=draw(int64ish))
        which = draw(st.sampled_from(["id", "text", "none"]))
        if which == "id":
            req.action_id = draw(int32ish)
        elif which == "text":
            req.action_text = draw(st.one_of(printable, st.sampled_from(["play QH", "close", "exchange", "marriage KH",
                                                                         "declare", "play " + "Q" * 5000])))
        return "SubmitAction", req, token
    if kind == "info":
        return "GetInformationSet", game_pb2.GetInformationSetRequest(match_id=match_id, seat=seat), token
    if kind == "resign":
        # a valid resignation would end the match: keep the real token only with a wrong seat or id
        if token in t.matches[idx][1] and match_id == t.matches[idx][0] and 0 <= seat <= 1:
            seat = 7
        return "Resign", game_pb2.ResignRequest(match_id=match_id, seat=seat, reason=draw(printable)), token
    if kind == "record":
        return "GetMatchRecord", game_pb2.GetMatchRecordRequest(match_id=match_id), token
    req = game_pb2.CreateMatchRequest(variant=draw(st.one_of(printable, st.just("schnapsen-at"))))
    for _ in range(draw(st.integers(0, 2))):
        req.options[draw(printable)] = draw(printable)
    for name in draw(st.lists(st.text(max_size=80), max_size=4)):
        req.seats.add(name=name)
    return "CreateMatch", req, token


@given(data=st.data())
@FUZZ
def test_fuzz_grpc_never_internal_and_rejections_change_nothing(target: Target, data: st.DataObject) -> None:
    method, req, token = data.draw(grpc_calls(target))
    before = target.snapshot()
    try:
        getattr(target.stub, method)(req, metadata=[("authorization", f"Bearer {token}")], timeout=10)
    except grpc.RpcError as e:
        assert e.code() not in BAD_GRPC, (method, e.code(), e.details())
        assert len(e.details() or "") < 1100
        assert target.snapshot() == before, (method, e.code(), e.details())


@given(payload=st.binary(max_size=200), method=st.sampled_from(
    ["SubmitAction", "GetInformationSet", "Resign", "CreateMatch", "GetMatchRecord", "ListVariants"]))
@FUZZ
def test_fuzz_grpc_raw_bytes_are_invalid_argument_or_handled(target: Target, payload: bytes, method: str) -> None:
    channel = grpc.insecure_channel(target.grpc_target)
    try:
        raw = channel.unary_unary(f"/bummerl.v1.GameService/{method}", request_serializer=lambda b: b,
                                  response_deserializer=lambda b: b)
        before = target.snapshot()
        try:
            raw(payload, timeout=10)
        except grpc.RpcError as e:
            assert e.code() not in BAD_GRPC, (method, e.code(), e.details())
            assert target.snapshot() == before
    finally:
        channel.close()


json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(allow_nan=False), printable),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(printable, inner, max_size=4)),
    max_leaves=12,
)
FIELDS = ["expected_version", "action_id", "action_text", "match_id", "seat", "reason", "variant", "options", "seats",
          "seed", "time_control", "timeout_policy"]


@st.composite
def http_calls(draw: st.DrawFn, t: Target) -> tuple[str, str, bytes, dict[str, str]]:
    idx = draw(st.integers(0, len(t.matches) - 1))
    match_id, tokens = t.matches[idx]
    mid = draw(st.one_of(st.just(match_id), st.text(alphabet=string.ascii_letters + "%{}~.-", min_size=1, max_size=20)))
    seat = draw(st.one_of(st.sampled_from(["0", "1", "2", "-1", "x", "99999999999"])))
    path = draw(st.sampled_from([f"/v1/matches/{mid}/seats/{seat}/actions", f"/v1/matches/{mid}/seats/{seat}/resign",
                                 f"/v1/matches/{mid}/seats/{seat}/information-set", f"/v1/matches/{mid}/record",
                                 "/v1/matches", "/v1/variants", f"/v1/{mid}"]))
    method = draw(st.sampled_from(["GET", "POST", "PUT", "DELETE", "HEAD", "OPTIONS"]))
    if draw(st.booleans()):
        body = json.dumps(draw(st.dictionaries(st.sampled_from(FIELDS), json_values, max_size=4))).encode()
    else:
        body = draw(st.one_of(st.binary(max_size=100), st.just(b"[" * 500), json_values.map(lambda v: json.dumps(v).encode())))
    headers = {"Authorization": f"Bearer {_token(draw, tokens)}", "Content-Type": "application/json"}
    if path.endswith("/resign") and method == "POST" and match_id in path and seat in ("0", "1"):
        headers["Authorization"] = "Bearer wrong"  # keep the matches alive: a real resignation would end one
    return method, path, body, headers


@given(data=st.data())
@FUZZ
def test_fuzz_rest_never_5xx_errors_are_json_and_rejections_change_nothing(target: Target, data: st.DataObject) -> None:
    method, path, body, headers = data.draw(http_calls(target))
    before = target.snapshot()
    conn = http.client.HTTPConnection("127.0.0.1", target.http_port, timeout=15)
    try:
        conn.request(method, path, body=body if method not in ("GET", "HEAD") or body else None, headers=headers)
        resp = conn.getresponse()
        payload = resp.read()
    finally:
        conn.close()
    assert resp.status < 500, (method, path, resp.status, payload[:300])
    if resp.status >= 400:
        if method != "HEAD":
            err = json.loads(payload)
            assert isinstance(err, dict) and err["code"] and err["reason"] and isinstance(err["message"], str)
        assert target.snapshot() == before, (method, path, resp.status, payload[:300])

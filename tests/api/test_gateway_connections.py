"""The gateway's connection caps (issue 38): idle connections from one address must not lock every
other client out. A connection beyond the per-address cap gets 503 with a JSON error while other
addresses are answered as usual, and a connection that sends no request head is closed after the
head timeout. Only loopback addresses (127.0.0.0/8) are used."""

from __future__ import annotations

import asyncio
import json
import socket
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest

from bummerl.api.gateway import Gateway, start_gateway
from bummerl.app import Runtime
from bummerl.config import Settings
from bummerl.v1 import common_pb2, game_pb2, game_pb2_grpc

GET_VARIANTS = b"GET /v1/variants HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"


class FakeGame(game_pb2_grpc.GameServiceServicer):
    async def ListVariants(self, request: Any, context: Any) -> game_pb2.ListVariantsResponse:
        return game_pb2.ListVariantsResponse(variants=[common_pb2.VariantInfo(id="schnapsen-at", num_players=2)])


@pytest.fixture
async def gateway() -> AsyncIterator[Gateway]:
    gw = await start_gateway([FakeGame()], "127.0.0.1", 0, max_connections=1000, max_connections_per_address=5,
                             head_timeout_s=30.0)
    try:
        yield gw
    finally:
        await gw.close()


def _exchange(port: int, source: str, request: bytes | None = GET_VARIANTS, timeout: float = 5.0,
              refusal_wait: float = 0.3) -> bytes:
    """Connect from ``source``, read what the server sends at once (a refusal) for up to
    ``refusal_wait`` seconds (0: do not wait), then send ``request``; return everything answered
    until the server closes."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout, source_address=(source, 0)) as sock:
        out = b""
        if refusal_wait > 0:
            sock.settimeout(refusal_wait)
            try:
                out = sock.recv(65536)  # a connection over a cap is answered before it sends anything
            except TimeoutError:
                pass
        sock.settimeout(timeout)
        if not out and request is not None:
            sock.sendall(request)
        try:
            while chunk := sock.recv(65536):
                out += chunk
        except ConnectionResetError:
            pass
        return out


def _parse(resp: bytes) -> tuple[int, dict[str, str], Any]:
    head, _, body = resp.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
    return int(lines[0].split()[1]), headers, json.loads(body) if body.strip().startswith(b"{") else body


async def _idle(port: int, n: int) -> list[socket.socket]:
    socks = [socket.create_connection(("127.0.0.1", port), source_address=("127.0.0.1", 0)) for _ in range(n)]
    await asyncio.sleep(0.2)  # the gateway accepts them
    return socks


async def test_idle_connections_of_one_address_do_not_lock_out_others(gateway: Gateway) -> None:
    held = await _idle(gateway.port, 5)  # the per-address cap of 127.0.0.1, all idle
    try:
        status, _, body = _parse(await asyncio.to_thread(_exchange, gateway.port, "127.0.0.2"))
        assert status == 200 and body["variants"][0]["id"] == "schnapsen-at"  # another address: served
        status, headers, body = _parse(await asyncio.to_thread(_exchange, gateway.port, "127.0.0.1"))
        assert status == 503 and headers["retry-after"] == "1" and headers["content-type"] == "application/json"
        assert body["code"] == "UNAVAILABLE" and body["reason"] == "TOO_MANY_CONNECTIONS"
    finally:
        for s in held:
            s.close()
    await asyncio.sleep(0.2)  # their slots are free again
    status, _, _ = _parse(await asyncio.to_thread(_exchange, gateway.port, "127.0.0.1"))
    assert status == 200


async def test_a_connection_that_sends_no_request_is_closed_after_the_head_timeout() -> None:
    gw = await start_gateway([FakeGame()], "127.0.0.1", 0, head_timeout_s=0.3)
    try:
        with socket.create_connection(("127.0.0.1", gw.port), timeout=5) as sock:
            t0 = time.monotonic()
            try:
                data = await asyncio.to_thread(sock.recv, 1024)
            except ConnectionResetError:
                data = b""
            assert data == b"" and time.monotonic() - t0 < 3  # closed, long before aiohttp's 75 s keep-alive
        with socket.create_connection(("127.0.0.1", gw.port), timeout=5) as sock:  # a partial head: closed too
            sock.sendall(b"GET /v1/variants HTTP/1.1\r\nHost: x\r\n")
            t0 = time.monotonic()
            data = await asyncio.to_thread(sock.recv, 1024)
            assert data == b"" and time.monotonic() - t0 < 3
        # a request sent in time (at once, not after waiting for a refusal as long as the head timeout)
        status, _, _ = _parse(await asyncio.to_thread(_exchange, gw.port, "127.0.0.1", refusal_wait=0))
        assert status == 200
    finally:
        await gw.close()


def test_settings_of_the_per_address_cap_and_head_timeout() -> None:
    s = Settings.from_env({})
    assert s.http_max_connections_per_address == 64 and s.http_head_timeout_s == 10.0
    s = Settings.from_env({"BUMMERL_HTTP_MAX_CONNECTIONS_PER_ADDRESS": "8", "BUMMERL_HTTP_HEAD_TIMEOUT_S": "2.5"})
    assert s.http_max_connections_per_address == 8 and s.http_head_timeout_s == 2.5
    with pytest.raises(ValueError):
        Settings.from_env({}, http_max_connections_per_address=-1)


def test_the_503_of_both_caps_is_answered_on_uvloop() -> None:
    """The server runs on uvloop, whose TCP transports are not ``asyncio.WriteTransport``
    subclasses: the 503 (per-address and global cap) must still be written, not fail an assertion
    and leave the client with a reset."""
    uvloop = pytest.importorskip("uvloop")

    async def main() -> None:
        gw = await start_gateway([FakeGame()], "127.0.0.1", 0, max_connections=4, max_connections_per_address=2,
                                 head_timeout_s=30.0)
        try:
            held = await _idle(gw.port, 2)
            status, _, body = _parse(await asyncio.to_thread(_exchange, gw.port, "127.0.0.1"))
            assert status == 503 and body["reason"] == "TOO_MANY_CONNECTIONS"  # the per-address cap
            held += [socket.create_connection(("127.0.0.1", gw.port), source_address=("127.0.0.3", 0)) for _ in range(2)]
            await asyncio.sleep(0.2)
            status, _, body = _parse(await asyncio.to_thread(_exchange, gw.port, "127.0.0.4"))
            assert status == 503 and body["reason"] == "TOO_MANY_CONNECTIONS"  # the global cap
            for s in held:
                s.close()
        finally:
            await gw.close()

    uvloop.run(main())


async def test_the_server_runs_its_gateway_with_the_configured_caps(redis_url: str) -> None:
    """``BUMMERL_HTTP_MAX_CONNECTIONS_PER_ADDRESS`` / ``BUMMERL_HTTP_HEAD_TIMEOUT_S`` reach the
    gateway that ``bummerl serve`` starts (bummerl.app.Runtime), not only its defaults."""
    settings = Settings.from_env({"BUMMERL_HTTP_MAX_CONNECTIONS_PER_ADDRESS": "3", "BUMMERL_HTTP_HEAD_TIMEOUT_S": "2.5"},
                                 port=0, http_port=0, metrics_port=0, redis_url=redis_url)
    async with Runtime(settings, gateway_port=0) as rt:
        assert rt.gateway is not None
        assert (rt.gateway.max_connections_per_address, rt.gateway.head_timeout_s) == (3, 2.5)

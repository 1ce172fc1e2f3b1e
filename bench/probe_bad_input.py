"""Probe a running-from-scratch server with the hostile input of the production-face issue and
print, per case, how many requests were tried and how many failed (a failure: no response, a
dropped connection, a 5xx, a non-JSON REST error, UNKNOWN/INTERNAL over gRPC, or a call that
should have been served and was not).

    python bench/probe_bad_input.py            # starts `bummerl serve` with an embedded Valkey
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import time
from typing import Any

import grpc

from bummerl.v1 import game_pb2, game_pb2_grpc
from bummerl_client import AsyncClient, BummerlError


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def raw(port: int, data: bytes, timeout: float = 15.0) -> bytes:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(data)
    out = b""
    try:
        while True:
            chunk = await asyncio.wait_for(reader.read(65536), timeout)
            if not chunk:
                break
            out += chunk
    except (TimeoutError, ConnectionError):
        pass
    finally:
        writer.close()
    return out


def json_error(resp: bytes, status: int = 400) -> bool:
    head, _, body = resp.partition(b"\r\n\r\n")
    if not head.startswith((f"HTTP/1.1 {status}".encode(), f"HTTP/1.0 {status}".encode())):
        return False
    try:
        return isinstance(json.loads(body), dict)
    except ValueError:
        return False


def post(body: bytes, chunked: bool = False) -> bytes:
    if chunked:
        return b"POST /v1/matches HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n" + body
    return (f"POST /v1/matches HTTP/1.1\r\nHost: x\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n"
            .encode() + body)


async def probe(grpc_port: int, http_port: int) -> list[tuple[str, int, int]]:
    rows: list[tuple[str, int, int]] = []
    target = f"127.0.0.1:{grpc_port}"

    # 1. 500 connections send headers and never the body; gRPC must keep working meanwhile
    held = []
    for _ in range(500):
        r, w = await asyncio.open_connection("127.0.0.1", http_port)
        w.write(b"POST /v1/matches HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{")
        held.append((r, w))
    async with AsyncClient(target) as c:
        t0 = time.perf_counter()
        ok = 0
        for _ in range(20):
            try:
                await asyncio.wait_for(c.list_variants(), 2)
                ok += 1
            except Exception:  # noqa: BLE001
                pass
        rows.append(("gRPC calls while 500 bodies hang", 20, 20 - ok))
    answered = 0
    for r, w in held:
        try:
            data = await asyncio.wait_for(r.read(65536), 15)
            answered += data.startswith(b"HTTP/1.1 408") or data.startswith(b"HTTP/1.1 503")
        except (TimeoutError, ConnectionError):
            pass
        w.close()
    rows.append((f"hanging bodies answered 408/503 (in {time.perf_counter() - t0:.0f} s)", 500, 500 - answered))

    # 2. bodies that are not a request object, deep JSON, bad chunks
    bodies = [post(b) for b in (b"123", b"true", b"null", b"[" * 1000 + b"]" * 1000, b"{bad")]
    bodies += [post(b"-1\r\nabc\r\n0\r\n\r\n", True), post(b"2\r\n{}\r\n0\r\nX-T: " + b"a" * 100_000 + b"\r\n\r\n", True)]
    fails = sum([not json_error(await raw(http_port, b)) for b in bodies])
    rows.append(("REST bad bodies -> 400 JSON", len(bodies), fails))

    async with grpc.aio.insecure_channel(target) as ch:
        # 3. malformed protobuf bytes
        call = ch.unary_unary("/bummerl.v1.GameService/SubmitAction", request_serializer=lambda b: b,
                              response_deserializer=lambda b: b)
        fails = 0
        for payload in (b"\xff\xff\xff\xff\x0f", b"\x0a\xff", os.urandom(64)):
            try:
                await call(payload)
                fails += 1
            except grpc.aio.AioRpcError as e:
                fails += e.code() != grpc.StatusCode.INVALID_ARGUMENT
        rows.append(("gRPC malformed protobuf -> INVALID_ARGUMENT", 3, fails))
        stub = game_pb2_grpc.GameServiceStub(ch)
        async with AsyncClient(target) as c:
            m = await c.create_match("schnapsen-at", seed=1)
            # 4. a 20 KB action_text
            try:
                await stub.SubmitAction(game_pb2.SubmitActionRequest(match_id=m.match_id, seat=0, expected_version=1,
                                                                     action_text="play " + "Q" * 20_000),
                                        metadata=[("authorization", f"Bearer {m.tokens[0]}")])
                fails = 1
            except grpc.aio.AioRpcError as e:
                fails = int(e.code() != grpc.StatusCode.INVALID_ARGUMENT)
            rows.append(("20 KB action_text -> INVALID_ARGUMENT", 1, fails))

            # 5. 150 concurrent StreamMatch calls (75 matches x 2 seats)
            ms = [await c.create_match("schnapsen-at", seed=i) for i in range(75)]

            async def first_update(mid: str, seat: int, token: str) -> bool:
                try:
                    async for _ in c.stream(mid, seat, token):
                        return True
                except BummerlError:
                    return False
                return False

            got = await asyncio.gather(*(first_update(x.match_id, s, x.tokens[s]) for x in ms for s in (0, 1)))
            rows.append(("150 concurrent StreamMatch", 150, got.count(False)))

            # 6. one token holder opens 100 streams; another player's stream must still open
            holder = ms[0]
            streams = [c.stream(holder.match_id, 0, holder.tokens[0]) for _ in range(100)]
            opened: list[Any] = []
            refused = 0
            for s in streams:
                try:
                    await asyncio.wait_for(s.__anext__(), 5)
                    opened.append(s)
                except BummerlError as e:
                    refused += e.code == grpc.StatusCode.RESOURCE_EXHAUSTED
            other_ok = await first_update(ms[1].match_id, 1, ms[1].tokens[1])
            rows.append((f"100 streams of one seat token: {len(opened)} open, {refused} RESOURCE_EXHAUSTED; "
                         "another player's stream opens", 1, int(not other_ok)))
            for s in opened:
                await s.aclose()
    return rows


def main() -> int:
    port, http_port = free_port(), free_port()
    env = {k: v for k, v in os.environ.items() if k != "BUMMERL_REDIS_URL"}
    env["BUMMERL_HTTP_BODY_TIMEOUT_S"] = "2"
    proc = subprocess.Popen([sys.executable, "-m", "bummerl_cli", "serve", "--port", str(port), "--http-port",
                             str(http_port), "--metrics-port", "0", "--ephemeral"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, env=env)
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            if "gRPC listening" in line:
                break
        rows = asyncio.run(probe(port, http_port))
    finally:
        proc.terminate()
        out, _ = proc.communicate(timeout=30)
    tracebacks = out.count("Traceback")
    width = max(len(r[0]) for r in rows)
    print(f"{'case':<{width}}  tried  failures")
    for name, tried, failed in rows:
        print(f"{name:<{width}}  {tried:>5}  {failed:>8}")
    print(f"server log: {tracebacks} tracebacks")
    return 0 if not any(r[2] for r in rows) and not tracebacks else 1


if __name__ == "__main__":
    sys.exit(main())

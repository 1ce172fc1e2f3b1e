"""``bummerl bench idle-connections``: issue 38's hostile client, measured. One address
(127.0.0.1) opens N idle TCP connections to the REST gateway and sends nothing; meanwhile another
address (127.0.0.2) makes plain requests. Before the per-address cap, 1,010 idle connections made
every other client's connection reset for 72 s; now the idle ones beyond the cap get 503 at once,
the others are closed after the head timeout, and the other address is served as usual."""

from __future__ import annotations

import asyncio
import socket
import statistics
import time
from typing import Any

GET = b"GET /v1/variants HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"


def _request(port: int, source: str) -> tuple[int, float]:
    """(HTTP status, 0 for a reset or no answer; seconds) of one GET from ``source``."""
    t0 = time.perf_counter()
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(source, 0)) as s:
            s.sendall(GET)
            data = b""
            while chunk := s.recv(65536):
                data += chunk
        status = int(data.split(b" ", 2)[1]) if data.startswith(b"HTTP/") else 0
    except OSError:
        status = 0
    return status, time.perf_counter() - t0


async def bench_idle_connections(idle: int = 1010, requests: int = 200, head_timeout_s: float = 10.0) -> dict[str, Any]:
    """Open ``idle`` connections from 127.0.0.1 to a server of this process (its own embedded
    Valkey), then make ``requests`` GET /v1/variants from 127.0.0.2, one after another. Returns
    ``{"idle", "idle_refused_503", "idle_open", "other_ok", "other_failed", "other_p50_ms",
    "other_p99_ms"}``."""
    from bummerl.app import Runtime
    from bummerl.config import Settings

    settings = Settings.from_env({}, port=0, http_port=0, metrics_port=0, http_head_timeout_s=head_timeout_s)
    async with Runtime(settings, gateway_port=0) as rt:
        port = rt.http_port
        assert port is not None

        def open_idle() -> list[socket.socket]:
            socks = []
            for _ in range(idle):
                try:
                    socks.append(socket.create_connection(("127.0.0.1", port), timeout=5,
                                                          source_address=("127.0.0.1", 0)))
                except OSError:
                    break
            return socks

        socks = await asyncio.to_thread(open_idle)
        await asyncio.sleep(0.5)

        def refused() -> int:
            n = 0
            for s in socks:
                s.settimeout(0.01)
                try:
                    n += s.recv(64).startswith(b"HTTP/1.1 503")
                except OSError:
                    pass
            return n

        got = [await asyncio.to_thread(_request, port, "127.0.0.2") for _ in range(requests)]
        n503 = await asyncio.to_thread(refused)
        for s in socks:
            s.close()
    ok = [t for status, t in got if status == 200]
    times = sorted(ok) or [0.0]
    return {"idle": len(socks), "idle_refused_503": n503, "other_ok": len(ok), "other_failed": len(got) - len(ok),
            "other_p50_ms": round(statistics.median(times) * 1000, 2),
            "other_p99_ms": round(times[min(len(times) - 1, int(len(times) * 0.99))] * 1000, 2)}


def report(r: dict[str, Any]) -> str:
    return (f"{r['idle']} idle connections from 127.0.0.1 ({r['idle_refused_503']} answered 503 at once); "
            f"127.0.0.2 meanwhile: {r['other_ok']} requests served, {r['other_failed']} failed, "
            f"p50 {r['other_p50_ms']} ms, p99 {r['other_p99_ms']} ms")

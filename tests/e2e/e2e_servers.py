"""Server processes for end-to-end tests: a free loopback port and ``bummerl serve`` on a given
Redis, so that a test can kill a server and start another on the same port and Redis;
:func:`serve`, a ``bummerl serve`` with its start-up lines, terminated at the end; and
:func:`spawn_server` (from :mod:`bummerl_bench.servers`), a ``bummerl serve`` on its own embedded
Valkey, yielding its address."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

from bummerl_bench.servers import spawn_server

__all__ = ["free_port", "serve", "spawn_server", "start_server"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(redis_url: str, port: int, *extra: str) -> subprocess.Popen[str]:
    """``bummerl serve --port PORT`` on ``redis_url`` (no gateway, no metrics); returns once it
    listens. Raises RuntimeError if it exits first."""
    env = dict(os.environ, BUMMERL_REDIS_URL=redis_url)
    proc = subprocess.Popen([sys.executable, "-m", "bummerl_cli", "serve", "--port", str(port), "--http-port", "0",
                             "--metrics-port", "0", *extra], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, env=env)
    assert proc.stdout is not None
    for line in proc.stdout:
        if "gRPC listening" in line:
            return proc
    raise RuntimeError("the server did not start")


@contextmanager
def server_fleet(redis_url: str, count: int) -> Iterator[tuple[list[int], list[subprocess.Popen[str]]]]:
    """``count`` servers on their own free ports and one Redis; yields ``(ports, processes)``.
    A test may replace or append processes (e.g. a restart after ``kill -9``); every process in
    the list is killed on exit."""
    ports = [free_port() for _ in range(count)]
    procs = [start_server(redis_url, p) for p in ports]
    try:
        yield ports, procs
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
            p.wait()


@contextmanager
def serve(args: list[str], env: dict[str, str]) -> Iterator[tuple[subprocess.Popen[str], list[str]]]:
    """Start ``bummerl serve``; yield (process, stdout lines up to 'gRPC listening'), or the
    whole output if it exited first."""
    proc = subprocess.Popen([sys.executable, "-m", "bummerl_cli", "serve", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, env=env)
    lines: list[str] = []
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.append(line.rstrip("\n"))
            if "gRPC listening" in line or "REST/JSON" in line and len(lines) > 1:
                break
        if proc.poll() is None:
            time.sleep(0.3)  # let the REST line follow
        yield proc, lines
    finally:
        if proc.poll() is None:
            proc.terminate()
            proc.wait(20)

"""Server processes for end-to-end tests: a free loopback port and ``bummerl serve`` on a given
Redis, so that a test can kill a server and start another on the same port and Redis."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(redis_url: str, port: int, *extra: str) -> subprocess.Popen[str]:
    """``bummerl serve --port PORT`` on ``redis_url`` (no gateway, no metrics); returns once it
    listens. Raises RuntimeError if it exits first."""
    env = dict(os.environ, BUMMERL_REDIS_URL=redis_url)
    proc = subprocess.Popen([sys.executable, "-m", "bummerl", "serve", "--port", str(port), "--http-port", "0",
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

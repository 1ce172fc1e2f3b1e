"""Server processes for the benchmarks (and the end-to-end tests): :func:`spawn_server`, a
``bummerl serve`` in a subprocess on port 0, yielding its gRPC address once it listens."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

__all__ = ["spawn_server"]


@contextmanager
def spawn_server(extra_args: Sequence[str] = (), own_redis: bool = True) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """Run ``bummerl serve --port 0`` (no gateway, no metrics) in a subprocess; yield
    ``(process, "host:port")`` once it listens; SIGTERM and wait (20 s) on exit. ``own_redis``
    drops ``BUMMERL_REDIS_URL`` so that the server starts its own embedded Valkey.
    Raises RuntimeError if the server exits before listening."""
    env = dict(os.environ)
    if own_redis:
        env.pop("BUMMERL_REDIS_URL", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "bummerl_cli", "serve", "--port", "0", "--http-port", "0", "--metrics-port", "0",
         *extra_args],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
    )
    try:
        assert proc.stdout is not None
        target = None
        for line in proc.stdout:
            m = re.search(r"gRPC listening on (\S+)", line)
            if m:
                target = m.group(1)
                break
        if target is None:
            raise RuntimeError("bummerl serve exited before listening")
        yield proc, target
    finally:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()

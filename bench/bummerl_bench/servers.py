"""Server processes for the benchmarks (and the end-to-end tests): :func:`spawn_server`, a
``bummerl serve`` in a subprocess on port 0, yielding its gRPC address once it listens."""

from __future__ import annotations

import collections
import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager

__all__ = ["spawn_server"]


@contextmanager
def spawn_server(extra_args: Sequence[str] = (), own_redis: bool = True, *,
                 drain: collections.deque[str] | None = None,
                 env_extra: Mapping[str, str] | None = None) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """Run ``bummerl serve --port 0`` (no gateway, no metrics) in a subprocess; yield
    ``(process, "host:port")`` once it listens; SIGTERM and wait (20 s) on exit. ``own_redis``
    drops ``BUMMERL_REDIS_URL`` so that the server starts its own embedded Valkey.
    ``drain``: a thread reads the server's output after the listening line into this deque (give
    it a ``maxlen``), so that a server that logs much under a long load never blocks on a full
    pipe; without it the output is left unread. ``env_extra``: settings (``BUMMERL_...``) for this
    server on top of the environment.
    Raises RuntimeError if the server exits before listening."""
    env = {**os.environ, **(env_extra or {})}
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
        seen: collections.deque[str] = collections.deque(maxlen=20)
        for line in proc.stdout:
            seen.append(line)
            m = re.search(r"gRPC listening on (\S+)", line)
            if m:
                target = m.group(1)
                break
        if target is None:
            raise RuntimeError("bummerl serve exited before listening: " + "".join(seen)[-2000:])
        if drain is not None:
            out, lines = proc.stdout, drain
            threading.Thread(target=lambda: lines.extend(out), name="spawn-server-drain", daemon=True).start()
        yield proc, target
    finally:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()

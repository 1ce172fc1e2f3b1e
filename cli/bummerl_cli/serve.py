"""``bummerl serve``: the gRPC server, the REST gateway with the web pages and the Prometheus
metrics, on a Redis (``--redis-url``) or an embedded Valkey; ``--workers N`` runs N server
processes on the same ports and Redis, ``--demo`` plays one match between bundled bots first.

    bummerl serve [--port 50051] [--http-port 8080] [--metrics-port 9095] [--redis-url URL]
                  [--data-dir DIR | --ephemeral] [--demo greedy,random] [--variant schnapsen-at]

Without ``--redis-url`` (or ``BUMMERL_REDIS_URL``) the server starts an embedded Valkey that keeps its
data (append-only file) in ``--data-dir``, by default ``$XDG_DATA_HOME/bummerl`` or
``~/.local/share/bummerl``; ``--ephemeral`` (and ``--demo`` without ``--data-dir``) keeps nothing.
It says which at start-up.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Coroutine, Iterator
from typing import Any

from bummerl import metrics
from bummerl.app import GcPacer, Runtime, configure_logging, loop_factory, loop_name, tune_gc
from bummerl.config import Settings, default_data_dir
from bummerl.rules import find_variant
from bummerl.store import resolve_redis_url
from bummerl.store.errors import LayoutError
from bummerl_client import AsyncClient
from bummerl_client.specs import bot_specs

from .common import port_number
from .play import play


def add_parser(sub: Any) -> None:
    s = sub.add_parser("serve", help="run the gRPC/REST server")
    s.add_argument("--host", default=None, help="address to listen on (default: BUMMERL_HOST or 127.0.0.1)")
    s.add_argument("--port", type=port_number, default=None, help="gRPC port (default: BUMMERL_PORT or 50051; 0 = any)")
    s.add_argument("--http-port", type=port_number, default=None,
                   help="REST gateway port (default: BUMMERL_HTTP_PORT or 8080; 0 = off)")
    s.add_argument("--metrics-port", type=port_number, default=None,
                   help="Prometheus port (default: BUMMERL_METRICS_PORT or 9095; 0 = off)")
    s.add_argument("--workers", type=int, default=1, metavar="N",
                   help="N server processes sharing the ports and one Redis (Prometheus multiprocess mode)")
    s.add_argument("--reuse-port", action="store_true",
                   help="share the ports with other processes (SO_REUSEPORT); default: a port in use is an error")
    s.add_argument("--redis-url", default=None, help="Redis URL (default: BUMMERL_REDIS_URL or embedded Valkey)")
    keep = s.add_mutually_exclusive_group()
    keep.add_argument("--data-dir", default=None,
                      help="data dir of the embedded Valkey (append-only file, kept across restarts; default: "
                           "BUMMERL_DATA_DIR, else $XDG_DATA_HOME/bummerl or ~/.local/share/bummerl)")
    keep.add_argument("--ephemeral", action="store_true",
                      help="keep nothing: the embedded Valkey in a temporary directory, every ladder, bot and match "
                           "lost at the end (BUMMERL_EPHEMERAL; also the default of --demo without --data-dir)")
    s.add_argument("--log-format", choices=["text", "json"], default=None,
                   help="text lines or one JSON object per line (default: BUMMERL_LOG_FORMAT or text)")
    s.add_argument("--access-log", action="store_true",
                   help="log every call at INFO on the bummerl.access logger (default: BUMMERL_ACCESS_LOG or off)")
    s.add_argument("--demo", default=None, help="play one demo Bummerl with these bots first, e.g. greedy,random")
    s.add_argument("--variant", default="schnapsen-at", help="variant of the --demo match (default schnapsen-at)")
    s.add_argument("--seed", type=int, default=None, help="deck seed of the --demo match (default: secret random)")
    s.add_argument("--admin-token", default=None,
                   help="secret needed to create matches (default: BUMMERL_ADMIN_TOKEN; none = anyone may)")
    s.add_argument("--idle-limit", type=float, default=None, metavar="SECONDS",
                   help="end matches without a time control after this long without an action (0 = never; "
                        "default: BUMMERL_IDLE_LIMIT_S or 86400)")
    s.add_argument("--shards", type=int, default=None, metavar="S",
                   help="key-layout shards on an empty Redis (default: BUMMERL_SHARDS, else what Redis has stored, "
                        "else 1 on a single node and 16 on Redis Cluster); another count than the stored one is an "
                        "error: bummerl migrate --shards moves the data")
    s.add_argument("--durability", choices=["none", "replicated"], default=None,
                   help="replicated: acknowledge an action only once a Redis replica has it (WAIT 1), so it survives "
                        "a failover (default: BUMMERL_DURABILITY or none)")


def run(args: argparse.Namespace) -> int:
    return serve_workers(args) if args.workers > 1 else run_on_event_loop(serve(args))


def storage(settings: Settings, demo: bool) -> tuple[Settings, str]:
    """The settings ``bummerl serve`` runs with and its start-up line on where the data lives: a
    Redis URL as given; else the embedded Valkey in ``data_dir``, in :func:`default_data_dir`
    when none is given, or, with ``ephemeral`` or a ``--demo`` without a data dir, in a temporary
    directory that is deleted at the end."""
    if settings.redis_url:
        return settings, "bummerl: redis at BUMMERL_REDIS_URL / --redis-url"
    if settings.data_dir is None and not settings.ephemeral and not demo:
        settings = dataclasses.replace(settings, data_dir=default_data_dir())
    if settings.data_dir is None:
        why = "--ephemeral" if settings.ephemeral else "--demo without --data-dir"
        return settings, (f"bummerl: redis embedded Valkey, EPHEMERAL ({why}): every ladder, bot and match is lost "
                          "when this server stops")
    return settings, f"bummerl: redis embedded Valkey, data kept in {settings.data_dir} (append-only file)"


def serve_workers(args: argparse.Namespace) -> int:
    """``serve --workers N``: N server processes sharing the gRPC and REST ports on purpose
    (SO_REUSEPORT) and one Redis (the embedded Valkey is started here, once); Prometheus
    multiprocess mode, with this process serving the aggregate ``/metrics``. SIGTERM/SIGINT stop
    the workers (each drains like a single server)."""
    given = Settings.from_env(**{k: v for k, v in {"port": args.port, "http_port": args.http_port,
                                                   "metrics_port": args.metrics_port, "host": args.host,
                                                   "redis_url": args.redis_url, "data_dir": args.data_dir,
                                                   "ephemeral": args.ephemeral or None}.items() if v is not None})
    if given.port == 0:
        raise SystemExit("bummerl serve: --workers needs a fixed --port (the workers share it)")
    given, where = storage(given, demo=False)
    stop = threading.Event()  # before the embedded Valkey starts: a signal then stops it too
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    with sigint_blocked_for_children():
        redis_url, embedded = resolve_redis_url(given.redis_url, str(given.data_dir) if given.data_dir else None)
    print(where, flush=True)
    prom_dir = tempfile.mkdtemp(prefix="bummerl-prom-")
    env = {**os.environ, "BUMMERL_REDIS_URL": redis_url, "PROMETHEUS_MULTIPROC_DIR": prom_dir}
    # the aggregate /metrics below reads the workers' files from this dir (prometheus_client looks
    # the variable up when the server starts, so setting it after the import of bummerl.metrics works)
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = prom_dir
    argv = [sys.executable, "-m", "bummerl_cli", "serve", "--workers", "1", "--reuse-port", "--metrics-port", "0",
            "--port", str(given.port), "--http-port", str(given.http_port), "--host", given.host]
    for flag, value in (("--admin-token", args.admin_token), ("--idle-limit", args.idle_limit),
                        ("--shards", args.shards), ("--durability", args.durability)):
        if value is not None:
            argv += [flag, str(value)]
    procs = [subprocess.Popen(argv, env=env) for _ in range(args.workers)]
    try:
        if given.metrics_port:
            port = metrics.start_metrics_server(given.metrics_port, given.host)
            print(f"bummerl: metrics of {args.workers} workers on http://{given.host}:{port}/metrics", flush=True)
        print(f"bummerl: {args.workers} workers on gRPC {given.host}:{given.port}", flush=True)
        while not stop.wait(0.2) and all(p.poll() is None for p in procs):
            pass
    finally:
        for p in procs:
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        for p in procs:
            try:
                p.wait(20)
            except subprocess.TimeoutExpired:
                p.kill()
        if embedded is not None:
            embedded.stop()
        shutil.rmtree(prom_dir, ignore_errors=True)
    failed = [p.returncode for p in procs if p.returncode not in (0, -signal.SIGTERM)]
    return 1 if failed and not stop.is_set() else 0


@contextlib.contextmanager
def sigint_blocked_for_children() -> Iterator[None]:
    """Block SIGINT in this thread while the embedded Valkey is started, so that its process
    inherits SIGINT blocked. Ctrl-C at a terminal sends SIGINT to the whole foreground process
    group, the Valkey child too: it died at once while the server was still draining its bots'
    streams (a KeyboardInterrupt traceback and a ConnectionError warning per stream and feed),
    where SIGTERM, sent to this process alone, let the server stop the Valkey itself at the end.
    A SIGINT that arrives meanwhile is delivered when the block ends (it then stops the server)."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def run_on_event_loop(main: Coroutine[Any, Any, int]) -> int:
    """Run ``main`` on the event loop that ``BUMMERL_EVENT_LOOP`` names (:attr:`Settings.event_loop`,
    default uvloop where installed). Raises ValueError/RuntimeError for a bad or unavailable one."""
    try:
        factory = loop_factory(Settings.from_env().event_loop)
    except BaseException:
        main.close()
        raise
    with asyncio.Runner(loop_factory=factory) as runner:
        return runner.run(main)


async def serve(args: argparse.Namespace) -> int:
    given = {"host": args.host, "port": args.port, "http_port": args.http_port, "metrics_port": args.metrics_port,
             "redis_url": args.redis_url, "data_dir": args.data_dir, "admin_token": args.admin_token,
             "idle_limit_s": args.idle_limit, "reuse_port": args.reuse_port or None, "ephemeral": args.ephemeral or None,
             "log_format": args.log_format, "access_log": args.access_log or None, "shards": args.shards,
             "durability": args.durability}
    # flags win over BUMMERL_* variables, which win over the defaults
    settings, where = storage(Settings.from_env(**{k: v for k, v in given.items() if v is not None}), bool(args.demo))
    configure_logging(settings)
    # SIGTERM/SIGINT from here on stop the server cleanly, also while it starts: a signal between
    # the start of the embedded Valkey and these handlers killed this process and left the Valkey
    # running without it (seen in 4 of 5 SIGTERMs sent on the "gRPC listening" line)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, stop.set)
    rt = Runtime(settings)
    try:
        with sigint_blocked_for_children():
            await rt.start()
    except LayoutError as exc:
        if settings.redis_url or settings.data_dir is None:
            raise
        # the embedded Valkey has no URL to give: say which command converts its data dir
        raise LayoutError(f"{exc} (this server's embedded Valkey: `bummerl migrate --data-dir "
                          f"{settings.data_dir}`)") from exc
    tune_gc()
    metrics.watch_gc()
    pacer = asyncio.create_task(GcPacer(settings.gc_pace_ms, budget=settings.gc_budget).run(stop), name="bummerl-gc") if settings.gc_pace_ms else None
    print(where, flush=True)
    print(f"bummerl: gRPC listening on {rt.target}", flush=True)
    web = f"http://{rt.target.rsplit(':', 1)[0]}:{rt.http_port}" if rt.http_port else None
    if rt.http_port:
        print(f"bummerl: REST/JSON on {web}/v1/variants", flush=True)
        if settings.web_pages:
            print(f"bummerl: web pages on {web}/", flush=True)
        else:
            web = None
    if rt.metrics_port:
        print(f"bummerl: metrics on http://{rt.target.rsplit(':', 1)[0]}:{rt.metrics_port}/metrics", flush=True)
    print(f"bummerl: event loop {loop_name(loop)}", flush=True)
    try:
        if args.demo and not stop.is_set():
            demo = bot_specs(args.demo, "bummerl serve --demo", find_variant(args.variant).num_players)
            print(f"bummerl: demo Bummerl {args.variant}: {args.demo.replace(',', ' vs ')}", flush=True)

            async def play_demo() -> None:
                async with AsyncClient(rt.target) as client:
                    await play(client, args.variant, demo, args.seed, {}, False, web,
                               admin_token=settings.admin_token)

            # Ctrl-C / SIGTERM stop the server during the demo too, not only after its last deal
            playing, stopped = asyncio.create_task(play_demo()), asyncio.create_task(stop.wait())
            await asyncio.wait((playing, stopped), return_when=asyncio.FIRST_COMPLETED)
            stopped.cancel()
            if playing.done():
                playing.result()  # the demo's error, if any
                print("bummerl: still serving; press Ctrl-C to stop", flush=True)
            else:
                playing.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await playing
        await stop.wait()
    finally:
        print("bummerl: shutting down", flush=True)
        stop.set()
        if pacer is not None:
            pacer.cancel()
        await rt.stop()
    return 0

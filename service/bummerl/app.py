"""The running service in one object: Redis (URL or embedded Valkey), store, use cases, gRPC
server (+ health, reflection, interceptors), REST gateway and metrics. Used by ``bummerl serve``,
``bummerl play`` (local server), benchmarks and the tests.

    async with Runtime(Settings.from_env(port=0, http_port=0, metrics_port=0)) as rt:
        print(rt.target)          # "127.0.0.1:<port>"
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import logging
import time
from collections.abc import Callable
from typing import Any

from grpc_health.v1 import health

from bummerl import metrics
from bummerl.api.gateway import Gateway
from bummerl.api.ladder_servicer import LadderServicer
from bummerl.api.server import SHUTDOWN_GRACE_SECONDS, build_server, start_gateway
from bummerl.api.servicer import GameServicer
from bummerl.config import EVENT_LOOPS, Settings
from bummerl.core import MatchService, MatchSettings, Reaper
from bummerl.core.analysis_store import Analyses
from bummerl.core.house import HouseBots, HouseSettings
from bummerl.core.limits import Limit, RateLimiter
from bummerl.core.spectate import Spectators
from bummerl.ladder.driver import LadderDriver
from bummerl.ladder.service import LadderService
from bummerl.store import EmbeddedValkey, MatchStore, StreamHub, resolve_redis_url
from bummerl.store.keys import LAYOUT_VERSION
from bummerl.web import WEB_DIR

log = logging.getLogger(__name__)

GAUGE_REFRESH_S = 5.0
"""How often the cluster-wide gauges (``bummerl_active_matches``) are read from Redis, seconds."""


class Runtime:
    """Start with ``await rt.start()`` (or ``async with``); stop with ``await rt.stop()``.

    ``gateway_port`` None = the gateway only if ``settings.http_port`` != 0; an int (0 =
    ephemeral) always starts it. Metrics are served only if ``settings.metrics_port`` != 0.
    After start: ``grpc_port``, ``http_port`` (or None), ``target`` ("host:port"), ``redis_url``.
    """

    def __init__(self, settings: Settings, gateway_port: int | None = None) -> None:
        self.settings = settings
        self.gateway_port = gateway_port
        self.embedded: EmbeddedValkey | None = None
        self.store: MatchStore | None = None
        self.hub: StreamHub | None = None
        self.service: MatchService | None = None
        self.reaper: Reaper | None = None
        self.ladders: LadderService | None = None
        self.spectators: Spectators | None = None
        """WatchMatch's use cases (their caps, feeds and overload signal), once started."""
        self._driver_task: asyncio.Task[None] | None = None
        self._house_task: asyncio.Task[None] | None = None
        self._reaper_stop = asyncio.Event()
        self._reaper_task: asyncio.Task[None] | None = None
        self._gauge_task: asyncio.Task[None] | None = None
        self.server: Any = None
        self.gateway: Gateway | None = None
        self.house: HouseBots | None = None
        self.health = health.aio.HealthServicer()
        self.grpc_port = 0
        self.http_port: int | None = None
        self.metrics_port: int | None = None
        self.redis_url = ""

    @property
    def target(self) -> str:
        host = "127.0.0.1" if self.settings.host in ("0.0.0.0", "") else self.settings.host
        return f"{host}:{self.grpc_port}"

    async def start(self) -> Runtime:
        """Start everything; if any part fails (port in use, Redis unreachable...), what was
        started is stopped again before the exception propagates."""
        try:
            return await self._start()
        except BaseException:
            await self.stop()
            raise

    async def _start(self) -> Runtime:
        s = self.settings
        self.redis_url, self.embedded = resolve_redis_url(s.redis_url, str(s.data_dir) if s.data_dir else None)
        self.store = await MatchStore.connect(self.redis_url, max_connections=s.redis_max_connections,
                                              pool_timeout_s=s.redis_pool_timeout_s, shards=s.shards or None,
                                              durability=s.durability, replica_wait_ms=s.replica_wait_ms)
        await self.store.ping()
        log.info("redis: %s, key layout %d in %d shard(s), durability %s",
                 "Redis Cluster" if self.store.cluster else "one node", LAYOUT_VERSION, self.store.layout.shards,
                 self.store.durability)
        self.hub = await StreamHub(self.store).start()
        self.service = MatchService(self.store, MatchSettings(
            admin_token=s.admin_token, idle_limit_ms=round(s.idle_limit_s * 1000),
            max_streams_per_seat=s.max_streams_per_seat, retention_ms=round(s.retention_days * 86_400_000),
            create_per_min=s.rate_create_per_min, actions_per_s=s.rate_actions_per_s,
        ), hub=self.hub)
        if not s.admin_token:
            log.warning("no admin token configured (BUMMERL_ADMIN_TOKEN / --admin-token): anyone can create matches "
                        "and choose their deck seed; set one for a public server")
        self.reaper = Reaper(self.service, poll_ms=s.reaper_poll_ms)
        self._reaper_stop.clear()
        self._reaper_task = asyncio.create_task(self.reaper.run(self._reaper_stop), name="bummerl-reaper")
        metrics.BOT_NAMES = s.metrics_bot_names
        self.ladders = LadderService(self.service, public_stream_keys=s.public_stream_ladders,
                                     streams_per_peer=s.streams_per_peer, streams_per_bot=s.streams_per_bot)
        self._driver_task = asyncio.create_task(LadderDriver(self.ladders).run(self._reaper_stop), name="bummerl-ladders")
        metrics.set_active_matches(await self.store.active_count())
        self._gauge_task = asyncio.create_task(self._refresh_gauges(self._reaper_stop), name="bummerl-gauges")
        auth_limiter = RateLimiter(self.store, {"auth": Limit(s.rate_auth_failures_per_min, 60_000)},
                                   self.service.now_ms)
        self.house = HouseBots(self.service, HouseSettings(
            tuple(b.strip() for b in s.house_bots.split(",") if b.strip()), s.house_budget_ms, s.house_workers,
            s.house_max_seats))
        self._house_task = asyncio.create_task(self.house.run(self._reaper_stop), name="bummerl-house")
        self.ladders.set_house(self.house)  # challenges of a house bot seat it in a ladder
        self.spectators = Spectators(self.service, max_per_address=s.max_watchers_per_address)
        servicer = GameServicer(self.service, auth_limiter, house=self.house, ladders=self.ladders,
                                play_connected_bots=s.play_connected_bots, spectators=self.spectators)
        ladder_servicer = LadderServicer(self.ladders, auth_limiter)
        self.server, self.grpc_port = await build_server(servicer, s, ladder_servicer, health_servicer=self.health)
        await self.server.start()
        port = self.gateway_port if self.gateway_port is not None else (s.http_port or None)
        if port is not None:
            self.gateway = await start_gateway(
                [servicer, ladder_servicer], s.host, port, max_connections=s.http_max_connections,
                max_connections_per_address=s.http_max_connections_per_address,
                head_timeout_s=s.http_head_timeout_s, body_timeout_s=s.http_body_timeout_s,
                cors_origins=[o.strip() for o in s.http_cors_origins.split(",") if o.strip()], reuse_port=s.reuse_port,
                ready=self.store.ping, pages=WEB_DIR if s.web_pages else None,
            )
            self.http_port = self.gateway.port
        if s.metrics_port:
            self.metrics_port = metrics.start_metrics_server(s.metrics_port, s.host)
        log.info("bummerl listening: grpc %s, http %s, metrics %s", self.target, self.http_port, self.metrics_port)
        return self

    async def _refresh_gauges(self, stop: asyncio.Event) -> None:
        """Every :data:`GAUGE_REFRESH_S` seconds until ``stop``: ``bummerl_active_matches`` from
        Redis (cluster-wide, so it is right after restarts and across replicas)."""
        while not stop.is_set():
            with contextlib.suppress(asyncio.TimeoutError, TimeoutError):
                await asyncio.wait_for(stop.wait(), GAUGE_REFRESH_S)
            if self.store is not None and not stop.is_set():
                try:
                    metrics.set_active_matches(await self.store.active_count())
                except Exception as e:  # noqa: BLE001 - a gauge must not stop the server
                    log.warning("active-matches gauge: redis unavailable (%s)", type(e).__name__)

    async def stop(self) -> None:
        """Graceful: health NOT_SERVING, gateway closed, running RPCs get a grace period, Redis
        closed, the embedded Valkey stopped. Safe to call twice."""
        try:
            await self.health.enter_graceful_shutdown()
        except Exception:  # noqa: BLE001 - best effort
            pass
        self._reaper_stop.set()
        for task in (self._reaper_task, self._driver_task, self._gauge_task, self._house_task):
            if task is not None:
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await asyncio.wait_for(task, 5)
        self._reaper_task = self._driver_task = self._gauge_task = self._house_task = None
        if self.house is not None:
            await self.house.close()
            self.house = None
        if self.gateway is not None:
            await self.gateway.close()
            self.gateway = None
        if self.server is not None:
            await self.server.stop(SHUTDOWN_GRACE_SECONDS)
            self.server = None
        if self.spectators is not None:
            await Analyses.of(self.spectators).close()  # the match analyses' computations and workers
            await self.spectators.feeds.aclose()
            self.spectators = None
        if self.ladders is not None:
            await self.ladders.aclose()
            self.ladders = None
        if self.hub is not None:
            await self.hub.aclose()
            self.hub = None
        if self.store is not None:
            await self.store.aclose()
            self.store = None
        if self.embedded is not None:
            self.embedded.stop()
            self.embedded = None

    async def __aenter__(self) -> Runtime:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()


GC_THRESHOLD = (20_000, 50, 100)
"""Collector thresholds of a serving process (CPython's default is (700, 10, 10)): a request
allocates thousands of short-lived containers, so at the default the young generation is collected
every few requests (~1 ms each) and a full collection of every cached match (tens of ms) now and
then, which is what the p99 latency sees."""


class JsonLogFormatter(logging.Formatter):
    """One JSON object per log record: ``ts`` (ISO 8601, UTC, milliseconds), ``level``,
    ``logger``, ``message``, and ``exc`` (the traceback) when there is one."""

    def format(self, record: logging.LogRecord) -> str:
        out = {"ts": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)) + f".{int(record.msecs):03d}Z",
               "level": record.levelname, "logger": record.name, "message": record.getMessage()}
        if record.exc_info:
            out["exc"] = self.formatException(record.exc_info)
        return json.dumps(out, ensure_ascii=False)


def configure_logging(settings: Settings) -> None:
    """Root logging from ``settings``: level, ``text`` or ``json`` lines on stderr; the access log
    (``bummerl.access``) at INFO when ``access_log`` is on, else silent."""
    handler = logging.StreamHandler()
    handler.setFormatter(JsonLogFormatter() if settings.log_format == "json"
                         else logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(settings.log_level_number)
    logging.getLogger("bummerl.access").setLevel(logging.INFO if settings.access_log else logging.WARNING)


class GcPacer:
    """Runs CPython's cyclic garbage collector on a clock instead of by allocation count: every
    ``period_ms`` milliseconds the young generation (gen 0), every ``young_per_middle``-th time
    the middle one (gen 1) instead, and every ``middle_per_full``-th of those the whole heap
    (gen 2). Defaults: 10 ms, gen 1 every 200th collection (2 s at 10 ms), gen 2 every 300th of
    those (10 min).

    Why: gRPC's server leaves six objects of cyclic garbage per call, and each action keeps its
    match version's state, views and encodings alive until the next one, so the young generation
    fills with live objects the count does not see (freeing an old version counts as much as
    allocating the new one). Count-triggered collections then examine ~30-50k objects each:
    6-20 ms pauses every two seconds at half load. On a clock each collection sees only what
    the last few milliseconds allocated: ``bummerl bench service --rate 450 --seconds 10`` shows
    ~950 pauses of ~0.15 ms and 4 of 2-5 ms (gen 1) where count-triggered collection made 5
    pauses, 4 of them over 5 ms; the collector's total time grows from ~40 to ~160 ms in that
    run (about 1% of a core). :data:`GC_THRESHOLD` stays set as the backstop when the event loop
    is too busy to run the pacer.

    **Budget.** A saturated process pays more: each young collection examines what the last
    period allocated and still holds (a version lives until the match's next action), ~0.8 ms
    every 10 ms, ~9% of its CPU under ``bummerl bench service --play``. Objects that die before a
    collection are never examined, so longer periods cost less in all. Over each second the pacer
    compares the CPU time its collections took (``cpu_clock``, this thread's) with ``budget`` (a
    share of wall time, ``clock``; default 0.05): above it the period doubles (up to
    ``max_period_ms``, default 100 ms), below half of it the period halves (down to
    ``period_ms``). Measured in alternating runs of ``bench service --play``: the collector's
    time halves and the server's CPU per action drops 4-5%, with pauses of 2-5 ms. A server below
    saturation (``bummerl bench service --rate 600``, about half load: 1.6-1.8% of wall time)
    keeps the short period and its sub-millisecond pauses, which matter for its p99; the default
    leaves room for a busy second. ``budget`` 0 = a fixed period.

    Use after :func:`tune_gc` in a serving process: ``asyncio.create_task(GcPacer().run(stop))``.
    Raises ValueError for a period or count < 1, a ``budget`` outside 0..1.
    """

    WINDOW_S = 1.0
    """Seconds of wall time over which the collections' share is compared with the budget."""

    def __init__(self, period_ms: int = 10, young_per_middle: int = 200, middle_per_full: int = 300, *,
                 max_period_ms: int = 100, budget: float = 0.05,
                 clock: Callable[[], float] = time.perf_counter,
                 cpu_clock: Callable[[], float] = time.thread_time) -> None:
        if period_ms < 1 or young_per_middle < 1 or middle_per_full < 1:
            raise ValueError("GcPacer: period_ms, young_per_middle and middle_per_full must be >= 1")
        if not 0 <= budget <= 1:
            raise ValueError(f"GcPacer: budget must be a share of time in 0..1, got {budget!r}")
        self.base_s = period_ms / 1000
        self.period_s = self.base_s
        self.max_period_s = max(max_period_ms, period_ms) / 1000
        self.young_per_middle = young_per_middle
        self.middle_per_full = middle_per_full
        self.budget = budget
        self._clock = clock
        self._cpu_clock = cpu_clock
        self._young = 0
        self._middle = 0
        self._window_start = clock()
        self._spent = 0.0

    def step(self) -> int:
        """Run one paced collection and adapt the period to the budget; returns the generation
        collected (0, 1 or 2)."""
        self._young += 1
        generation = 0
        if self._young % self.young_per_middle == 0:
            self._middle += 1
            generation = 2 if self._middle % self.middle_per_full == 0 else 1
        t = self._cpu_clock()
        gc.collect(generation)
        self._spent += self._cpu_clock() - t  # CPU time: a busy machine's other work does not count
        now = self._clock()
        elapsed = now - self._window_start
        if elapsed >= self.WINDOW_S:
            share = self._spent / elapsed
            if self.budget > 0 and share > self.budget:
                self.period_s = min(self.max_period_s, self.period_s * 2)
            elif share < self.budget / 2:
                self.period_s = max(self.base_s, self.period_s / 2)
            self._window_start, self._spent = now, 0.0
        return generation

    async def run(self, stop: asyncio.Event) -> None:
        """:meth:`step` every ``period_s`` (which :meth:`step` adapts) until ``stop`` is set."""
        while not stop.is_set():
            await asyncio.sleep(self.period_s)
            self.step()


def loop_factory(event_loop: str = "auto") -> Callable[[], asyncio.AbstractEventLoop]:
    """The event-loop constructor for :attr:`Settings.event_loop` (``"auto"``, ``"uvloop"`` or
    ``"asyncio"``), for ``asyncio.Runner(loop_factory=...)``. ``"auto"``: uvloop's when uvloop
    can be imported, else the standard one. Raises ValueError for another name and RuntimeError
    for ``"uvloop"`` when uvloop is not installed."""
    if event_loop not in EVENT_LOOPS:
        raise ValueError(f"unknown event loop {event_loop!r} ({', '.join(EVENT_LOOPS)})")
    if event_loop != "asyncio":
        try:
            import uvloop  # optional: not installed on Windows (pyproject's uvloop marker)
        except ImportError:
            if event_loop == "uvloop":
                raise RuntimeError("BUMMERL_EVENT_LOOP=uvloop, but uvloop is not installed") from None
        else:
            return uvloop.new_event_loop
    return asyncio.new_event_loop


def loop_name(loop: asyncio.AbstractEventLoop) -> str:
    """``"uvloop"`` or ``"asyncio"``: which implementation ``loop`` is."""
    return "uvloop" if type(loop).__module__.split(".")[0] == "uvloop" else "asyncio"


def tune_gc() -> None:
    """For a long-running server, once it has started: move everything allocated so far (modules,
    descriptors, the variant tables) out of the collector's view (``gc.freeze``) and collect less
    often (:data:`GC_THRESHOLD`). Cycles are still collected; memory freed by reference counting
    (nearly all of a request's) is unaffected. The collector's pauses of a running server are in
    ``bummerl_gc_pause_seconds``; ``bummerl bench service`` prints them."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLD)

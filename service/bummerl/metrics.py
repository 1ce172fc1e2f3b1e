"""Prometheus metrics of the service (docs/DESIGN.md §6), served on their own port.

gRPC metrics use the names and labels of go-grpc-prometheus, so its dashboards and alerts apply:

* ``grpc_server_started_total{grpc_type, grpc_service, grpc_method}``
* ``grpc_server_handled_total{grpc_type, grpc_service, grpc_method, grpc_code}``
  (``grpc_code`` as Go spells it: ``OK``, ``NotFound``, ``FailedPrecondition``, ``Aborted`` ...)
* ``grpc_server_handling_seconds{grpc_type, grpc_service, grpc_method}`` histogram, seconds
* ``grpc_server_msg_received_total`` / ``grpc_server_msg_sent_total`` (same three labels)

``bummerl_gc_pause_seconds{generation}`` (histogram, seconds) times the garbage collector's pauses
(:func:`watch_gc`): during one, no call of the process makes progress.

``grpc_type`` is ``unary``, ``client_stream``, ``server_stream`` or ``bidi_stream``. They are
recorded by :class:`bummerl.api.interceptors.MetricsInterceptor`.

Game metrics are prefixed ``bummerl_`` and updated through the helper functions below, which are
the only writers. **No label may carry a card, a token or a match id**: the only game label is
``variant``, and callers pass the canonical variant id (after ``find_variant``), never raw input.

Multiprocess: when ``PROMETHEUS_MULTIPROC_DIR`` is set (before this module is imported, as
prometheus-client requires), :func:`start_metrics_server` serves the aggregate of all processes;
``bummerl_active_matches`` is cluster-wide (the size of the ``bm:active`` set in Redis, set by
:func:`set_active_matches`), so every replica and process reports the same figure: aggregate it
with ``max``, not ``sum``.
"""

from __future__ import annotations

import gc
import os
import time
from typing import Any

import grpc
from prometheus_client import REGISTRY, CollectorRegistry, Counter, Gauge, Histogram, start_http_server
from prometheus_client import multiprocess as _multiprocess

from bummerl.ladder.botstats import THINK_BUCKETS_MS

GRPC_LABELS = ("grpc_type", "grpc_service", "grpc_method")

#: Handling-time buckets, seconds: finer than go-grpc-prometheus's defaults at the low end
#: (a Redis-backed call takes ~1 ms), same upper end.
HANDLING_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)

GRPC_SERVER_STARTED = Counter(
    "grpc_server_started_total", "Total number of RPCs started on the server.", GRPC_LABELS
)
GRPC_SERVER_HANDLED = Counter(
    "grpc_server_handled_total",
    "Total number of RPCs completed on the server, regardless of success or failure.",
    (*GRPC_LABELS, "grpc_code"),
)
GRPC_SERVER_HANDLING_SECONDS = Histogram(
    "grpc_server_handling_seconds",
    "Histogram of response latency (seconds) of gRPC that had been application-level handled by the server.",
    GRPC_LABELS,
    buckets=HANDLING_BUCKETS,
)
GRPC_SERVER_MSG_RECEIVED = Counter(
    "grpc_server_msg_received_total", "Total number of RPC stream messages received on the server.", GRPC_LABELS
)
GRPC_SERVER_MSG_SENT = Counter(
    "grpc_server_msg_sent_total", "Total number of gRPC stream messages sent by the server.", GRPC_LABELS
)

ACTIVE_MATCHES = Gauge(
    "bummerl_active_matches",
    "Matches created and not yet over, on the whole Redis (every replica reports the same figure; "
    "refreshed every few seconds).",
    multiprocess_mode="max",
)
ACTIONS = Counter("bummerl_actions_total", "Actions applied to matches.", ("variant",))
CAS_CONFLICTS = Counter(
    "bummerl_cas_conflicts_total", "Writes rejected by the compare-and-set on the match version."
)
TIMEOUTS = Counter(
    "bummerl_timeouts_total", "Seats that ran out of time, by the timeout policy applied.", ("variant", "policy")
)
SPECTATORS = Gauge("bummerl_spectators", "Open WatchMatch streams (spectators) of this process.",
                   multiprocess_mode="livesum")
HOUSE_DECISIONS = Counter("bummerl_house_decisions_total", "Decisions made by house bots.", ("bot",))
MATCHES_CREATED = Counter("bummerl_matches_created_total", "Matches created.", ("variant",))
MATCHES_FINISHED = Counter("bummerl_matches_finished_total", "Matches that reached their end.", ("variant",))

#: Collector pause buckets, seconds: a paced young collection takes well under a millisecond.
GC_BUCKETS = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25)
GC_PAUSE_SECONDS = Histogram(
    "bummerl_gc_pause_seconds", "Pauses of the cyclic garbage collector of this process (nothing else runs meanwhile).",
    ("generation",), buckets=GC_BUCKETS,
)

#: grpc.StatusCode -> the code name go-grpc-prometheus puts into ``grpc_code``.
GO_CODE_NAMES: dict[grpc.StatusCode, str] = {
    code: "Canceled" if code is grpc.StatusCode.CANCELLED else "".join(p.title() for p in code.name.split("_"))
    for code in grpc.StatusCode
}
GO_CODE_NAMES[grpc.StatusCode.OK] = "OK"


def match_created(variant: str) -> None:
    """A match of ``variant`` (canonical id) was created."""
    MATCHES_CREATED.labels(variant).inc()


def match_finished(variant: str) -> None:
    """A match of ``variant`` ended (played out, resigned or timed out)."""
    MATCHES_FINISHED.labels(variant).inc()


def set_active_matches(count: int) -> None:
    """The number of matches not yet over on the whole Redis (``MatchStore.active_count``)."""
    ACTIVE_MATCHES.set(count)


def action_applied(variant: str, count: int = 1) -> None:
    """``count`` actions were applied to a match of ``variant``."""
    ACTIONS.labels(variant).inc(count)


def timeout(variant: str, policy: str) -> None:
    """A seat ran out of time and ``policy`` (forfeit-match, forfeit-deal, default-move) was applied."""
    TIMEOUTS.labels(variant, policy).inc()


BOT_NAMES = False
"""Label the ``bummerl_bot_*`` series with bot names (the setting ``metrics_bot_names``,
``BUMMERL_METRICS_BOT_NAMES=1``, applied at start-up by :class:`bummerl.app.Runtime`); otherwise
every bot is counted under ``bot="all"``, so the label stays bounded whoever registers bots."""

BOT_GAMES = Counter("bummerl_bot_games_total", "Ladder games finished, by bot and outcome.", ("bot", "outcome"))
BOT_FAULTS = Counter("bummerl_bot_faults_total",
                     "Ladder games where a bot timed out, answered illegally or crashed (its runner's report), by kind.",
                     ("bot", "kind"))
BOT_THINK = Histogram("bummerl_bot_think_seconds", "Think time per ladder action (turn start to commit), seconds.",
                      ("bot",), buckets=(0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1.0, 5.0, 10.0, 30.0, 60.0))


def bot_game(name: str, stats: dict[str, Any]) -> None:
    """Count one finished ladder game of a bot (``stats``: :func:`bummerl.ladder.botstats.game_stats`;
    think times by bucket: each action is observed at its bucket's upper bound)."""
    bot = name if BOT_NAMES else "all"
    outcome = "win" if stats.get("wins") else "draw" if stats.get("draws") else "loss"
    BOT_GAMES.labels(bot, outcome).inc()
    for kind in ("timeouts", "illegal_actions", "disconnects"):
        if stats.get(kind):
            BOT_FAULTS.labels(bot, kind).inc(int(stats[kind]))
    think = BOT_THINK.labels(bot)
    for i, count in enumerate(stats.get("think_hist") or ()):
        bound = THINK_BUCKETS_MS[i] if i < len(THINK_BUCKETS_MS) else THINK_BUCKETS_MS[-1] * 2
        for _ in range(int(count)):
            think.observe(bound / 1000)


def spectator(delta: int) -> None:
    """A WatchMatch stream opened (+1) or closed (-1)."""
    SPECTATORS.inc(delta)


WATCH_ENCODES = Counter("bummerl_watch_encodes_total",
                        "Spectator updates encoded: the WatchUpdate message (pb) once per match version and frame "
                        "for every spectator that gets it, its REST JSON (json) once per framing (NDJSON, SSE).",
                        ("format",))
WATCHERS_SHED = Counter("bummerl_watchers_shed_total",
                        "WatchMatch streams refused or ended to keep the seats fast, by reason (address: the "
                        "client address's cap; overload_refused, overload_closed: the event loop lagged).",
                        ("reason",))
EVENT_LOOP_LAG = Gauge("bummerl_event_loop_lag_seconds",
                       "How late the event loop runs its timers (mean over the last second), seconds: the wait "
                       "every call queued in this process pays; measured while spectators watch.",
                       multiprocess_mode="max")


def watch_encoded(fmt: str) -> None:
    """One spectator update encoded in ``fmt`` (``pb`` or ``json``)."""
    WATCH_ENCODES.labels(fmt).inc()


def watcher_shed(reason: str) -> None:
    """A WatchMatch stream refused or ended to keep seats fast (``address``, ``overload_refused``,
    ``overload_closed``)."""
    WATCHERS_SHED.labels(reason).inc()


def set_loop_lag(seconds: float) -> None:
    """The event loop's lag (:class:`bummerl.core.limits.LoopLag`), seconds."""
    EVENT_LOOP_LAG.set(seconds)


def house_decision(bot: str) -> None:
    """A house bot (``random``, ``greedy``, ``strong``) decided one action."""
    HOUSE_DECISIONS.labels(bot).inc()


def cas_conflict() -> None:
    """A compare-and-set on a match version lost against a concurrent writer."""
    CAS_CONFLICTS.inc()


_gc_started: list[float] = []


def _time_gc(phase: str, info: dict[str, int]) -> None:
    if phase == "start":
        _gc_started[:] = [time.perf_counter()]
    elif _gc_started:
        GC_PAUSE_SECONDS.labels(str(info["generation"])).observe(time.perf_counter() - _gc_started.pop())


def watch_gc() -> None:
    """Time every garbage collection of this process into ``bummerl_gc_pause_seconds{generation}``
    (seconds; generation ``0``, ``1`` or ``2``), through :data:`gc.callbacks`. Idempotent; for a
    serving process (``bummerl serve`` calls it)."""
    if _time_gc not in gc.callbacks:
        gc.callbacks.append(_time_gc)


def init_grpc_metrics(services: Any) -> None:
    """Create the zero-valued started/received/sent series for every method of ``services``
    (``ServiceDescriptor`` objects), like go-grpc-prometheus's ``InitializeMetrics``, so that
    rates exist before the first call."""
    for service in services:
        for method in service.methods:
            labels = (grpc_type(method.client_streaming, method.server_streaming), service.full_name, method.name)
            for metric in (GRPC_SERVER_STARTED, GRPC_SERVER_MSG_RECEIVED, GRPC_SERVER_MSG_SENT):
                metric.labels(*labels)


def grpc_type(client_streaming: bool, server_streaming: bool) -> str:
    """The ``grpc_type`` label: ``unary``, ``client_stream``, ``server_stream`` or ``bidi_stream``."""
    if client_streaming:
        return "bidi_stream" if server_streaming else "client_stream"
    return "server_stream" if server_streaming else "unary"


def metrics_registry() -> CollectorRegistry:
    """The registry to expose: the process's own, or in multiprocess mode (``PROMETHEUS_MULTIPROC_DIR``
    set) a fresh registry that aggregates every process's files."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        registry = CollectorRegistry()
        _multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
        return registry
    return REGISTRY


def start_metrics_server(port: int, host: str = "0.0.0.0") -> int:
    """Serve ``/metrics`` over HTTP on ``host:port`` in a daemon thread; port 0 picks a free port.
    Returns the bound port."""
    server, _thread = start_http_server(port, addr=host, registry=metrics_registry())
    return int(server.server_port)

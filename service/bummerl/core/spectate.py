"""Spectators: who may watch a match, the live public view (``WatchMatch``) and the full replay of a
finished match (``GetMatchReplay``).

* **Watch settings** (``CreateMatchRequest.watch``, kept in the match's meta by
  :func:`new_watch`): ``access`` ``"public"`` (default: anyone) or ``"token"`` (the match's watch
  token, any seat or seat-bot token of the match, or the admin token); ``delay_moves`` N: the view
  trails the match by N versions until the match is over (0 = live).
* **The live view** (:meth:`Spectators.watch`): the engine's :func:`bummerl.rules.public_view` (an
  ``InformationSet`` of seat -1: no hand, no laid-away card, no legal actions; docs/RULES.md
  §14.3) at the version shown, with the public events since the last update and the match's
  public summary (seat names, teams, options). A view of a version is built once per process and
  shared by every spectator of that version (clocks, which change with time, are added per
  update), and so is each frame (one per version and first version of its events): a watched
  match has one follower per process (:mod:`bummerl.core.watchfeed`), however many watch it; a
  spectator slow to read gets the newest version next, with every event since, nothing queues.
  Under a delay the state of an older version is rebuilt by replaying the match's log.
* **Seats first** (issue 38): open streams are capped per match and per client address; the
  process sends at most :data:`UPDATE_BUDGET_PER_S` updates a second at full rate (each spectator
  its share, the newest version when its turn comes); while its event loop lags
  (:data:`SHED_LAG_MS`, :class:`bummerl.core.limits.LoopLag`) and spectators are many
  (:data:`SHED_MIN_WATCHERS`) new ones are refused and open ones throttled, past
  :data:`CLOSE_LAG_MS` ended, always with a retry hint. Seats' streams are never shed.
* **The replay** (:meth:`Spectators.replay`, :func:`build_replay`): every version of a finished
  match with every card open: the public view, each hand, the talon in order, laid-away cards and,
  on request, each seat's information set. Served only when :func:`replay_public` says so: once the
  match is over and, for a ladder game, never before its whole duplicate set is over.

Errors (:mod:`bummerl.core.errors`): NotFoundError, InvalidArgumentError (bad settings),
UnauthenticatedError / PermissionDeniedError (access ``"token"``), ReplayNotAvailableError.
"""

from __future__ import annotations

import asyncio
import hmac
import random
import secrets
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from typing import Any, cast

import orjson

from bummerl import metrics
from bummerl.rules import DealState, MatchState, events_between, information_set, initial_events, public_view
from bummerl.rules.base.cards import card_code, cards_of
from bummerl.rules.base.views import Event, InformationSet
from bummerl.store.keys import META_PREFIX, aux_key

from .auth import hash_token
from .cache import Loaded
from .errors import (
    InvalidArgumentError,
    PermissionDeniedError,
    ReplayNotAvailableError,
    ResourceExhaustedError,
    UnauthenticatedError,
)
from .limits import LoopLag, OpenCounts, address_key
from .log import OutcomeAction, log_actions
from .matches import MatchService
from .record import match_summary
from .watchfeed import FRAME_VERSIONS, Feeds, MatchFeed

ACCESS = ("public", "token")
"""The values of ``WatchSettings.access``."""
MAX_DELAY_MOVES = 1000
"""Largest ``WatchSettings.delay_moves``."""
VIEW_CACHE = 4096
"""Public views (one per match version) each process keeps for its spectators."""
RECENT = 200
"""Most recently created matches remembered for :meth:`Spectators.list_matches`."""
MAX_LIST = 100
"""Largest ``limit`` of :meth:`Spectators.list_matches`."""
SPREAD_S = 0.05
"""Each spectator's update of a new version waits a random 0 .. this many seconds, so that the
updates of many spectators do not all queue ahead of the seats' next calls (people watching do
not see 50 ms; a bot waiting for its answer does)."""
MAX_WATCHERS = 2000
"""Default cap of open WatchMatch streams per match and process (RESOURCE_EXHAUSTED beyond)."""
MAX_WATCHERS_PER_ADDRESS = 32
"""Default cap of open WatchMatch streams per client address and process (gRPC and REST together;
an IPv6 address counts per /64, :func:`bummerl.core.limits.address_key`); RESOURCE_EXHAUSTED beyond."""
SHED_LAG_MS = 10.0
"""Event-loop lag (:attr:`bummerl.core.limits.LoopLag.lag_ms`, the mean over the last second, ms)
from which spectators give way to seats: a new WatchMatch stream is refused (RESOURCE_EXHAUSTED with
a retry hint) and the open ones get at most one frame every :data:`THROTTLE_S` (the newest version,
with every event since their last frame). The lag is what every queued call waits before it runs,
so it rises as soon as the process has more work than CPU, whatever the work is; a seat's answer
takes about that lag plus its own ~1 ms. 10 ms: seats answered in ~3 ms (p99) when idle are then
already past twice that on average; 1,000 gRPC spectators taking 8,000 updates/s (0.7 cores) left
the lag at 0.5-0.9 ms (``bummerl bench watchers``), so spectators within the CPU do not trip it."""
CLOSE_LAG_MS = 50.0
"""Event-loop lag (ms) from which open spectator streams are ended too: each frame due is instead,
with probability :data:`CLOSE_SHARE`, the end of its stream (RESOURCE_EXHAUSTED, retry hint of
:data:`CLOSE_RETRY_MS` with jitter), so the spectators thin out fast while the overload lasts and come
back spread out."""
SHED_MIN_WATCHERS = 200
"""Spectators give way (:data:`SHED_LAG_MS`) only while this process has at least this many open
WatchMatch streams: an update costs ~65 us of CPU, so 200 spectators of bot matches (~8 updates/s
each) take ~10% of a core, and shedding fewer would not bring the seats' time back when something
else makes the process lag (another program on the machine, a burst of seats)."""
UPDATE_BUDGET_PER_S = 3000
"""Spectator updates per second a process sends at most at full rate: each spectator gets at most
one frame every (open WatchMatch streams / this) seconds, the newest version with every event
since (100 spectators: 33 ms, so a match at a human's pace or a bot's is followed version by
version; 1,000: 0.33 s). At ~70-100 us of CPU per update (``bummerl bench watchers``) that bounds
what spectators take to about a quarter of a core, whatever their number; 0 = no budget."""
THROTTLE_S = 1.0
"""Least time between two frames of a spectator while the lag is over :data:`SHED_LAG_MS`, seconds."""
CLOSE_SHARE = 0.25
"""Share of the frames due that end their stream instead while the lag is over :data:`CLOSE_LAG_MS`."""
REFUSE_RETRY_MS = 3000
"""Retry hint of a WatchMatch refused for the lag, ms (a random 1..2x of it is sent)."""
CLOSE_RETRY_MS = 10_000
"""Retry hint of a WatchMatch ended for the lag, ms (a random 1..2x of it is sent)."""
ADDRESS_RETRY_MS = 10_000
"""Retry hint of a WatchMatch refused for its address's cap, ms."""
CLOCK_REUSE_S = 0.2
"""A live frame with clocks is shared with spectators for this long after it was built, seconds
(its clocks are the time left when it was built)."""
_LISTED_META = (b"variant", b"seats", b"created_at_ms", b"over", b"watch", b"ladder_id")


def new_watch(access: str = "", delay_moves: int = 0) -> tuple[dict[str, Any], str]:
    """Checked watch settings as the match meta stores them (``{"watch": {"access",
    "delay_moves"}}`` plus ``"watch_token"``, the SHA-256 of the watch token, for access
    ``"token"``) and the watch token itself (shown once; ``""`` for public matches). ``access``
    ``""`` means ``"public"``. Raises InvalidArgumentError for another access or a delay outside
    0..:data:`MAX_DELAY_MOVES`."""
    access = access or "public"
    if access not in ACCESS:
        raise InvalidArgumentError(f"watch.access must be one of {', '.join(ACCESS)}, got {access[:32]!r}")
    if not 0 <= delay_moves <= MAX_DELAY_MOVES:
        raise InvalidArgumentError(f"watch.delay_moves must be in 0..{MAX_DELAY_MOVES}, got {delay_moves}")
    meta: dict[str, Any] = {"watch": {"access": access, "delay_moves": int(delay_moves)}}
    token = ""
    if access == "token":
        token = secrets.token_hex(32)
        meta["watch_token"] = hash_token(token)
    return meta, token


def replay_public(meta: Mapping[str, Any]) -> bool:
    """The part of the replay gate that needs no Redis: the match is over. The whole gate is
    :meth:`Spectators.replay_allowed` (a ladder game also waits for its duplicate set,
    :meth:`bummerl.core.matches.MatchService.revealed`)."""
    return bool(meta.get("over"))


def authorize_watch(meta: Mapping[str, Any], token: str | None, is_admin: bool = False) -> None:
    """Raise unless the caller may watch: always for access ``"public"``; for ``"token"`` the
    watch token, a seat token or seat-bot token of the match, or the admin (``is_admin``).
    UnauthenticatedError without a token, PermissionDeniedError with a foreign one."""
    watch = meta.get("watch") or {}
    if watch.get("access", "public") == "public" or is_admin:
        return
    if not token:
        raise UnauthenticatedError("this match may be watched with its watch token only (authorization: Bearer <token>)")
    h = hash_token(token)
    allowed = [meta.get("watch_token") or "", *meta.get("seat_tokens", ()), *(meta.get("seat_bots") or ())]
    if not any(x and hmac.compare_digest(h, x) for x in allowed):
        raise PermissionDeniedError("this token may not watch this match")


def state_at(final: MatchState, entries: list[list[Any]], version: int) -> MatchState:
    """The match at ``version`` (1 = created; entry ``i`` of the log made version ``i + 2``),
    replayed from the log of ``final`` (its seed, decks, options) and the service's ``entries``;
    ``final`` itself at the last version."""
    if version >= len(entries) + 1:
        return final
    log = final.to_dict(actions=False)
    log.update(actions=log_actions(entries[: max(0, version - 1)]), ended=None, resigned=None)
    return MatchState.from_dict(log)


def _cards(mask: int) -> list[str]:
    return [card_code(c) for c in cards_of(mask)]


def open_cards(m: MatchState) -> dict[str, Any]:
    """Every card of the current deal that the public view hides: ``hands`` and ``laid_away``
    (``[{"seat", "cards"}]`` per match seat) and the ``talon`` (top first; a two-player deal's
    face-up trump card last; a contract deal's talon, then the cards not yet dealt). For
    replays of finished matches only."""
    d = m.deal
    n = m.num_seats
    hands: list[list[str]] = [[] for _ in range(n)]
    laid: list[list[str]] = [[] for _ in range(n)]
    if isinstance(d, DealState):
        for i, s in enumerate(d.seats):
            hands[s] = _cards(d.hands[i])
        talon = [card_code(c) for c in d.talon[d.tpos:]]
    else:
        for s in range(n):
            hands[s] = _cards(d.hands[s])
            laid[s] = _cards(d.laid_away[s])
        talon = [card_code(c) for c in [*d.state.get("talon", ()), *d.state.get("rest", ())]]
    return {"hands": [{"seat": s, "cards": h} for s, h in enumerate(hands)], "talon": talon,
            "laid_away": [{"seat": s, "cards": h} for s, h in enumerate(laid)]}


def build_replay(match_id: str, final: MatchState, entries: list[list[Any]], record: Mapping[str, Any],
                 seat_views: bool = False) -> dict[str, Any]:
    """The ``MatchReplay`` dict of a stored match: ``record`` and one step per version (1 ..
    ``len(entries) + 1``) with the events it committed, the public view, every hand, the talon,
    laid-away cards, the record entry that made it and, with ``seat_views``, each seat's
    information set. Replays the log once (cost linear in the match's length). Callers check
    :meth:`Spectators.replay_allowed` first: this shows every card."""
    actions = record.get("actions") or []
    log = final.to_dict(actions=False)
    log.update(actions=[], ended=None, resigned=None)
    m = MatchState.from_dict(log)
    steps: list[dict[str, Any]] = []
    for v in range(1, len(entries) + 2):
        if v == 1:
            events: list[Event] = initial_events(m, 1)
            if events and "deal_started" in events[0] and record.get("deck_commitment"):  # as the match published it
                events[0] = cast(Event, {**events[0], "deal_started": {**events[0]["deal_started"],
                                                                       "deck_commitment": record["deck_commitment"]}})
        else:
            before = m
            e = entries[v - 2]
            if v == len(entries) + 1:
                m = final  # the last entry may be a concession, which the log holds apart
            else:
                m = m.copy()
                if isinstance(e[1], int):
                    m.apply(e[1])
                elif e[1] == OutcomeAction.FORFEIT_DEAL:
                    m.forfeit_deal(e[0])
            events = events_between(before, m, v)
        view = public_view(m)
        view["match_id"], view["version"] = match_id, v
        step: dict[str, Any] = {"version": v, "events": events, "public_view": view, **open_cards(m)}
        if seat_views:
            step["seat_views"] = [{**information_set(m, s), "match_id": match_id, "version": v}
                                  for s in range(m.num_seats)]
        if v >= 2 and v - 2 < len(actions):
            step["action"] = actions[v - 2]
        steps.append(step)
    return {"record": dict(record), "steps": steps}


@dataclass(frozen=True)
class WatchFrame:
    """One update of :meth:`Spectators.watch`: the version shown, the public events since the
    previous frame, the public view at ``version`` and the public summary (``MatchSummary``
    shape) at ``version`` too: under a watch delay nothing in a frame comes from a later version."""

    version: int
    events: list[Event]
    public_view: InformationSet
    summary: dict[str, Any]
    match_over: bool = False
    memo: dict[Any, Any] | None = None
    """A scratch dict shared by every frame that shows this very ``public_view`` dict (the API
    layer keeps its encodings there, as :attr:`bummerl.core.matches.Update.memo`); None when the
    view was made for this frame alone (clocks)."""
    since: int = 0
    """The frame holds the events after this version (up to ``version``): frames with the same
    ``since`` and ``version`` of one match are equal, so the API layer may encode them once."""
    history_memo: dict[int, Any] | None = None
    """The deal's history encodings by identity (:attr:`bummerl.core.matches.Update.history_memo`)
    when ``public_view`` holds the loaded match's shared history views (a live frame), else None."""


class Spectators:
    """The spectator use cases over a :class:`~bummerl.core.matches.MatchService` (same store,
    same cache of loaded versions). ``max_watchers``: open watch streams per match in this
    process (0 = no cap); ``max_per_address``: open watch streams per client address in this
    process (0 = no cap; :data:`MAX_WATCHERS_PER_ADDRESS`); ``spread_s``: :data:`SPREAD_S`;
    ``lag``: the overload signal (:class:`~bummerl.core.limits.LoopLag`, a new one by default;
    see :data:`SHED_LAG_MS`), heeded from :attr:`shed_min_watchers` open streams
    (:data:`SHED_MIN_WATCHERS`); :attr:`update_budget_per_s` (:data:`UPDATE_BUDGET_PER_S`) spaces
    each spectator's frames by its share of a budget of updates. Each watched match has one follower in this process
    (:class:`~bummerl.core.watchfeed.Feeds`, :attr:`feeds`) whatever the number of its spectators."""

    def __init__(self, matches: MatchService, max_watchers: int = MAX_WATCHERS, spread_s: float = SPREAD_S,
                 max_per_address: int = MAX_WATCHERS_PER_ADDRESS, lag: LoopLag | None = None) -> None:
        self.matches = matches
        self.max_watchers = max_watchers
        self.max_per_address = max_per_address
        self.spread_s = spread_s
        self.lag = lag if lag is not None else LoopLag()
        self.shed_min_watchers = SHED_MIN_WATCHERS
        self.update_budget_per_s = UPDATE_BUDGET_PER_S
        self.open = 0
        """Open WatchMatch streams of this process."""
        self._watching = OpenCounts()
        self._by_address = OpenCounts()
        self._views: OrderedDict[tuple[str, int], tuple[InformationSet, dict[Any, Any]]] = OrderedDict()
        self.feeds = Feeds(lambda m: matches._load(m), lambda m, v: matches.store.events_since(m, v),
                           lambda m, v, t: matches._wait_events(m, v, t), lambda m, v: matches.cache.settled(m, v),
                           matches.stream_poll_ms)

    def _authorize(self, ld: Loaded, token: str | None) -> None:
        authorize_watch(ld.meta, token, self.matches.is_admin(token))

    async def replay_allowed(self, ld: Loaded, token: str | None) -> bool:
        """May every card of this match be shown to ``token``'s holder? The admin at any time;
        anyone once the match is over and, for a ladder game, its whole duplicate set too (the
        other games of the set deal the same cards)."""
        return self.matches.is_admin(token) or (replay_public(ld.meta) and
                                                await self.matches.revealed(ld.meta, ld.state.over))

    async def _check_ladder_game(self, ld: Loaded, token: str | None) -> None:
        """A ladder game is watched live only by the admin until its duplicate set is over: the
        cards it shows are hidden cards of the set's other games, which may be running. A game
        that is its own set (no duplicate deals: arenas, most challenges; meta ``ladder_solo``)
        shares no card with another game: anyone may watch it live."""
        if ld.meta.get("ladder_solo"):
            return
        if ld.meta.get("ladder_id") and not self.matches.is_admin(token) and \
                not await self.matches.revealed(ld.meta, ld.state.over):
            raise ReplayNotAvailableError("a ladder game can be watched once its duplicate set is over (its cards "
                                          "are hidden cards of the set's other games); then its replay shows it all")

    async def record(self, match_id: str, token: str | None) -> dict[str, Any]:
        """GetMatchRecord under the match's watch settings: a token-only match to its watch, seat
        or admin tokens (the errors of :func:`authorize_watch`); under a watch delay, others than
        its seats and the admin get the record as it was ``delay_moves`` versions ago while the
        match runs. The record's own rules for hidden cards apply
        (:meth:`bummerl.core.matches.MatchService.record`)."""
        ld = await self.matches._load(match_id)
        self._authorize(ld, token)
        rec = await self.matches.record(match_id, token)
        shown = self.shown_version(ld)
        if shown < ld.version and not self._is_seat_or_admin(ld, token):
            rec["actions"] = [a for a in rec["actions"] if int(a["version"]) <= shown]
            rec["version"] = shown
        return rec

    def _is_seat_or_admin(self, ld: Loaded, token: str | None) -> bool:
        if self.matches.is_admin(token):
            return True
        if not token:
            return False
        h = hash_token(token)
        return any(x and hmac.compare_digest(h, x)
                   for x in [*ld.meta.get("seat_tokens", ()), *(ld.meta.get("seat_bots") or ())])

    @staticmethod
    def shown_version(ld: Loaded) -> int:
        """The version a spectator sees: the newest once the match is over, else ``delay_moves``
        behind it (at least 1)."""
        delay = int((ld.meta.get("watch") or {}).get("delay_moves") or 0)
        return ld.version if ld.state.over or not delay else max(1, ld.version - delay)

    def view(self, match_id: str, ld: Loaded, version: int) -> tuple[InformationSet, dict[Any, Any]]:
        """The public view of ``version`` of the loaded match and its scratch memo (built once per
        process and version, shared: callers must not change the view; clocks are not in it). The
        newest version's view holds the deal's history views that the seats' information sets
        share (:meth:`~bummerl.core.cache.MatchCache.shared_history`), so its history is encoded once per entry."""
        key = (match_id, version)
        got = self._views.get(key)
        if got is None:
            if version == ld.version:
                view = public_view(ld.state, self.matches.cache.shared_history(ld))
            else:
                view = public_view(state_at(ld.state, ld.entries, version))
            view["match_id"], view["version"] = match_id, version
            got = self._views[key] = (view, {})
            while len(self._views) > VIEW_CACHE:
                self._views.popitem(last=False)
        return got

    def _summary(self, match_id: str, ld: Loaded, version: int) -> dict[str, Any]:
        """The public summary at ``version`` (the version a frame shows, which trails
        ``ld.version`` under a watch delay: a delayed frame tells nothing of later versions, so
        its summary's ``version`` is the one shown and ``over`` is false until the end is shown),
        built once per process and version (shared)."""
        memo = self.view(match_id, ld, version)[1]
        got = memo.get(-1)
        if got is None:
            got = match_summary(match_id, version, ld.state, ld.meta)
            if version < ld.version:
                got["over"] = False  # a version with a later one did not end the match
            memo[-1] = got
        return got

    def _frame(self, feed: MatchFeed, ld: Loaded, version: int, since: int) -> WatchFrame:
        """The frame of ``version`` (shown at ``ld``) with the events after ``since``: one object
        per (``ld.version``, ``since``, ``version``) for every spectator of the feed that gets it
        (:attr:`~bummerl.core.watchfeed.MatchFeed.frames`; a live frame with clocks for
        :data:`CLOCK_REUSE_S`), so its encodings (:attr:`WatchFrame.memo`) are made once."""
        key = (ld.version, since, version)
        got = feed.frames.get(key) if ld.version > feed.ld.version - FRAME_VERSIONS else None
        if got is not None and (got[1] is None or time.monotonic() - got[1] < CLOCK_REUSE_S):
            return cast(WatchFrame, got[0])
        match_id = feed.match_id
        view, memo = self.view(match_id, ld, version)
        memo_of: dict[Any, Any] | None = memo
        stamped = ld.clocks is not None and version == ld.version
        if stamped:  # live: the clocks now, in a view of its own with a memo of its own
            view, memo_of = self.matches.cache.stamp(dict(view), match_id, ld), {}  # type: ignore[arg-type]
        summary = self._summary(match_id, ld, version)
        deal = view.get("deal") or {}
        shares = bool(ld.history) and deal.get("history") is not None and bool(deal["history"]) \
            and deal["history"][0] is ld.history[0]
        frame = WatchFrame(version, feed.events_between(since, version), view, summary,
                           version == ld.version and ld.state.over, memo_of, since,
                           ld.history_memo if shares else None)
        if ld.version > feed.ld.version - FRAME_VERSIONS:
            feed.frames[key] = (frame, time.monotonic() if stamped else None)
        return frame

    def _lag_ms(self) -> float:
        """The event loop's lag (ms) while spectators are many enough to matter
        (:attr:`shed_min_watchers`), else 0."""
        return self.lag.ensure() if self.open >= self.shed_min_watchers else 0.0

    def _admit(self) -> None:
        """Refuse a new spectator while the process lags (:data:`SHED_LAG_MS`)."""
        lag = self._lag_ms()
        if lag >= SHED_LAG_MS:
            metrics.watcher_shed("overload_refused")
            raise ResourceExhaustedError(
                f"this server is busy with its matches (event loop {lag:.0f} ms late): spectators wait; "
                "retry later", retry_after_ms=round(REFUSE_RETRY_MS * (1 + random.random())))

    async def watch(self, match_id: str, token: str | None, from_version: int = 0,
                    peer: str = "") -> AsyncIterator[WatchFrame]:
        """Frames of the public view: first the version shown now with the events after
        ``from_version`` (up to it), then one frame per newly shown version, until the frame that
        shows the end of the match. A spectator slow to take its frames, one whose share of the
        update budget (:data:`UPDATE_BUDGET_PER_S`) is used, or one throttled while the process
        lags (:data:`SHED_LAG_MS`) gets the newest version with every event since its last frame:
        nothing queues for it. All spectators of a match in this process share one
        follower of its events (:attr:`feeds`) and the frames of each version (:meth:`_frame`).
        ``peer``: the client's address (grpc's ``ipv4:1.2.3.4`` form; "" = not counted).

        Raises NotFoundError, InvalidArgumentError, UnauthenticatedError, PermissionDeniedError,
        ReplayNotAvailableError (a ladder game), and ResourceExhaustedError with
        ``retry_after_ms`` (:attr:`max_watchers` of the match, :attr:`max_per_address` of the
        address, or the process lags while it has :attr:`shed_min_watchers` spectators) before
        the first frame; InvalidArgumentError for a negative ``from_version``; later ResourceExhaustedError (with ``retry_after_ms``) when the stream is
        ended to keep the seats fast (:data:`CLOSE_LAG_MS`), and the Redis errors of the follower."""
        if from_version < 0:
            raise InvalidArgumentError(f"from_version must be at least 0 (0 = from the start), got {from_version}")
        address = address_key(peer) if peer else ""
        cap = self.max_per_address if address else 0
        if cap and self._by_address[address] >= cap:
            metrics.watcher_shed("address")
        with self._by_address.hold(address, cap, f"this address has {cap} WatchMatch streams open on this server "
                                   "already; close one, or retry later", retry_after_ms=ADDRESS_RETRY_MS), \
                self._watching.hold(match_id, self.max_watchers, "this match has as many spectators on this server "
                                    "as it takes; retry later", retry_after_ms=5000):
            self._admit()
            metrics.spectator(1)
            self.open += 1
            try:
                async for frame in self._watch(match_id, token, from_version):
                    yield frame
            finally:
                self.open -= 1
                metrics.spectator(-1)

    async def _watch(self, match_id: str, token: str | None, from_version: int) -> AsyncIterator[WatchFrame]:
        ld = await self.matches._load(match_id)
        self._authorize(ld, token)
        await self._check_ladder_game(ld, token)
        feed = await self.feeds.join(match_id, ld)
        try:
            ld = feed.ld
            shown = self.shown_version(ld)
            yield self._frame(feed, ld, shown, from_version)
            last = max(shown, from_version)
            sent_at = time.monotonic()
            while not (ld.state.over and shown == ld.version):
                ld = await feed.newer_than(ld.version)
                shown = self.shown_version(ld)
                if shown <= last:
                    continue
                lag = self._lag_ms()
                if lag >= CLOSE_LAG_MS and random.random() < CLOSE_SHARE:
                    metrics.watcher_shed("overload_closed")
                    raise ResourceExhaustedError(
                        f"this server is busy with its matches (event loop {lag:.0f} ms late): spectators give way; "
                        f"watch again later with from_version {last}",
                        retry_after_ms=round(CLOSE_RETRY_MS * (1 + random.random())))
                # the least time between two frames of this spectator: THROTTLE_S while the process
                # lags, else its share of the update budget (0.3 s each for 1,000 spectators)
                gap = THROTTLE_S if lag >= SHED_LAG_MS else \
                    self.open / self.update_budget_per_s if self.update_budget_per_s else 0.0
                spread = self.spread_s * random.random()
                held = gap - (time.monotonic() - sent_at)
                if held > spread:  # the newest version once the gap is over, with every event since
                    await asyncio.sleep(held)
                    ld = feed.ld
                    shown = self.shown_version(ld)
                elif spread > 0:  # the version due, a little later (what comes meanwhile: the next frame)
                    await asyncio.sleep(spread)
                yield self._frame(feed, ld, shown, last)
                last = shown
                sent_at = time.monotonic()
        finally:
            self.feeds.leave(feed)

    async def remember(self, match_id: str) -> None:
        """Note a match created through CreateMatch for the ``recent`` list (capped at :data:`RECENT`)."""
        client = self.matches.store.client
        key = aux_key("recent")
        await client.lpush(key, match_id)
        await client.ltrim(key, 0, RECENT - 1)

    async def list_matches(self, limit: int = 20) -> dict[str, list[dict[str, Any]]]:
        """``{"running": [...], "recent": [...]}`` of ``MatchListing`` dicts (match_id, variant,
        seat_names, created_at_ms, over): up to ``limit`` (1..:data:`MAX_LIST`, 0 = 20) matches not
        yet over, and the most recently created ones, newest first; matches watched by token only
        and ladder games (listed by their ladder) are left out. Raises InvalidArgumentError for a bad limit."""
        if not 0 <= limit <= MAX_LIST:
            raise InvalidArgumentError(f"limit must be in 0..{MAX_LIST}, got {limit}")
        limit = limit or 20
        store = self.matches.store
        client = store.client
        recent = [m.decode() if isinstance(m, bytes) else str(m)
                  for m in await client.lrange(aux_key("recent"), 0, limit * 4 - 1)]
        # the running ones: the newest created that are not over, topped up with a sample of the
        # active set (matches older than the recent list)
        running = recent + await store.sample_active(limit * 2)
        ids = list(dict.fromkeys(running + recent))
        pipe = client.pipeline(transaction=False)
        for mid in ids:
            pipe.hmget(store.layout.state_key(mid), [META_PREFIX + k for k in _LISTED_META])
        found: dict[str, dict[str, Any]] = {}
        for mid, raw in zip(ids, await pipe.execute(), strict=True):
            if raw[0] is None:
                continue  # expired
            meta = [orjson.loads(x) if x is not None else None for x in raw]
            if (meta[4] or {}).get("access", "public") != "public" or meta[5]:
                continue  # watched by token only; a ladder's game (its ladder lists it)
            found[mid] = {"match_id": mid, "variant": meta[0], "seat_names": list(meta[1] or []),
                          "created_at_ms": int(meta[2] or 0), "over": bool(meta[3])}
        run = [found[m] for m in dict.fromkeys(running) if m in found and not found[m]["over"]]
        return {"running": run[:limit], "recent": [found[m] for m in recent if m in found][:limit]}

    async def replay(self, match_id: str, token: str | None, seat_views: bool = False) -> dict[str, Any]:
        """The full replay (:func:`build_replay`) of a match :func:`replay_public` allows; raises
        ReplayNotAvailableError otherwise (the match is running, or a ladder game's set is not
        over), and the errors of :meth:`watch`'s access check."""
        ld = await self.matches._load(match_id)
        self._authorize(ld, token)
        if not await self.replay_allowed(ld, token):
            why = "the match is not over" if not ld.meta.get("over") else "its ladder's duplicate set is not over"
            raise ReplayNotAvailableError(f"no replay yet: {why}")
        record = await self.matches.record(match_id, token)
        return build_replay(match_id, ld.state, ld.entries, record, seat_views)

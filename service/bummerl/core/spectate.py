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
  update). Under a delay the state of an older version is rebuilt by replaying the match's log.
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
from collections import OrderedDict
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from typing import Any, cast

import orjson

from bummerl import metrics
from bummerl.rules import DealState, MatchState, events_between, information_set, initial_events, public_view
from bummerl.rules.base.cards import card_code, cards_of
from bummerl.rules.base.events import upgrade_event
from bummerl.rules.base.views import Event, InformationSet
from bummerl.store.keys import META_PREFIX, aux_key

from .auth import hash_token
from .cache import Loaded
from .errors import (
    InvalidArgumentError,
    PermissionDeniedError,
    ReplayNotAvailableError,
    UnauthenticatedError,
)
from .limits import OpenCounts
from .log import OutcomeAction, log_actions
from .matches import MatchService
from .record import match_summary

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
    process (0 = no cap); ``spread_s``: :data:`SPREAD_S`."""

    def __init__(self, matches: MatchService, max_watchers: int = MAX_WATCHERS, spread_s: float = SPREAD_S) -> None:
        self.matches = matches
        self.max_watchers = max_watchers
        self.spread_s = spread_s
        self._watching = OpenCounts()
        self._views: OrderedDict[tuple[str, int], tuple[InformationSet, dict[Any, Any]]] = OrderedDict()
        self._events: OrderedDict[tuple[str, int, bytes], Event] = OrderedDict()

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
        cards it shows are hidden cards of the set's other games, which may be running."""
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

    def _frame(self, match_id: str, ld: Loaded, version: int, events: list[Event], since: int) -> WatchFrame:
        view, memo = self.view(match_id, ld, version)
        shared: dict[Any, Any] | None = memo
        if ld.clocks is not None and version == ld.version:  # live: the clocks now
            view, shared = self.matches.cache.stamp(dict(view), match_id, ld), None  # type: ignore[arg-type]
        summary = self._summary(match_id, ld, version)
        deal = view.get("deal") or {}
        shares = bool(ld.history) and deal.get("history") is not None and bool(deal["history"]) \
            and deal["history"][0] is ld.history[0]
        return WatchFrame(version, events, view, summary, version == ld.version and ld.state.over, shared, since,
                          ld.history_memo if shares else None)

    def _decode(self, match_id: str, ld: Loaded, got: list[tuple[int, bytes]]) -> list[Event]:
        """Stored events as ``Event`` dicts, decoded once per process (shared by the spectators).
        A version without a public event (a card laid away face down, TS-TAL-1, HU3S-TAL-1) has
        one empty payload (:data:`bummerl.store.keys.NO_EVENT`): skipped, it decodes to nothing."""
        spec = ld.state.rules.spec
        sizes = [spec.hand_size] * spec.num_players
        out: list[Event] = []
        for v, p in got:
            if not p:
                continue
            key = (match_id, v, p)
            e = self._events.get(key)
            if e is None:
                e = self._events[key] = upgrade_event(orjson.loads(p), sizes)
                while len(self._events) > VIEW_CACHE * 4:
                    self._events.popitem(last=False)
            out.append(e)
        return out

    async def watch(self, match_id: str, token: str | None, from_version: int = 0) -> AsyncIterator[WatchFrame]:
        """Frames of the public view: first the version shown now with the events after
        ``from_version`` (up to it), then one frame per newly shown version, until the frame that
        shows the end of the match. Waits on the match's event stream (no polling of the state)
        and reads the match again only when this process does not hold the version the events
        name. Raises NotFoundError, InvalidArgumentError, UnauthenticatedError,
        PermissionDeniedError, ResourceExhaustedError (:attr:`max_watchers`) before the first frame;
        InvalidArgumentError for a negative ``from_version``."""
        if from_version < 0:
            raise InvalidArgumentError(f"from_version must be at least 0 (0 = from the start), got {from_version}")
        with self._watching.hold(match_id, self.max_watchers, "this match has as many spectators on this server as "
                                 "it takes; retry later", retry_after_ms=5000):
            metrics.spectator(1)
            try:
                async for frame in self._watch(match_id, token, from_version):
                    yield frame
            finally:
                metrics.spectator(-1)

    async def _watch(self, match_id: str, token: str | None, from_version: int) -> AsyncIterator[WatchFrame]:
        ld = await self.matches._load(match_id)
        self._authorize(ld, token)
        await self._check_ladder_game(ld, token)
        shown = self.shown_version(ld)
        stored = await self.matches.store.events_since(match_id, max(0, from_version))
        pending = [(v, p) for v, p in stored if v > from_version]
        seen = max([ld.version, *(v for v, _ in pending)])
        yield self._frame(match_id, ld, shown, self._decode(match_id, ld, [(v, p) for v, p in pending if v <= shown]),
                          from_version)
        last = max(shown, from_version)
        pending = [(v, p) for v, p in pending if v > last]
        while not (ld.state.over and shown == ld.version):
            got = await self.matches._wait_events(match_id, seen, self.matches.stream_poll_ms)
            if not got:
                continue
            pending += [(v, p) for v, p in got if v > seen]
            seen = max(seen, *(v for v, _ in got))
            held = self.matches.cache.at_least(match_id, seen)  # a version this process holds is immutable: no read
            ld = held if held is not None else await self.matches._load(match_id)
            if ld.version > seen:  # commits landed after the events we were handed: no gap
                pending += [(v, p) for v, p in await self.matches.store.events_since(match_id, seen) if v <= ld.version]
                seen = ld.version
            shown = self.shown_version(ld)
            if shown <= last:
                continue
            evs = self._decode(match_id, ld, [(v, p) for v, p in pending if last < v <= shown])
            pending = [(v, p) for v, p in pending if v > shown]
            if self.spread_s:
                await asyncio.sleep(self.spread_s * random.random())
            yield self._frame(match_id, ld, shown, evs, last)
            last = shown

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

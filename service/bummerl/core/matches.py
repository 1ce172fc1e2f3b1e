"""Match use cases: create, observe, act, stream, resign, record (DESIGN §3).

Stateless: every call loads the match from Redis (one round trip), checks, applies the pure
rules engine, and writes back with one atomic compare-and-set on the match version that also
appends the public events to the match's stream (:class:`bummerl.store.MatchStore`). No match
state stays in process memory between calls, so any replica can serve any request.

Stored per match (``bm:{<id>}:state``): the state blob is JSON ``{"snapshot": MatchState.snapshot(),
"entries": [[seat, action, ts_ms, deal_number], ...]}`` where entry ``i`` produced version
``i + 2`` (version 1 = created; ``action`` is an action id or ``"resign"``). The snapshot holds the log
(seed, decks, first dealer, actions: the source of truth, which replays to the same state) and
the state it produces, so a request restores it without replaying. Meta: ``seat_tokens`` (SHA-256 hex of each seat token, never the token),
``seats`` (names), ``variant``, ``created_at_ms``, ``over``.

Errors (:mod:`bummerl.core.errors`): NotFoundError, InvalidArgumentError, UnauthenticatedError,
PermissionDeniedError, StaleVersionError(current_version), MatchOverError, and the engine's
IllegalActionError / InvalidActionError. A rejected call leaves the stored match unchanged.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import time
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from bummerl import metrics
from bummerl.rules import (
    IllegalActionError,
    InvalidOptionError,
    MatchState,
    UnknownVariantError,
    action_to_string,
    actions,
    event_to_dict,
    events_between,
    find_variant,
    information_set,
    list_variants,
    match_result,
    parse_action,
)
from bummerl.rules import MatchOverError as RulesMatchOverError
from bummerl.rules.cards import card_code
from bummerl.store import MatchNotFoundError, MatchStore, VersionConflictError

from .errors import (
    InvalidArgumentError,
    MatchOverError,
    NotFoundError,
    PermissionDeniedError,
    StaleVersionError,
    UnauthenticatedError,
)

RESIGN = "resign"


def _now_ms() -> int:
    return int(time.time() * 1000)


def hash_token(token: str) -> str:
    """SHA-256 hex of a seat token: the only form the server stores (tokens never hit logs)."""
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True)
class CreatedMatch:
    """Result of :meth:`MatchService.create_match`: the id, one secret token per seat (shown
    once), and the public summary (``summary()`` shape)."""

    match_id: str
    tokens: list[str]
    summary: dict[str, Any]


@dataclass(frozen=True)
class Update:
    """One step of a match as a seat sees it: the version, the public events that led to it
    (each with ``version`` and ``deal_number``), and the seat's information set at ``version``."""

    version: int
    events: list[dict[str, Any]]
    information_set: dict[str, Any]
    duplicate: bool = False
    match_over: bool = field(default=False)


@dataclass
class _Loaded:
    version: int
    state: MatchState
    entries: list[list[Any]]
    meta: dict[str, Any]


class MatchService:
    """The match use cases over a :class:`MatchStore`. ``now_ms`` is injectable (tests, clocks)."""

    def __init__(self, store: MatchStore, now_ms: Callable[[], int] = _now_ms, stream_poll_ms: int = 15000) -> None:
        self.store = store
        self.now_ms = now_ms
        self.stream_poll_ms = stream_poll_ms

    # ------------------------------------------------------------------ variants
    def list_variants(self) -> list[dict[str, Any]]:
        """Every variant as ``VariantSpec.to_dict()`` (id, aliases, deck with local names, options)."""
        return [v.to_dict() for v in list_variants()]

    # ------------------------------------------------------------------ create
    async def create_match(
        self,
        variant: str,
        options: Mapping[str, str] | None = None,
        seat_names: Sequence[str] = (),
        seed: int | None = None,
    ) -> CreatedMatch:
        """Create a match at version 1. ``seat_names`` must be empty (default names) or have one
        name per player. Raises InvalidArgumentError for an unknown variant (naming the known
        ones), an unknown option or a bad value (naming the option), or a wrong seat count."""
        try:
            spec = find_variant(variant)
            rules = spec.configure(dict(options or {}))
        except (UnknownVariantError, InvalidOptionError) as e:
            raise InvalidArgumentError(str(e)) from None
        names = list(seat_names) or [f"seat{i}" for i in range(spec.num_players)]
        if len(names) != spec.num_players:
            raise InvalidArgumentError(f"{spec.id} needs {spec.num_players} seats, got {len(names)}")
        if seed is not None and not 0 <= seed < 2**63:
            raise InvalidArgumentError("seed must be in 0 .. 2**63-1")
        m = MatchState(rules, secrets.randbits(63) if seed is None else seed)
        tokens = [secrets.token_hex(32) for _ in names]  # 256-bit, hex (no leading "-" for CLIs)
        match_id = secrets.token_hex(12)
        created = self.now_ms()
        meta = {
            "variant": spec.id,
            "seats": names,
            "seat_tokens": [hash_token(t) for t in tokens],
            "created_at_ms": created,
            "over": False,
        }
        events = [dict(event_to_dict(e), version=1, deal_number=0) for e in m.deal.history]
        await self.store.create(match_id, self._encode(m, []), meta, [self._event_bytes(e) for e in events])
        metrics.match_created(spec.id)
        return CreatedMatch(match_id, tokens, self._summary(match_id, 1, m, meta))

    # ------------------------------------------------------------------ observe
    async def information_set(self, match_id: str, seat: int, token: str | None) -> dict[str, Any]:
        """The seat's information set at the current version (adds ``match_id``, ``version``)."""
        ld = await self._load(match_id)
        self._authorize(ld, seat, token)
        return self._infoset(match_id, ld.version, ld.state, seat)

    # ------------------------------------------------------------------ act
    async def submit_action(
        self, match_id: str, seat: int, token: str | None, expected_version: int, action: int | str
    ) -> Update:
        """Apply ``action`` (id or text) of ``seat`` chosen at ``expected_version``.

        One CAS commit. A retry of the action already applied at ``expected_version`` is answered
        with ``duplicate=True`` and changes nothing; any other stale version raises
        StaleVersionError(current); an illegal action raises IllegalActionError (state unchanged).
        """
        a = parse_action(action) if isinstance(action, str) else actions.check_id(action)
        ld = await self._load(match_id)
        self._authorize(ld, seat, token)
        if expected_version != ld.version:
            idx = expected_version - 1
            if 0 <= idx < len(ld.entries) and ld.entries[idx][0] == seat and ld.entries[idx][1] == a:
                return Update(ld.version, [], self._infoset(match_id, ld.version, ld.state, seat), duplicate=True,
                              match_over=ld.state.over)
            raise StaleVersionError(ld.version)
        before = ld.state
        if before.over:
            raise MatchOverError("the match is over")
        if before.to_act != seat:
            raise IllegalActionError(f"it is not seat {seat}'s turn (seat {before.to_act} is to act)")
        after = before.copy()
        try:
            after.apply(a)
        except RulesMatchOverError:
            raise MatchOverError("the match is over") from None
        return await self._commit(match_id, ld, before, after, [seat, a, self.now_ms(), before.deal_number], seat)

    async def resign(self, match_id: str, seat: int, token: str | None) -> Update:
        """The seat resigns: the match ends, the other seat wins (reason ``resigned``)."""
        ld = await self._load(match_id)
        self._authorize(ld, seat, token)
        if ld.state.over:
            raise MatchOverError("the match is over")
        after = ld.state.copy()
        after.resign(seat)
        return await self._commit(match_id, ld, ld.state, after, [seat, RESIGN, self.now_ms(), ld.state.deal_number], seat)

    async def _commit(self, match_id: str, ld: _Loaded, before: MatchState, after: MatchState,
                      entry: list[Any], seat: int) -> Update:
        version = ld.version + 1
        events = [dict(e, version=version, deal_number=after.deal_number) for e in events_between(before, after)]
        for e in events:  # a deal_end belongs to the deal it ends
            if e["type"] == "deal_end":
                e["deal_number"] = e["result"]["deal_number"]
        entries = [*ld.entries, entry]
        meta_updates = {"over": True} if after.over else None
        try:
            new_version = await self.store.commit(
                match_id, ld.version, self._encode(after, entries), [self._event_bytes(e) for e in events], meta_updates
            )
        except VersionConflictError as e:
            metrics.cas_conflict()
            raise StaleVersionError(e.current_version) from None
        except MatchNotFoundError:
            raise NotFoundError(f"no match {match_id!r}") from None
        variant = after.rules.spec.id
        metrics.action_applied(variant)
        if after.over:
            metrics.match_finished(variant)
        return Update(new_version, events, self._infoset(match_id, new_version, after, seat), match_over=after.over)

    # ------------------------------------------------------------------ stream
    async def stream(self, match_id: str, seat: int, token: str | None, from_version: int = 0) -> AsyncIterator[Update]:
        """Updates for ``seat``: first a snapshot (current information set + events after
        ``from_version``), then one update per new version, until the update that ends the
        match. Uses blocking stream reads (XREAD BLOCK), no polling of the state."""
        ld = await self._load(match_id)
        self._authorize(ld, seat, token)
        since = await self.store.events_since(match_id, max(0, from_version))
        yield Update(ld.version, [json.loads(p) for _, p in since], self._infoset(match_id, ld.version, ld.state, seat),
                     match_over=ld.state.over)
        last = ld.version
        over = ld.state.over
        while not over:
            got = await self.store.wait_events(match_id, last, self.stream_poll_ms)
            if not got:
                continue
            ld = await self._load(match_id)
            evs = [json.loads(p) for v, p in got if v <= ld.version]
            top = max(v for v, _ in got)
            if top < ld.version:  # commits landed between the read and the load: no gap
                evs += [json.loads(p) for v, p in await self.store.events_since(match_id, top) if v <= ld.version]
            last = ld.version
            over = ld.state.over
            yield Update(ld.version, evs, self._infoset(match_id, ld.version, ld.state, seat), match_over=over)

    # ------------------------------------------------------------------ record
    async def record(self, match_id: str) -> dict[str, Any]:
        """The match record (shape of the ``MatchRecord`` message): summary fields, every action
        with its version, seat, id, text, time (ms since the epoch) and deal, the deals with their
        dealer and result, and the match result; the seed and the deck orders only once the match
        is over (RULES.md §14.3: hidden cards are never revealed during the match)."""
        ld = await self._load(match_id)
        m = ld.state
        summary = self._summary(match_id, ld.version, m, ld.meta)
        acts = [
            {"version": i + 2, "seat": seat, "action_id": -1 if a == RESIGN else a,
             "action_text": RESIGN if a == RESIGN else action_to_string(a), "timestamp_ms": ts, "deal_number": dn}
            for i, (seat, a, ts, dn) in enumerate(ld.entries)
        ]
        deals = []
        for n in range(m.deal_number + 1):
            hist = m.histories[n] if n < len(m.histories) else m.deal.history
            deal: dict[str, Any] = {"deal_number": n, "dealer": hist[0][1]}
            if m.over:
                deal["deck_order"] = [card_code(c) for c in m.deck_for(n)]
            if n < len(m.results):
                deal["result"] = m.results[n].to_dict()
            deals.append(deal)
        rec: dict[str, Any] = {
            "match_id": match_id,
            "variant": summary["variant"],
            "options": summary["options"],
            "seats": summary["seats"],
            "team_of_seat": summary["team_of_seat"],
            "deals": deals,
            "actions": acts,
            "over": m.over,
            "version": ld.version,
            "created_at_ms": summary["created_at_ms"],
        }
        if m.over:
            rec["seed"] = m.seed
            rec["match_result"] = match_result(m)
        return rec

    # ------------------------------------------------------------------ helpers
    async def _load(self, match_id: str) -> _Loaded:
        if not match_id or len(match_id) > 64 or not match_id.isalnum():
            raise InvalidArgumentError("match_id must be 1-64 letters or digits")
        stored = await self.store.load(match_id)
        if stored is None:
            raise NotFoundError(f"no match {match_id!r}")
        blob = json.loads(stored.state)
        return _Loaded(stored.version, MatchState.from_snapshot(blob["snapshot"]), blob["entries"], stored.meta)

    @staticmethod
    def _authorize(ld: _Loaded, seat: int, token: str | None) -> None:
        hashes = ld.meta["seat_tokens"]
        if not 0 <= seat < len(hashes):
            raise InvalidArgumentError(f"seat {seat} is not at this table (0..{len(hashes) - 1})")
        if not token:
            raise UnauthenticatedError("missing seat token (authorization: Bearer <token>)")
        h = hash_token(token)
        if hmac.compare_digest(h, hashes[seat]):
            return
        if any(hmac.compare_digest(h, x) for x in hashes):
            raise PermissionDeniedError(f"this token belongs to another seat, not seat {seat}")
        raise UnauthenticatedError("invalid seat token")

    @staticmethod
    def _encode(m: MatchState, entries: list[list[Any]]) -> bytes:
        return json.dumps({"snapshot": m.snapshot(), "entries": entries}, separators=(",", ":")).encode()

    @staticmethod
    def _event_bytes(e: dict[str, Any]) -> bytes:
        return json.dumps(e, separators=(",", ":")).encode()

    @staticmethod
    def _infoset(match_id: str, version: int, m: MatchState, seat: int) -> dict[str, Any]:
        d = information_set(m, seat)
        d["match_id"] = match_id
        d["version"] = version
        return d

    @staticmethod
    def _summary(match_id: str, version: int, m: MatchState, meta: dict[str, Any]) -> dict[str, Any]:
        opts = information_set(m, 0)["options"]
        return {
            "match_id": match_id,
            "variant": m.rules.spec.id,
            "options": opts,
            "seats": [{"seat": i, "name": n, "team": i} for i, n in enumerate(meta["seats"])],
            "team_of_seat": [0, 1],
            "version": version,
            "over": m.over,
            "created_at_ms": meta["created_at_ms"],
        }

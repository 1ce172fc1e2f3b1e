"""Match use cases: create, observe, act, stream, resign, record (docs/DESIGN.md §3).

Stateless: every call loads the match from Redis (one round trip; only the version comes back when
this process already holds the current one, :class:`~bummerl.core.versions.VersionCache`), checks, applies the pure rules
engine, and writes back with one atomic compare-and-set on the match version that also appends the
public events to the match's stream (:class:`bummerl.store.MatchStore`). A SubmitAction at the
version this process holds skips the load: the compare-and-set is the check. What a process holds
is only a cache of immutable versions, so any replica can serve any request.

The stored form (the state blob, its log entries, the meta) is :mod:`bummerl.core.stored`; what a
process keeps of the versions it committed or read, and why that is safe across replicas, is
:mod:`bummerl.core.cache`. The log's outcome kinds and service outcomes are the string enums of
:mod:`bummerl.core.log`, the timeout policies :class:`~bummerl.core.clocks.TimeoutPolicy`.

Time (docs/DESIGN.md §5, :mod:`bummerl.core.clocks`): the deadline of the seat to act is stored in the blob and
indexed in the store's deadlines sorted set by the same commit; :meth:`MatchService.expire` (called by
the reaper, :mod:`bummerl.core.reaper`) and a late :meth:`MatchService.submit_action` apply the match's
timeout policy through the same compare-and-set, so exactly one of them commits it.

Errors (:mod:`bummerl.core.errors`): NotFoundError, InvalidArgumentError, UnauthenticatedError,
PermissionDeniedError, StaleVersionError(current_version), MatchOverError, and the engine's
IllegalActionError / InvalidActionError. A rejected call leaves the stored match unchanged.
"""

from __future__ import annotations

import contextlib
import dataclasses
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import orjson

from bummerl import metrics
from bummerl.rules import (
    InvalidActionError,
    InvalidOptionError,
    MatchEnd,
    MatchState,
    UnknownVariantError,
    actions,
    events_between,
    find_variant,
    initial_events,
    list_variants,
    match_result,
    parse_action,
)
from bummerl.rules.base.events import upgrade_event
from bummerl.rules.base.views import Event, InformationSet
from bummerl.store import MatchNotFoundError, MatchStore, VersionConflictError
from bummerl.store.errors import ReplicationTimeoutError

from .auth import authorize_seat, check_admin, is_admin
from .auth import hash_token as hash_token  # where bummerl.ladder.service imports it
from .cache import Loaded, MatchCache
from .clocks import DEFAULT_TIMEOUT_POLICY, TIMEOUT_POLICIES, Clocks, TimeControl, TimeControlError
from .errors import (
    InvalidArgumentError,
    MatchOverError,
    NotFoundError,
    StaleVersionError,
    TimeoutLostError,
    table_error,
)
from .limits import Limit, OpenCounts, RateLimiter
from .log import RESIGN_REASONS, LogEntry, OutcomeAction, OutcomeKind
from .record import build_record, match_summary, seat_stats
from .stored import decode, encode_blob, event_bytes
from .submit import TOKEN_ERRORS, check_retry, check_submit
from .timeouts import deadline_ms, timeout_step
from .verify import deck_commitment
from .versions import VersionCache

STREAM_CAP_RETRY_MS = 1000
"""``bummerl-retry-after-ms`` of a stream refused at the cap per seat: an immediate retry would be
refused again (a stream of the seat has to end first)."""
MAX_SEAT_NAME = 64
"""Longest seat name, in characters (printable, no control characters)."""


def _check_seat_name(name: object, i: int) -> str:
    if not isinstance(name, str) or not name.strip():
        raise InvalidArgumentError(f"seat {i}: the name must be 1-{MAX_SEAT_NAME} printable characters")
    if len(name) > MAX_SEAT_NAME:
        raise InvalidArgumentError(f"seat {i}: the name is {len(name)} characters long; at most {MAX_SEAT_NAME}")
    if not name.isprintable():
        raise InvalidArgumentError(f"seat {i}: the name contains control or non-printable characters")
    return name


def _now_ms() -> int:
    return int(time.time() * 1000)


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
    (each with ``version`` and ``deal_number``), and the seat's information set at ``version``
    (:mod:`bummerl.rules.base.views` shapes)."""

    version: int
    events: list[Event]
    information_set: InformationSet
    duplicate: bool = False
    match_over: bool = field(default=False)
    memo: dict[int, Any] | None = field(default=None, compare=False, repr=False)
    """A scratch dict of the version this update shows (:attr:`~bummerl.core.cache.Loaded.memo`),
    shared by every update of that version in this process and dropped with it: the API layer keeps
    there what it derives from the shared dicts (their encodings) so that it derives it once per
    version. The core never reads it. None when nothing is shared (an answer built for one caller)."""
    history_memo: dict[int, Any] | None = field(default=None, compare=False, repr=False)
    """A scratch dict shared by the versions of one deal this process holds in a row
    (:attr:`~bummerl.core.cache.Loaded.history_memo`), for what the API layer derives from the
    deal's history dicts, which those versions share (their encodings:
    ``codec.information_set_to_pb(..., history_memo)``); replaced by an empty one with each new
    deal. The core never reads it."""


@dataclass(frozen=True)
class MatchSettings:
    """What a :class:`MatchService` is configured with (``bummerl serve`` fills it from
    :class:`bummerl.config.Settings`).

    Attributes:
        admin_token: the admin secret (creating matches, any record at any time); None = anyone may
            create matches. Never shown (not in ``repr``).
        idle_limit_ms: default idle limit of a match without a time control, **ms** (0 = never).
        stream_poll_ms: longest wait of a stream for the next version before it looks again, **ms**.
        max_streams_per_seat: open streams per match seat in this process (0 = no cap).
        retention_ms: how long a finished match is kept, **ms**.
        create_per_min: CreateMatch calls per caller and minute (0 = no limit).
        actions_per_s: SubmitAction calls per seat and second (0 = no limit).
    """

    admin_token: str | None = field(default=None, repr=False)
    idle_limit_ms: int = 0
    stream_poll_ms: int = 15000
    max_streams_per_seat: int = 8
    retention_ms: int = 30 * 24 * 3600 * 1000
    create_per_min: int = 0
    actions_per_s: int = 0


class MatchService:
    """The match use cases over a :class:`MatchStore`.

    ``settings``: a :class:`MatchSettings` (default: its defaults); ``overrides``: any of its fields
    by name, replacing that field (``MatchService(store, admin_token="x")``; TypeError for an
    unknown name). With ``admin_token`` set, :meth:`create_match` needs it (PermissionDeniedError
    otherwise). A match where nobody acts for ``idle_limit_ms`` ends as ``abandoned``; finished
    matches expire ``retention_ms`` after their last commit (0 = keep).
    ``now_ms``: the clock (ms since the epoch), injectable so that tests never sleep.
    ``hub``: a :class:`~bummerl.store.StreamHub` that serves the blocking waits of every stream
    over one connection per shard (None = one ``XREAD BLOCK`` connection per stream).
    ``cache``: the process's :class:`~bummerl.core.cache.MatchCache` of the versions it holds;
    ``versions``: its :class:`~bummerl.core.versions.VersionCache`.
    """

    def __init__(
        self,
        store: MatchStore,
        settings: MatchSettings | None = None,
        *,
        now_ms: Callable[[], int] = _now_ms,
        hub: Any = None,
        **overrides: Any,
    ) -> None:
        settings = dataclasses.replace(settings or MatchSettings(), **overrides)  # TypeError on an unknown name
        self.settings = settings
        self.store = store
        self.now_ms = now_ms
        self.stream_poll_ms = settings.stream_poll_ms
        self._admin_hash = hash_token(settings.admin_token) if settings.admin_token else None
        self.idle_limit_ms = settings.idle_limit_ms
        self._wait_events = hub.wait_events if hub is not None else store.wait_events
        self.max_streams_per_seat = settings.max_streams_per_seat
        self._open_streams = OpenCounts()
        self.cache = MatchCache(now_ms)
        self.retention_ms = settings.retention_ms
        self.limiter = RateLimiter(store, {"create": Limit(settings.create_per_min, 60_000),
                                           "action": Limit(settings.actions_per_s, 1000)}, now_ms)
        self.reveal_check: Callable[[dict[str, Any]], Awaitable[bool]] | None = None
        """For a ladder game (meta ``ladder_id``): is its whole duplicate set over? Set by the
        ladder service (:meth:`bummerl.ladder.service.LadderService.set_over`); None = never, so a
        ladder game's hidden cards are shown only to the admin (fail closed)."""

    @property
    def versions(self) -> VersionCache[Loaded]:
        """The newest version of each match this process holds (``cache.versions``)."""
        return self.cache.versions

    def is_admin(self, token: str | None) -> bool:
        """True when the server has an admin token and ``token`` is it (no admin token
        configured: nobody is, so nothing hidden is revealed early on an open server)."""
        return is_admin(self._admin_hash, token)

    async def revealed(self, ld_meta: dict[str, Any], over: bool) -> bool:
        """May every hidden card of a match (seed, salt, decks, laid-away cards) be shown to anyone?
        Only once it is ``over`` and, for a ladder game, once every game of its duplicate set is over
        (a later leg replays the same seed: issue 25)."""
        if not over:
            return False
        if not ld_meta.get("ladder_id"):
            return True
        return self.reveal_check is not None and await self.reveal_check(ld_meta)

    def check_admin(self, token: str | None) -> None:
        """Raise PermissionDeniedError unless ``token`` is the admin token (no-op when the server
        has none configured)."""
        check_admin(self._admin_hash, token)

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
        time_control: TimeControl | dict[str, Any] | None = None,
        timeout_policy: str | None = None,
        idle_limit_ms: int | None = None,
        admin_token: str | None = None,
        caller: str = "",
        *,
        max_deals: int = 0,
        suit_perm: Sequence[int] = (),
        seat_bot_hashes: Sequence[str] = (),
        match_id: str | None = None,
        ladder_id: str = "",
        ladder_set: int | None = None,
        ladder_solo: bool = False,
        trusted: bool = False,
        watch_meta: Mapping[str, Any] | None = None,
    ) -> CreatedMatch:
        """Create a match at version 1. ``seat_names`` must be empty (default names) or have one
        name per player (1-64 printable characters each). ``time_control``: a
        :class:`TimeControl` or its dict (all ms), None = no clock. ``timeout_policy``: one of
        :data:`~bummerl.core.clocks.TIMEOUT_POLICIES` (:class:`~bummerl.core.clocks.TimeoutPolicy`;
        default ``forfeit-match``).
        ``idle_limit_ms``: for a match without a time control, end it as abandoned after this many
        ms without an action (None = the server default, 0 = never).

        Raises PermissionDeniedError without the admin token when the server has one;
        InvalidArgumentError for an unknown variant (naming the known ones), an unknown option or
        a bad value (naming the option), a wrong seat count or name, a bad time control, policy or
        idle limit.

        Internal (ladders, ``trusted=True`` skips the admin and rate checks): ``max_deals`` and
        ``suit_perm`` (see :class:`~bummerl.rules.MatchState`), ``seat_bot_hashes`` (SHA-256 of the
        bot token allowed to play each seat besides its seat token), a fixed ``match_id`` (raises
        the store's MatchExistsError if taken), ``ladder_id`` and ``ladder_set`` (the duplicate set,
        kept in the meta: the record reveals hidden cards once the whole set is over), ``ladder_solo``
        (the game is its own set, no duplicate deals: anyone may watch it live); ``watch_meta``:
        who may watch (:func:`bummerl.core.spectate.new_watch`; None = public, no delay).

        Every match publishes a commitment to its decks (``deck_commitment`` in the summary and
        the first event; :mod:`bummerl.core.verify`)."""
        if not trusted:
            self.check_admin(admin_token)
            await self.limiter.check("create", caller)
        try:
            spec = find_variant(variant)
            rules = spec.configure(dict(options or {}))
        except (UnknownVariantError, InvalidOptionError) as e:
            raise table_error(e) from None
        names = list(seat_names) or [f"seat{i}" for i in range(spec.num_players)]
        if len(names) != spec.num_players:
            raise InvalidArgumentError(f"{spec.id} needs {spec.num_players} seats, got {len(names)}")
        names = [_check_seat_name(n, i) for i, n in enumerate(names)]
        if seed is not None and not 0 <= seed < 2**63:
            raise InvalidArgumentError(f"seed must be in 0..{2**63 - 1}, got {seed}")
        try:
            tc = TimeControl.from_dict(time_control) if isinstance(time_control, dict) else time_control
        except TimeControlError as e:
            raise InvalidArgumentError(str(e)) from None
        policy = timeout_policy or DEFAULT_TIMEOUT_POLICY
        if policy not in TIMEOUT_POLICIES:
            raise InvalidArgumentError(f"timeout_policy must be one of {', '.join(TIMEOUT_POLICIES)}, got {policy!r}")
        idle = self.idle_limit_ms if idle_limit_ms is None else idle_limit_ms
        if not 0 <= idle <= 30 * 24 * 3600 * 1000:
            raise InvalidArgumentError("idle_limit_ms must be in 0 .. 30 days (ms)")
        m = MatchState(rules, secrets.randbits(63) if seed is None else seed, max_deals=max_deals, suit_perm=tuple(suit_perm))
        salt = secrets.token_hex(16)
        commitment = deck_commitment(m.seed, m.suit_perm, salt)
        tokens = [secrets.token_hex(32) for _ in names]  # 256-bit, hex (no leading "-" for CLIs)
        match_id = match_id or secrets.token_hex(12)
        created = self.now_ms()
        meta = {
            "variant": spec.id,
            "seats": names,
            "seat_tokens": [hash_token(t) for t in tokens],
            "created_at_ms": created,
            "over": False,
            "time_control": tc.to_dict() if tc else None,
            "timeout_policy": policy,
            "idle_limit_ms": idle,
            "deck_salt": salt,
            "deck_commitment": commitment,
            "commit": secrets.token_hex(8),  # which write this version is (see core/cache.py)
        }
        if seat_bot_hashes:
            meta["seat_bots"] = list(seat_bot_hashes)
        if ladder_id:
            meta["ladder_id"] = ladder_id
            if ladder_set is not None:
                meta["ladder_set"] = ladder_set
            if ladder_solo:  # its own set: no other game deals its cards (watchable live)
                meta["ladder_solo"] = True
        if watch_meta:
            meta.update(watch_meta)
        clocks = Clocks.start(tc, spec.num_players, m.to_act, created) if tc else None
        deadline = deadline_ms(m, clocks, meta, created)
        events = initial_events(m, version=1)
        if events and "deal_started" in events[0]:  # the first event publishes the commitment
            events[0] = cast(Event, {**events[0], "deal_started": {**events[0]["deal_started"],
                                                                   "deck_commitment": commitment}})
        try:
            await self.store.create(match_id, encode_blob(m, [], clocks, deadline), meta,
                                    [event_bytes(e) for e in events], deadline_ms=deadline)
        except ReplicationTimeoutError:
            # durability=replicated and no replica confirmed: the caller hears UNAVAILABLE and retries,
            # and nobody has this id or its tokens yet, so take the match back rather than leave it
            # running (its clocks, its idle limit) beside the one the retry creates
            with contextlib.suppress(Exception):  # best effort: the answer stays UNAVAILABLE either way
                await self.store.delete(match_id)
            raise
        metrics.match_created(spec.id)
        return CreatedMatch(match_id, tokens, match_summary(match_id, 1, m, meta))

    # ------------------------------------------------------------------ observe
    async def information_set(self, match_id: str, seat: int, token: str | None) -> InformationSet:
        """The seat's information set at the current version (adds ``match_id``, ``version``)."""
        return (await self.current(match_id, seat, token)).information_set

    async def current(self, match_id: str, seat: int, token: str | None) -> Update:
        """:meth:`information_set` as an :class:`Update` of the current version without events,
        with the version's shared ``memo`` and ``history_memo`` (so the API layer encodes a
        seat's information set once per version however often it is asked). Raises NotFoundError,
        InvalidArgumentError, UnauthenticatedError, PermissionDeniedError."""
        ld = await self._load(match_id)
        self._authorize(ld, seat, token)
        # under a time control each answer is built anew (the clocks now): not kept in the version's memo,
        # which a seat polling while the other thinks would otherwise fill
        return Update(ld.version, [], self.cache.infoset(match_id, ld, seat), match_over=ld.state.over,
                      memo=ld.memo if ld.clocks is None else None, history_memo=ld.history_memo)

    # ------------------------------------------------------------------ act
    async def submit_action(
        self, match_id: str, seat: int, token: str | None, expected_version: int, action: int | str
    ) -> Update:
        """Apply ``action`` (id or text) of ``seat`` chosen at ``expected_version``.

        One CAS commit. ``expected_version`` < 1 (missing) raises InvalidArgumentError. A retry of
        the action already applied at ``expected_version`` is answered
        with ``duplicate=True`` and changes nothing; any other stale version raises
        StaleVersionError(current), or MatchOverError once the match is over; an illegal action
        raises IllegalActionError (state unchanged). The seat's token is checked before the
        action: an action that is no action (InvalidActionError) with a wrong token raises
        UnauthenticatedError / PermissionDeniedError.

        When this process holds ``expected_version`` of the match (it committed or loaded it) and
        the action passes every check on it, the action is committed without reading the match
        first (one round trip instead of two): the compare-and-set refuses it if another replica
        moved the match on, and the answer is then the one a fresh read gives.
        """
        if expected_version < 1:  # proto3 reads a missing field as 0; versions start at 1
            raise InvalidArgumentError(
                ("expected_version is required" if expected_version == 0 else
                 f"expected_version must be at least 1, got {expected_version}")
                + ": the version of the information set the action was chosen at (versions start at 1)")
        try:
            a = parse_action(action) if isinstance(action, str) else actions.check_id(action)
        except InvalidActionError:  # who asks comes first: a wrong token hears UNAUTHENTICATED, not about the action
            ld = await self._load(match_id)
            self._authorize(ld, seat, token)
            raise
        held = self.cache.get(match_id)
        if held is not None and held.version == expected_version:
            now = self.now_ms()
            checked = check_submit(held, seat, token, self._admin_hash, expected_version, a, now)
            if isinstance(checked, MatchState):  # every check passed on the version held: no read
                return await self._answer_submit(match_id, held, seat, expected_version, a, now, checked)
            # a refusal is decided on a fresh read (nothing done, nothing counted yet)
        ld = await self._load(match_id)
        now = self.now_ms()
        checked = check_submit(ld, seat, token, self._admin_hash, expected_version, a, now)
        return await self._answer_submit(match_id, ld, seat, expected_version, a, now, checked)

    async def _answer_submit(self, match_id: str, ld: Loaded, seat: int, expected_version: int, a: int, now: int,
                             checked: MatchState | Exception) -> Update:
        """The answer to a SubmitAction on ``ld`` from what :func:`~bummerl.core.submit.check_submit`
        found (``checked``): a refused token raises at once; then the seat's rate limit (one count
        per call past the token check); the commit of the match after the action, and when the
        compare-and-set refuses it (another writer moved the match on, or the same action sent
        twice at once) the answer of a fresh read; a stale version is answered by
        :meth:`_retry_answer`; a seat out of time gets its timeout committed (unless the reaper did
        first) and TimeoutLostError; any other refusal raises its error."""
        if isinstance(checked, TOKEN_ERRORS):
            raise checked
        await self.limiter.check("action", ld.meta["seat_tokens"][seat][:16])
        if isinstance(checked, MatchState):
            try:
                return await self._commit(match_id, ld, ld.state, checked, seat, a, OutcomeKind.NORMAL, now)
            except StaleVersionError:
                return await self._retry_answer(match_id, await self._load(match_id), seat, expected_version, a)
        if isinstance(checked, StaleVersionError):
            return await self._retry_answer(match_id, ld, seat, expected_version, a)
        if isinstance(checked, TimeoutLostError):
            with contextlib.suppress(StaleVersionError):  # the reaper committed the timeout first
                await self._apply_timeout(match_id, ld, now)
        raise checked

    async def _retry_answer(self, match_id: str, ld: Loaded, seat: int, expected_version: int, a: int) -> Update:
        """The answer to an action chosen at an older ``expected_version``: ``duplicate=True`` if
        this very action of this seat was applied there; TimeoutLostError if the seat timed out
        there; MatchOverError once the match is over; else StaleVersionError(current)
        (:func:`~bummerl.core.submit.check_retry`).

        With ``durability = replicated`` a duplicate answer promises what a first one does: the
        action survives a failover. The first commit may have answered ReplicationTimeoutError
        (UNAVAILABLE, NOT_REPLICATED) and this is its client's retry, so a replica must confirm
        the write first (:meth:`~bummerl.store.MatchStore.wait_replicated`), else the retry hears
        ReplicationTimeoutError again (issue 38). Without it nothing is waited for."""
        check_retry(ld, seat, expected_version, a)
        if self.store.durability == "replicated":
            await self.store.wait_replicated(match_id, expected_version + 1)
        return Update(ld.version, [], self.cache.infoset(match_id, ld, seat), duplicate=True,
                      match_over=ld.state.over, memo=ld.memo, history_memo=ld.history_memo)

    async def resign(self, match_id: str, seat: int, token: str | None, reason: str = "") -> Update:
        """The seat resigns: the match ends, the other seat wins (reason ``resigned``). A resignation
        carries no version: if another commit lands first, it is applied on the newer state.
        ``reason`` (a bot runner's report, see :data:`~bummerl.core.log.RESIGN_REASONS`,
        :class:`~bummerl.core.log.ResignReason`): ``""`` plain, ``"illegal"``,
        ``"disconnect"`` or ``"timeout"``: the match result reason and the record's kind follow it.
        Raises InvalidArgumentError for another reason."""
        if reason not in RESIGN_REASONS:
            raise InvalidArgumentError(f"reason must be one of {', '.join(repr(str(r)) for r in RESIGN_REASONS)}")
        end, kind = RESIGN_REASONS[reason]
        for _ in range(8):
            ld = await self._load(match_id)
            self._authorize(ld, seat, token)
            if ld.state.over:
                raise MatchOverError("the match is over")
            after = ld.state.copy()
            after.concede(seat, end)
            try:
                return await self._commit(match_id, ld, ld.state, after, seat, OutcomeAction.RESIGN, kind, self.now_ms())
            except StaleVersionError:
                continue
        raise StaleVersionError(ld.version, "the match changed too often to resign; retry")

    async def abandon(self, match_id: str) -> Update:
        """End a running match at once with no winner (reason ``abandoned``, record entry
        ``abandon`` of kind ABANDONED, charged to the seat to act): a stopped ladder's games.
        Internal (no token). Raises NotFoundError, MatchOverError."""
        for _ in range(8):
            ld = await self._load(match_id)
            if ld.state.over:
                raise MatchOverError("the match is over")
            after = ld.state.copy()
            seat = ld.state.to_act
            after.concede(seat, MatchEnd.ABANDONED)
            try:
                return await self._commit(match_id, ld, ld.state, after, seat, OutcomeAction.ABANDON,
                                          OutcomeKind.ABANDONED, self.now_ms())
            except StaleVersionError:
                continue
        raise StaleVersionError(ld.version, "the match changed too often to abandon; retry")

    # ------------------------------------------------------------------ time
    async def expire(self, match_id: str) -> Update | None:
        """Apply the match's timeout policy if its deadline has passed (the reaper's entry point).

        Loads the match; if the stored deadline is due at ``now_ms()``, commits the policy through
        the version compare-and-set and returns the update; otherwise puts the real deadline back
        in the index and returns None. Returns None as well when another process (a reaper or a
        late action) committed first. Raises NotFoundError for an unknown match (its index entry
        is removed)."""
        try:
            ld = await self._load(match_id)
        except NotFoundError:
            await self.store.set_deadline(match_id, -1)
            raise
        now = self.now_ms()
        if ld.state.over or ld.deadline_ms < 0 or now <= ld.deadline_ms:
            await self.store.set_deadline(match_id, -1 if ld.state.over else ld.deadline_ms)
            return None
        try:
            return await self._apply_timeout(match_id, ld, now)
        except StaleVersionError:
            return None

    async def _apply_timeout(self, match_id: str, ld: Loaded, now: int) -> Update:
        """Commit the timeout of the seat to act (its deadline has passed at ``now``):
        :func:`~bummerl.core.timeouts.timeout_step`."""
        timed = ld.clocks is not None  # else no time control: the idle limit passed
        policy = ld.meta.get("timeout_policy", DEFAULT_TIMEOUT_POLICY)
        if timed:
            metrics.timeout(ld.state.rules.spec.id, policy)
        step = timeout_step(ld.state, timed, policy)
        return await self._commit(match_id, ld, ld.state, step.after, ld.state.to_act, step.action, step.kind, now,
                                  refill=step.refill)

    async def _commit(self, match_id: str, ld: Loaded, before: MatchState, after: MatchState, seat: int,
                      action: int | str, kind: OutcomeKind, now: int, refill: bool = False) -> Update:
        version = ld.version + 1
        events = events_between(before, after, version)  # each event carries the deal it belongs to
        clocks = ld.clocks
        think = clock_ms = -1
        if clocks is not None:
            timeout = kind == OutcomeKind.TIMEOUT
            think = now - clocks.turn_start_ms if clocks.seat == seat else -1
            had = clocks.budget_ms(seat) if clocks.seat == seat else -1
            clocks = clocks.after_action(seat, now, after.to_act, after.deal_number != before.deal_number, refill,
                                         increment=not (timeout and after.over))
            clock_ms = had if timeout else clocks.remaining_ms[seat]
        entries = [*ld.entries, LogEntry(seat, action, now, before.deal_number, kind, think, clock_ms).to_list()]
        # a fresh token per commit: after a Redis failover that lost an acknowledged-by-nobody write,
        # the match may reach this version number again with other content; the cache (_load,
        # core/cache.py) tells them apart by this token, not by the version alone
        meta_updates: dict[str, Any] = {"commit": secrets.token_hex(8), "prev_commit": ld.meta.get("commit")}
        if after.over:
            meta_updates["over"] = True
        deadline = deadline_ms(after, clocks, ld.meta, now)
        # streams of this process woken by this commit wait for it rather than read the match again
        done = self.cache.begin_commit(match_id)
        try:
            try:
                new_version = await self.store.commit(
                    match_id, ld.version, encode_blob(after, entries, clocks, deadline),
                    [event_bytes(e) for e in events], meta_updates, deadline_ms=deadline,
                    ttl_ms=self.retention_ms if after.over else 0, finished=after.over,
                    expected_commit=ld.meta.get("commit"),
                )
            except VersionConflictError as e:
                metrics.cas_conflict()
                raise StaleVersionError(e.current_version) from None
            except MatchNotFoundError:
                self.cache.forget(match_id)
                raise NotFoundError(f"no match {match_id}") from None
            new = self.cache.committed(match_id, ld, new_version, after, entries, {**ld.meta, **meta_updates}, clocks,
                                       deadline, events)
        finally:
            self.cache.end_commit(match_id, done)
        variant = after.rules.spec.id
        metrics.action_applied(variant)
        if after.over:
            metrics.match_finished(variant)
        return Update(new_version, events, self.cache.infoset(match_id, new, seat), match_over=after.over, memo=new.memo,
                      history_memo=new.history_memo)

    # ------------------------------------------------------------------ stream
    async def stream(self, match_id: str, seat: int, token: str | None, from_version: int = 0) -> AsyncIterator[Update]:
        """Updates for ``seat``: first a snapshot (current information set + events after
        ``from_version``), then one update per new version, until the update that ends the
        match. Uses blocking stream reads (XREAD BLOCK), no polling of the state. A negative
        ``from_version`` raises InvalidArgumentError."""
        if from_version < 0:
            raise InvalidArgumentError(f"from_version must be at least 0 (0 = from the start), got {from_version}")
        ld = await self._load(match_id)
        self._authorize(ld, seat, token)
        with self._open_streams.hold((match_id, seat), self.max_streams_per_seat,
                                     f"seat {seat} already has {self.max_streams_per_seat} open streams of this "
                                     f"match on this server; close one first", retry_after_ms=STREAM_CAP_RETRY_MS):
            async for u in self._stream(match_id, seat, ld, from_version):
                yield u

    async def _stream(self, match_id: str, seat: int, ld: Loaded, from_version: int) -> AsyncIterator[Update]:
        since = await self.store.events_since(match_id, max(0, from_version))
        # events committed after the load come with the next update, not twice
        spec = ld.state.rules.spec
        sizes = [spec.hand_size] * spec.num_players  # for a deal event stored without them
        cache = self.cache
        yield Update(ld.version, [upgrade_event(orjson.loads(p), sizes) for v, p in since if v <= ld.version and p],
                     cache.infoset(match_id, ld, seat), match_over=ld.state.over, memo=ld.memo,
                     history_memo=ld.history_memo)
        last = max(ld.version, from_version)
        over = ld.state.over
        while not over:
            got = await self._wait_events(match_id, last, self.stream_poll_ms)
            if not got:
                continue
            top = max(v for v, _ in got)
            # a version this process committed (or loaded) is immutable: no second read for it
            held = cache.at_least(match_id, top)
            if held is None:  # maybe the commit that woke us is finishing here
                held = await cache.settled(match_id, top)
            ld = held if held is not None else await self._load(match_id)
            if ld.events is not None and ld.version == top == last + 1:  # committed here: its events at hand
                evs = ld.events
            else:
                # a version without public events has one empty payload (keys.NO_EVENT): it wakes
                # the stream, which sends the version with its new information set and no event
                evs = [upgrade_event(orjson.loads(p), sizes) for v, p in got if v <= ld.version and p]
                if top < ld.version:  # commits landed between the read and the load: no gap
                    evs += [upgrade_event(orjson.loads(p), sizes)
                            for v, p in await self.store.events_since(match_id, top) if v <= ld.version and p]
                evs = [e for e in evs if e["version"] > last]
            last = ld.version
            over = ld.state.over
            yield Update(ld.version, evs, cache.infoset(match_id, ld, seat), match_over=over, memo=ld.memo,
                         history_memo=ld.history_memo)

    # ------------------------------------------------------------------ record
    async def record(self, match_id: str, token: str | None = None) -> dict[str, Any]:
        """The match record (shape of the ``MatchRecord`` message): summary fields, every action
        with its version, seat, id, text, time (ms since the epoch) and deal, the deals with their
        dealer and result, the match result, the deck commitment. The hidden cards (the seed, the
        commitment's salt, the suit relabelling, the deck orders and the card of a hidden action
        such as ``discard QH``, which shows as ``discard`` with id -1; in a ladder game every action
        shows only its kind, since the other legs of its duplicate set deal the same cards) only
        once :meth:`revealed`
        (the match and, for a ladder game, its whole duplicate set are over) or to the admin
        ``token`` (docs/RULES.md §14.3; ``revealed`` says which)."""
        ld = await self._load(match_id)
        show = self.is_admin(token) or await self.revealed(ld.meta, ld.state.over)
        return build_record(match_id, ld, show)

    async def seat_stats(self, match_id: str) -> list[dict[str, Any]]:
        """What each seat did in a match, index = seat: ``{"actions"`` (its own, kind NORMAL),
        ``"timeouts"`` (entries of kind TIMEOUT charged to it), ``"illegal_actions"`` (ILLEGAL
        resignations), ``"disconnects"`` (DISCONNECT resignations: its runner reported a crash),
        ``"think_ms"`` (per own action, ms from its turn's start to the commit: the clock's figure
        with a time control, else the time since the previous commit), ``"time_left_ms"`` (its main
        time after its last action, -1 without a time control)``}``. NotFoundError."""
        return seat_stats(await self._load(match_id))

    # ------------------------------------------------------------------ helpers
    async def summary(self, match_id: str) -> dict[str, Any]:
        """The public summary of a match (``MatchSummary`` shape) with ``match_result`` once over."""
        ld = await self._load(match_id)
        out = match_summary(match_id, ld.version, ld.state, ld.meta)
        if ld.state.over:
            out["match_result"] = match_result(ld.state)
            out["deal_results"] = [r.to_dict() for r in ld.state.results]
        return out

    @staticmethod
    def shared_history(ld: Loaded) -> tuple[Event, ...]:
        """The deal's public history views at ``ld.version``, shared by every seat and version of
        the deal (:meth:`bummerl.core.cache.MatchCache.shared_history`)."""
        return MatchCache.shared_history(ld)

    async def _load(self, match_id: str) -> Loaded:
        """The newest stored version of the match, read from Redis in one round trip: only the
        version comes back when this process holds the current one (the held version is
        answered). InvalidArgumentError for a malformed id, NotFoundError for an unknown match."""
        if not match_id or len(match_id) > 64 or not match_id.isalnum():
            raise InvalidArgumentError("match_id must be 1-64 letters or digits")
        held = self.cache.get(match_id)
        if held is None:
            stored = await self.store.load(match_id)
        else:  # one round trip either way; the blob only comes if another writer moved the match on
            got = await self.store.load_if_changed(match_id, held.version, held.meta.get("commit"))
            if isinstance(got, int):
                self.cache.touch(match_id)
                return held
            stored = got
        if stored is None:
            self.cache.forget(match_id)
            raise NotFoundError(f"no match {match_id}")
        return self.cache.read(match_id, decode(stored), held)

    def _authorize(self, ld: Loaded, seat: int, token: str | None) -> None:
        """Pass if ``token`` is the seat's token (or the bot token of the bot seated there);
        InvalidArgumentError for a seat not at the table, UnauthenticatedError for a missing or
        unknown token, PermissionDeniedError for a valid token that does not act for this seat
        (another seat's, the admin token)."""
        authorize_seat(ld.meta, seat, token, self._admin_hash)

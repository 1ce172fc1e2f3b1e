"""A ladder's data in Redis as both the calls (:mod:`bummerl.ladder.service`) and the scheduler
(:mod:`bummerl.ladder.driver`) read and write it: configs, bots, presence, results, the running
standings of each ladder in this process, events (docs/DESIGN.md §5). The service and the
scheduler both build on this module and never call each other back: the service owns a scheduler
and asks it to drive; the scheduler reads and writes ladders through :class:`LadderData` only.
The typed shapes of a ladder's config (:class:`LadderConfig`) and of a planned game
(:class:`GameSpec`) live here too."""

from __future__ import annotations

import asyncio
import hmac
import json
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import Any, NotRequired, TypedDict

from bummerl.core.errors import (
    InvalidArgumentError,
    NotFoundError,
    PermissionDeniedError,
    UnauthenticatedError,
)
from bummerl.core.matches import MatchService, hash_token
from bummerl.store.keys import aux_key, ladder_key

from .ids import check_id
from .standings import BOARDS, LadderBoard, Standings, leaderboard, pair_table, rating_pool

CONNECT_TIMEOUT_MS = 600_000
"""How long a ``start_when_connected`` ladder waits for its bots by default (10 minutes)."""


class GameSpec(TypedDict):
    """One planned game of a ladder (a JSON object in ``bm:ladder:<id>:pending``, then in
    ``running``): ``game`` its number (play order), ``pair`` its duplicate set, ``leg`` the
    seating arrangement within the set (0 = the table's own order), ``bots`` bot id per seat,
    ``seed`` and ``suit_perm`` the deal (secret until the set is over), ``match_id``. A game of a
    format planned stage by stage also has ``stage`` (the stage that planned it) and ``meeting``
    (the Swiss pairing or knockout tie it belongs to). The scheduler adds ``claimed_ms``,
    ``assigned`` and ``versions`` (each seat's bot version when it started the game)."""

    game: int
    pair: int | str
    leg: int
    bots: list[str]
    seed: int
    suit_perm: list[int]
    match_id: str
    stage: NotRequired[int]
    meeting: NotRequired[str]
    claimed_ms: NotRequired[int]
    assigned: NotRequired[bool]
    versions: NotRequired[list[str]]


class LadderConfig(TypedDict):
    """A ladder's stored config (``bm:ladder:<id>``, JSON), as ``create_ladder`` writes it. Times
    in ms since the epoch, ``connect_timeout_ms`` in ms; ``time_control`` is
    :meth:`bummerl.core.clocks.TimeControl.to_dict` or None; ``sprt`` the SPRT's bounds or None;
    ``pairs_per_meeting``: duplicate pairs (sets; games without duplicate deals) each pairing of a
    Swiss round or knockout tie plays; ``seeding``: a knockout's seeding (``listed`` or
    ``rating``); ``arena_minutes``: how long an arena pairs (0 = until stopped); ``house_specs``:
    the bot spec the server plays for each ``house:`` participant; ``kind`` ``challenge`` with
    ``challenge_id`` and ``rated`` for an accepted challenge (an unrated one is in no pooled
    leaderboard)."""

    ladder_id: str
    name: str
    variant: str
    num_players: int
    team_of_seat: list[int]
    options: dict[str, str]
    format: str
    bot_ids: list[str]
    bot_names: dict[str, str]
    rounds: int
    duplicate_deals: bool
    deals_per_game: int
    time_control: dict[str, Any] | None
    timeout_policy: str
    sprt: dict[str, float] | None
    concurrency: int
    created_at_ms: int
    matches_total: int
    start_when_connected: bool
    connect_timeout_ms: int
    pairs_per_meeting: NotRequired[int]
    seeding: NotRequired[str]
    arena_minutes: NotRequired[int]
    house_specs: NotRequired[dict[str, str]]
    kind: NotRequired[str]
    rated: NotRequired[bool]
    challenge_id: NotRequired[str]


class LadderData:
    """The ladders' data over the match service's store (one Redis); ``matches.now_ms`` = its
    clock. Keeps the running standings of at most :data:`BOARDS` ladders in this process."""

    def __init__(self, matches: MatchService) -> None:
        self.matches = matches
        self.store = matches.store
        self.redis = matches.store.client
        self._boards: OrderedDict[str, LadderBoard] = OrderedDict()

    async def by_rating(self, bots: Sequence[str], pool_of: Mapping[str, Any]) -> list[str]:
        """``bots`` ordered by their openskill ordinal in the rating pool of ``pool_of`` (a config's
        ``variant``, ``options``, ``time_control``, ``deals_per_game``; :func:`rating_pool`) over
        every ladder of that pool, best first; bots without a rated game there keep their listed
        order after the rated ones."""
        pool = rating_pool(pool_of)
        members = [c for c in await self.configs() if rating_pool(c) == pool and c.get("rated", True)]
        ids: list[str] = []
        results: list[dict[str, Any]] = []
        for c in members:
            ids += [b for b in c["bot_ids"] if b not in ids]
            results += [{**r, "pair": f"{c['ladder_id']}/{r['pair']}"} for r in await self.results(c["ladder_id"])]
        st = Standings(ids)
        st.add(results)
        rated = {b: float(st.ratings[b].ordinal()) for b in ids if st.tally[b]["games"]}
        listed = {b: i for i, b in enumerate(bots)}
        return sorted(bots, key=lambda b: (b not in rated, -rated.get(b, 0.0), listed[b]))

    async def authenticate_bot(self, bot_id: str, token: str | None) -> dict[str, Any]:
        """The bot if ``token`` is its bot token; PermissionDeniedError for the valid token of
        another bot; UnauthenticatedError otherwise (also for a revoked or deleted bot)."""
        bot = await self.bot(bot_id)
        if bot.get("deleted") or bot.get("revoked"):
            raise UnauthenticatedError(f"the token of bot {bot['name']!r} was revoked"
                                       + (" (the bot was deleted)" if bot.get("deleted") else ""))
        if not token or not hmac.compare_digest(hash_token(token), bot["token_hash"]):
            other = token.partition(".")[0] if token and "." in token else ""
            if token and other and other != bot_id and await self._is_token_of(other, token):
                raise PermissionDeniedError(f"this is the token of bot {other!r}, not of bot {bot_id!r}")
            raise UnauthenticatedError("missing or wrong bot token (authorization: Bearer <bot token>)")
        return bot

    async def _is_token_of(self, bot_id: str, token: str) -> bool:
        """Whether ``token`` is the current bot token of ``bot_id`` (a bot token starts with its
        bot's id: ``<bot id>.<secret>``)."""
        try:
            bot = await self.bot(bot_id)
        except (NotFoundError, InvalidArgumentError):
            return False
        live = not (bot.get("deleted") or bot.get("revoked"))
        return live and hmac.compare_digest(hash_token(token), bot["token_hash"])

    async def configs(self) -> list[LadderConfig]:
        """Every ladder's config, oldest first."""
        return [await self.config(_text(x)) for x in await self.redis.zrange(aux_key("ladders"), 0, -1)]

    async def config(self, ladder_id: str) -> LadderConfig:
        """The stored config of a ladder: every call that names a ladder starts here, so the id
        is checked here once (:func:`check_id`: InvalidArgumentError), then NotFoundError."""
        check_id("ladder_id", ladder_id)
        raw = await self.redis.get(ladder_key(ladder_id))
        if raw is None:
            raise NotFoundError(f"no ladder {ladder_id!r}")
        cfg: LadderConfig = json.loads(raw)
        return cfg

    async def bot(self, bot_id: str) -> dict[str, Any]:
        """The stored bot (with its token hash); NotFoundError if unknown."""
        check_id("bot_id", bot_id)
        raw = await self.redis.get(aux_key("bot", bot_id))
        if raw is None:
            raise NotFoundError(f"no bot {bot_id!r}")
        return dict(json.loads(raw))

    async def presence(self) -> dict[str, tuple[int, str]]:
        """Bot id -> (connected since, ms since the epoch; what its newest stream's client said)
        for every bot with an open assignment stream on any process. Expired entries (a process
        that died) are dropped on the way."""
        now = self.matches.now_ms()
        key, since_key, client_key = aux_key("presence"), aux_key("presence", "since"), aux_key("presence", "client")
        gone = await self.redis.zrangebyscore(key, "-inf", now)
        if gone:
            await self.redis.zrem(key, *gone)
            await self.redis.hdel(since_key, *gone)
            await self.redis.hdel(client_key, *gone)
        members: list[Any] = list(await self.redis.zrangebyscore(key, now, "+inf"))
        out: dict[str, tuple[int, str]] = {}
        if members:
            sinces = await self.redis.hmget(since_key, members)
            clients = await self.redis.hmget(client_key, members)
            for m, since, client in zip(members, sinces, clients, strict=True):
                bot = _text(m).split("|", 1)[0]
                t = int(since or now)
                if bot not in out or t < out[bot][0]:
                    out[bot] = (t, _text(client or b""))
        return out

    async def connected_bots(self) -> dict[str, int]:
        """Bots that hold an assignment stream on any server process now: bot id -> since (ms
        since the epoch, the oldest open stream)."""
        return {b: since for b, (since, _client) in (await self.presence()).items()}

    async def waiting_for_bots(self, cfg: LadderConfig, connected: dict[str, int] | None = None) -> bool:
        """Does a ``start_when_connected`` ladder still wait for a bot (none of its games has been
        claimed yet, a bot is absent, and the wait has not timed out)?"""
        if not cfg.get("start_when_connected") or await self.redis.exists(ladder_key(cfg["ladder_id"], "go")):
            return False
        connected = await self.connected_bots() if connected is None else connected
        absent = [b for b in cfg["bot_ids"] if b not in connected]
        timeout = int(cfg.get("connect_timeout_ms") or CONNECT_TIMEOUT_MS)
        if absent and self.matches.now_ms() < int(cfg["created_at_ms"]) + timeout:
            return True
        if await self.redis.set(ladder_key(cfg["ladder_id"], "go"), "1", nx=True):  # once, in one process
            await self.event(cfg["ladder_id"], {"type": "bots_absent" if absent else "bots_connected",
                                                 "bots": absent})
        return False

    async def results(self, ladder_id: str) -> list[dict[str, Any]]:
        """Every finished game in order: ``{"game", "pair", "leg", "match_id", "bots", "winner",
        "scores", "reason", "deals_won", "deals", "game_points"}`` (per seat, index = seat; scores:
        1 won, 0.5 drawn, 0 lost). Three or four seats also ``placements``, ``teams`` and
        ``deals_lost`` (:func:`seated_result`)."""
        await self.config(ladder_id)
        raw: list[Any] = list(await self.redis.lrange(ladder_key(ladder_id, "results"), 0, -1))
        return await asyncio.to_thread(_decode_all, raw) if len(raw) > 1000 else _decode_all(raw)

    async def board(self, cfg: LadderConfig) -> LadderBoard:
        """This process's running standings of a ladder, brought up to date: reads and folds only
        the results recorded since the last call (off the event loop when there are many).
        At most :data:`BOARDS` ladders are kept."""
        lid = cfg["ladder_id"]
        board = self._boards.get(lid)
        if board is None:
            board = self._boards[lid] = LadderBoard(Standings(cfg["bot_ids"]))
        self._boards.move_to_end(lid)
        while len(self._boards) > BOARDS:
            self._boards.popitem(last=False)
        async with board.lock:
            raw = await self.redis.lrange(ladder_key(lid, "results"), len(board.results), -1)
            if raw:
                new = await asyncio.to_thread(_decode_all, raw) if len(raw) > 100 else _decode_all(raw)
                if len(new) > 100:
                    await asyncio.to_thread(board.standings.add, new)
                else:
                    board.standings.add(new)
                board.results.extend(new)
        return board

    async def leaderboard(self, ladder_id: str, pooled: bool = False) -> dict[str, Any]:
        """``{"ladder_id", "entries": [...], "pairs": [...], "ladder_ids", "pool"}`` from the results
        (see :func:`leaderboard`). ``pooled``: ratings and pair statistics over every ladder of the
        same rating pool as this one (:func:`rating_pool`: variant, options, time control, deals per
        game), their results in ladder creation order; ``ladder_ids`` lists them. NotFoundError
        for an unknown ladder."""
        cfg = await self.config(ladder_id)
        if not pooled:  # the ratings fold only the results added since the last read
            board = await self.board(cfg)
            async with board.lock:
                entries = board.standings.entries(cfg.get("bot_names", {}))
                pairs = await asyncio.to_thread(pair_table, cfg, list(board.results))
            return {"ladder_id": ladder_id, "entries": entries, "pairs": pairs, "ladder_ids": [ladder_id],
                    "pool": rating_pool(cfg)}
        pool = rating_pool(cfg)
        members = [c for c in await self.configs() if rating_pool(c) == pool and c.get("rated", True)]
        results: list[dict[str, Any]] = []
        merged: dict[str, Any] = {"ladder_id": ladder_id, "bot_ids": [], "bot_names": {}, "sprt": None,
                                  "duplicate_deals": all(c.get("duplicate_deals") for c in members)}
        for c in members:
            merged["bot_ids"] += [b for b in c["bot_ids"] if b not in merged["bot_ids"]]
            merged["bot_names"].update(c.get("bot_names", {}))
            results += [{**r, "pair": f"{c['ladder_id']}/{r['pair']}"} for r in await self.results(c["ladder_id"])]
        return {**await asyncio.to_thread(leaderboard, merged, results), "ladder_ids": [c["ladder_id"] for c in members],
                "pool": pool}

    async def event(self, ladder_id: str, ev: dict[str, Any]) -> None:
        """Append a progress event (``ladder_id`` and ``at_ms`` added) to the ladder's event stream."""
        ev = dict(ev, ladder_id=ladder_id, at_ms=self.matches.now_ms())
        await self.redis.xadd(ladder_key(ladder_id, "events"), {b"e": json.dumps(ev).encode()},
                              maxlen=100_000, approximate=True)

    async def running_ladders(self) -> list[str]:
        """The ids of every running ladder (``bm:ladders:running``)."""
        return sorted(_text(x) for x in await self.redis.smembers(aux_key("ladders", "running")))


def _text(x: object) -> str:
    """A Redis reply item (bytes: the client does not decode) as text."""
    return x.decode(errors="replace") if isinstance(x, bytes) else str(x)


def _decode_all(raw: Sequence[Any]) -> list[dict[str, Any]]:
    return [json.loads(x) for x in raw]

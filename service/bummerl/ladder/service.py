"""Registered bots and ladders: scheduling in Redis, duplicate deals, results, leaderboards
(docs/DESIGN.md §5).

Bots: ``register_bot`` (admin) returns a bot id and a secret bot token (stored as SHA-256 only).
A bot connects once to its assignment stream (:meth:`LadderService.assignments`); every ladder
match it is to play arrives there, and the bot token itself authorises its seat in that match
(the match stores the token's hash for the seat), so no seat token is ever stored in plain.

Ladders: ``create_ladder`` (admin) plans every game at once (round robin, gauntlet, or a
head-to-head SPRT that stops as soon as it is decided), as JSON specs in a Redis list. Any server
process's :class:`LadderDriver` claims the next game atomically (a Lua script that also enforces
the ladder's concurrency), creates its match under a fixed id (``<ladder>g<game>``; creating it
twice is impossible), assigns both bots, and records the result exactly once when the match ends
(another Lua script: the game leaves the running hash and its result is appended in one step).
A ladder therefore survives a restart of every process and continues where it stopped; no game
is played twice or lost.

Duplicate deals: games come in pairs on the same seed with the seats swapped; the second game
relabels the suits (a random permutation) so that a bot with memory cannot recognise the deck.

Three and four seats (stockschnapsen, snapszer-hu-3p-rotation, talonschnapsen,
snapszer-hu-3p-sopron; bauernschnapsen and snapszer-hu-4p in teams 0&2 vs 1&3): a game seats that
many different bots (a *table*: every subset of the bots for the round robin, the first bot with
every subset of the others for the gauntlet; no SPRT). A duplicate *set* (``pair`` = its number)
plays one seed under every seating arrangement of the table (:func:`seatings`: 6 games for three
seats, all 24 for four, so every bot sits in every seat, with every partner and in both orders
around the table), every leg after the first with its own suit relabelling (hearts kept where
the rules make hearts trump, :func:`fixed_suits`). A result stores placements, teams and a score
per seat (:func:`seated_result`); the leaderboard rates one openskill team per team of the
variant, ranked by the placements (:func:`leaderboard`).

Redis keys (``bm:`` aux keys): ``bot:<id>`` (JSON), ``botname:<name>`` (id), ``bots`` (set),
``botq:<id>`` (stream of assignments), ``ladder:<id>`` (JSON config), ``ladder:<id>:status``,
``ladders`` (zset by creation time), ``ladders:running`` (set), ``ladder:<id>:pending`` (list of
game specs), ``ladder:<id>:running`` (hash game -> spec), ``ladder:<id>:results`` (list),
``ladder:<id>:events`` (stream of progress events).
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import itertools
import json
import logging
import math
import random
import re
import secrets
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from bummerl import metrics
from bummerl.core.clocks import DEFAULT_TIMEOUT_POLICY, TIMEOUT_POLICIES, TimeControl, TimeControlError
from bummerl.core.errors import (
    FailedPreconditionError,
    InvalidArgumentError,
    MatchOverError,
    NotFoundError,
    ResourceExhaustedError,
    UnauthenticatedError,
)
from bummerl.core.matches import MatchService, hash_token
from bummerl.rules import InvalidOptionError, Rules, UnknownVariantError, find_variant
from bummerl.rules.cards import SUITS
from bummerl.store.errors import MatchExistsError
from bummerl.store.keys import aux_key

from . import botstats
from .feeds import Feeds
from .stats import PENTANOMIAL, TRINOMIAL, Sprt, estimate, head_to_head, pentanomial, placement_scores

log = logging.getLogger(__name__)

FORMATS = ("round_robin", "gauntlet", "sprt")
"""Ladder formats: every pair ``rounds`` times; the first bot against each other bot; two bots
until the SPRT decides (at most ``rounds`` games or pairs). Three or four seats: every table of
that many bots ``rounds`` times; the first bot at every table with the others; no SPRT."""

MAX_GAMES = 200_000
"""Most games a ladder may plan (pairings or tables x rounds x legs of a duplicate set), SPRT
ladders included (their ``rounds`` is the most pairs they play)."""

CLAIM_LEASE_MS = 10_000
"""A claimed game that its process has not started within this many ms (the process died) is
started by another process; starting twice is harmless (the match id is fixed, each seat is
assigned once, the ``started`` mark and event happen once)."""

ASSIGNED_TTL_MS = 40 * 24 * 3600 * 1000
"""How long the once-only mark of a seat's assignment is kept (longer than any retention)."""

_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:+-]{0,63}$")


def fixed_suits(rules: Rules) -> tuple[int, ...]:
    """Suits (0..3, ``bummerl.rules.cards.SUITS`` order) that a duplicate deal must not relabel
    because the table's rules single them out: hearts when ``trump_always_hearts`` is on
    (snapszer-hu-4p by default, snapszer-hu-3p-sopron as an option); else none."""
    return (SUITS.index("H"),) if rules.options.get("trump_always_hearts") else ()


def _lua(name: str) -> str:
    return resources.files("bummerl.ladder").joinpath(name).read_text(encoding="utf-8")


@dataclass(frozen=True)
class LadderSpec:
    """What ``create_ladder`` accepts (proto ``CreateLadderRequest``)."""

    name: str
    variant: str
    bot_ids: Sequence[str]
    format: str = "round_robin"
    rounds: int = 1
    """Games per pairing (table of 3 or 4 bots), or duplicate pairs (sets) per pairing (table)
    when ``duplicate_deals``."""
    duplicate_deals: bool = True
    deals_per_game: int = 0
    """0 = each game is a whole match (Bummerl); N = each game ends after N deals."""
    options: dict[str, str] | None = None
    time_control: dict[str, Any] | None = None
    timeout_policy: str = DEFAULT_TIMEOUT_POLICY
    sprt: dict[str, float] | None = None
    concurrency: int = 4
    seed: int | None = None
    start_when_connected: bool = False
    """Start no game until every bot is connected (or ``connect_timeout_ms`` has passed)."""
    connect_timeout_ms: int = 0
    """With ``start_when_connected``: ms to wait for the bots; 0 = :data:`CONNECT_TIMEOUT_MS`."""


PUBLIC_STREAM_KEYS = 16
"""Ladders whose progress anonymous ``StreamLadder`` calls may follow at once in one process (one
Redis connection each, however many watch one ladder); a stream of one more gets
RESOURCE_EXHAUSTED. Bots' assignment streams have their own budget."""

STREAMS_PER_PEER = 16
"""Open ``StreamLadder`` calls per peer address and process."""

STREAMS_PER_BOT = 4
"""Open ``StreamAssignments`` calls per bot and process."""

PRESENCE_TTL_MS = 15_000
"""A bot counts as connected while one of its ``StreamAssignments`` streams, on any server
process, renewed its presence entry less than this many ms ago (every third of it)."""

GAMES_LISTED = 10_000
"""Most planned games :meth:`LadderService.games` lists."""

CONNECT_TIMEOUT_MS = 600_000
"""How long a ``start_when_connected`` ladder waits for its bots by default (10 minutes)."""


class LadderService:
    """Bots and ladders over the match service's store (one Redis); ``now_ms`` = its clock.
    ``public_stream_keys``, ``streams_per_peer``, ``streams_per_bot``: the stream budgets
    (:data:`PUBLIC_STREAM_KEYS`, :data:`STREAMS_PER_PEER`, :data:`STREAMS_PER_BOT`; 0 = no cap).
    Call :meth:`aclose` when done (it stops the stream readers)."""

    def __init__(self, matches: MatchService, *, public_stream_keys: int = PUBLIC_STREAM_KEYS,
                 streams_per_peer: int = STREAMS_PER_PEER, streams_per_bot: int = STREAMS_PER_BOT) -> None:
        self.matches = matches
        self.store = matches.store
        self.redis = matches.store.client
        kwargs = dict(self.redis.connection_pool.connection_kwargs)
        kwargs["socket_timeout"] = None  # XREAD BLOCK waits longer than any read timeout
        self._public_pool = aioredis.ConnectionPool(connection_class=self.redis.connection_pool.connection_class,
                                                    max_connections=public_stream_keys or 2**31, **kwargs)
        self.public_feeds = Feeds(self.redis, aioredis.Redis(connection_pool=self._public_pool),
                                  max_keys=public_stream_keys, name="public ladder")
        self.bot_feeds = Feeds(self.redis, self.store.blocking_client, name="bot assignment")
        self.streams_per_peer = streams_per_peer
        self.streams_per_bot = streams_per_bot
        self._open: dict[tuple[str, str], int] = {}
        self._boards: OrderedDict[str, _Board] = OrderedDict()
        self._claim = self.redis.register_script(_lua("claim.lua"))
        self._finish = self.redis.register_script(_lua("finish.lua"))
        self._started = self.redis.register_script(_lua("started.lua"))
        self._assign_once = self.redis.register_script(_lua("assign.lua"))
        matches.reveal_check = self.set_over  # a ladder game's hidden cards wait for its duplicate set

    async def aclose(self) -> None:
        """Stop the stream readers and close the public streams' pool."""
        await self.public_feeds.aclose()
        await self.bot_feeds.aclose()
        await self._public_pool.aclose()

    @contextlib.contextmanager
    def _slot(self, kind: str, who: str, cap: int, what: str) -> Iterator[None]:
        """Count one open stream of ``(kind, who)``; ResourceExhaustedError past ``cap`` (0 = none)."""
        key = (kind, who)
        if cap and self._open.get(key, 0) >= cap:
            raise ResourceExhaustedError(f"{what} has {cap} open streams on this server already; close one first")
        self._open[key] = self._open.get(key, 0) + 1
        try:
            yield
        finally:
            n = self._open.get(key, 1) - 1
            if n > 0:
                self._open[key] = n
            else:
                self._open.pop(key, None)

    async def set_over(self, meta: dict[str, Any]) -> bool:
        """Is every game of the duplicate set of a ladder match (meta ``ladder_id``,
        ``ladder_set``) over? True when every game of the set is recorded, or when no game of it
        can still run (nothing pending: the ladder was stopped or its SPRT decided, and none of the
        set's games is running). Until then its matches reveal no hidden card (they share a seed).
        A match of a ladder made before sets were tracked: once the ladder is no longer running."""
        lid = str(meta.get("ladder_id") or "")
        if not lid.isalnum():
            return False
        pair = meta.get("ladder_set")
        if pair is None:
            return (await self.redis.get(aux_key("ladder", lid, "status"))) not in (None, b"running")
        left = await self.redis.hget(aux_key("ladder", lid, "setleft"), str(pair))
        if left is not None and int(left) <= 0:
            return True
        if await self.redis.llen(aux_key("ladder", lid, "pending")):
            return False  # a set's games are planned together: the rest is still to come
        running = await self.redis.hvals(aux_key("ladder", lid, "running"))
        return not any(json.loads(g).get("pair") == pair for g in running)

    # ------------------------------------------------------------------ bots
    async def register_bot(self, name: str, description: str = "", admin_token: str | None = None) -> dict[str, Any]:
        """Register a bot (admin). Returns ``{"bot_id", "bot_token", "name"}``; the token
        (``<bot id>.<256-bit hex secret>``) is shown only here. Raises InvalidArgumentError for a bad or taken name (1-64 of letters, digits,
        ``_.:+-``), PermissionDeniedError without the admin token."""
        self.matches.check_admin(admin_token)
        if not _NAME_RE.match(name or ""):
            raise InvalidArgumentError("bot name must be 1-64 letters, digits or _.:+- (starting with a letter or digit)")
        if len(description) > 500:
            raise InvalidArgumentError("bot description is longer than 500 characters")
        bot_id = "b" + secrets.token_hex(8)
        if not await self.redis.set(aux_key("botname", name), bot_id, nx=True):
            raise InvalidArgumentError(f"a bot named {name!r} is already registered")
        token = f"{bot_id}.{secrets.token_hex(32)}"  # the id in front lets a bot connect with its token alone
        bot = {"bot_id": bot_id, "name": name, "description": description, "token_hash": hash_token(token),
               "created_at_ms": self.matches.now_ms()}
        await self.redis.set(aux_key("bot", bot_id), json.dumps(bot))
        await self.redis.sadd(aux_key("bots"), bot_id)
        return {"bot_id": bot_id, "bot_token": token, "name": name}

    async def bot(self, bot_id: str) -> dict[str, Any]:
        """The stored bot (with its token hash); NotFoundError if unknown."""
        if not bot_id or not bot_id.isalnum():
            raise InvalidArgumentError("bot_id must be letters and digits")
        raw = await self.redis.get(aux_key("bot", bot_id))
        if raw is None:
            raise NotFoundError(f"no bot {bot_id!r}")
        return dict(json.loads(raw))

    async def authenticate_bot(self, bot_id: str, token: str | None) -> dict[str, Any]:
        """The bot if ``token`` is its bot token; UnauthenticatedError otherwise (also for a revoked
        or deleted bot)."""
        bot = await self.bot(bot_id)
        if bot.get("deleted") or bot.get("revoked"):
            raise UnauthenticatedError(f"the token of bot {bot['name']!r} was revoked"
                                       + (" (the bot was deleted)" if bot.get("deleted") else ""))
        if not token or not hmac.compare_digest(hash_token(token), bot["token_hash"]):
            raise UnauthenticatedError("missing or wrong bot token (authorization: Bearer <bot token>)")
        return bot

    async def list_bots(self) -> list[dict[str, Any]]:
        """Every registered bot, by name: ``{"bot_id", "name", "description", "created_at_ms",
        "connected", "connected_since_ms", "client", "revoked", "deleted"}`` (never its token)."""
        ids = sorted(x.decode() for x in await self.redis.smembers(aux_key("bots")))
        raws = await self.redis.mget([aux_key("bot", i) for i in ids]) if ids else []
        here = await self.presence()
        pipe = self.redis.pipeline(transaction=False)
        for i in ids:
            pipe.hgetall(aux_key("botstats", i))
        totals = dict(zip(ids, await pipe.execute(), strict=True)) if ids else {}
        out = []
        for raw in raws:
            if raw is None:
                continue
            b = json.loads(raw)
            since, client = here.get(b["bot_id"], (0, ""))
            out.append({"bot_id": b["bot_id"], "name": b["name"], "description": b.get("description", ""),
                        "created_at_ms": b.get("created_at_ms", 0), "connected": b["bot_id"] in here,
                        "connected_since_ms": since, "client": client, "revoked": bool(b.get("revoked")),
                        "deleted": bool(b.get("deleted")),
                        "stats": botstats.view(botstats.unflatten(totals.get(b["bot_id"]) or {}))})
        return sorted(out, key=lambda b: (b["deleted"], b["name"]))

    async def _update_bot(self, bot_id: str, admin_token: str | None, **changes: Any) -> dict[str, Any]:
        self.matches.check_admin(admin_token)
        bot = await self.bot(bot_id)
        if bot.get("deleted"):
            raise NotFoundError(f"bot {bot_id!r} was deleted")
        bot.update(changes)
        await self.redis.set(aux_key("bot", bot_id), json.dumps(bot))
        return bot

    async def revoke_bot(self, bot_id: str, admin_token: str | None = None) -> dict[str, Any]:
        """Revoke a bot's token (admin): new assignment streams and new ladders refuse it, and it
        gets no new game. Limitation: a match already created for it still takes the old token
        for its seat until it ends (StopLadder ends them). Returns the :meth:`list_bots` row."""
        bot = await self._update_bot(bot_id, admin_token, revoked=True)
        return await self._row(bot["bot_id"])

    async def rotate_bot_token(self, bot_id: str, admin_token: str | None = None) -> dict[str, Any]:
        """A new bot token (admin), shown once: ``{"bot_id", "bot_token", "name"}``; the old one
        stops working (for matches already created: see :meth:`revoke_bot`); a revoked bot is
        active again."""
        token = f"{bot_id}.{secrets.token_hex(32)}"
        bot = await self._update_bot(bot_id, admin_token, token_hash=hash_token(token), revoked=False)
        return {"bot_id": bot_id, "bot_token": token, "name": bot["name"]}

    async def delete_bot(self, bot_id: str, admin_token: str | None = None) -> dict[str, Any]:
        """Delete a bot (admin): its token stops working, its name may be registered again; its
        results stay in past ladders and it stays listed, marked deleted."""
        bot = await self._update_bot(bot_id, admin_token, deleted=True, token_hash="")
        await self.redis.delete(aux_key("botname", bot["name"]))
        return await self._row(bot_id)

    async def _row(self, bot_id: str) -> dict[str, Any]:
        return next(b for b in await self.list_bots() if b["bot_id"] == bot_id)

    async def assignments(self, bot_id: str, token: str | None, client: str = "") -> AsyncIterator[dict[str, Any]]:
        """The bot's assignments ``{"match_id", "seat", "variant", "ladder_id"}``: every one whose
        match is still running (a bot that reconnects gets its games back; one that is over or
        expired is left out), then each new one as it is made. Endless; the caller closes it. The
        seat is played with the bot token. An empty ``bot_id`` is taken from the token. At most
        ``streams_per_bot`` open per bot and process (ResourceExhaustedError); the readers are
        shared per bot and apart from the public streams' (:mod:`bummerl.ladder.feeds`).
        ``client``: what the client says about itself (shown in :meth:`list_bots`; at most 200
        printable characters kept)."""
        bot_id = bot_id or (token or "").split(".", 1)[0]
        await self.authenticate_bot(bot_id, token)
        with self._slot("bot", bot_id, self.streams_per_bot, "this bot"):
            member = f"{bot_id}|{secrets.token_hex(8)}"
            await self._present(member, "".join(ch for ch in client if ch.isprintable())[:200])
            heartbeat = asyncio.create_task(self._heartbeat(member))
            try:
                async for _eid, fields in self.bot_feeds.follow(aux_key("botq", bot_id)):
                    a = json.loads(fields[b"a"])
                    if await self.store.is_running(a["match_id"]):  # not over, and not expired either
                        yield a
            finally:
                heartbeat.cancel()
                with contextlib.suppress(Exception):
                    await self.redis.zrem(aux_key("presence"), member)
                    await self.redis.hdel(aux_key("presence", "since"), member)
                    await self.redis.hdel(aux_key("presence", "client"), member)

    async def _present(self, member: str, client: str | None = None) -> None:
        """Mark one open assignment stream (``<bot id>|<stream id>``) present for
        :data:`PRESENCE_TTL_MS` more (``bm:presence``: sorted set by expiry, ms since the epoch;
        ``bm:presence:since`` and ``bm:presence:client``: hashes by member)."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.zadd(aux_key("presence"), {member: self.matches.now_ms() + PRESENCE_TTL_MS})
        pipe.hsetnx(aux_key("presence", "since"), member, self.matches.now_ms())
        if client is not None:
            pipe.hset(aux_key("presence", "client"), member, client)
        await pipe.execute()

    async def _heartbeat(self, member: str) -> None:
        while True:
            await asyncio.sleep(PRESENCE_TTL_MS / 3000)
            try:
                await self._present(member)
            except Exception as e:  # noqa: BLE001 - redis down: the next beat retries
                log.warning("presence of %s: %s", member.split("|")[0], type(e).__name__)

    async def connected_bots(self) -> dict[str, int]:
        """Bots that hold an assignment stream on any server process now: bot id -> since (ms
        since the epoch, the oldest open stream)."""
        return {b: since for b, (since, _client) in (await self.presence()).items()}

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
        members = await self.redis.zrangebyscore(key, now, "+inf")
        out: dict[str, tuple[int, str]] = {}
        if members:
            sinces = await self.redis.hmget(since_key, members)
            clients = await self.redis.hmget(client_key, members)
            for m, since, client in zip(members, sinces, clients, strict=True):
                bot = m.decode().split("|", 1)[0]
                t = int(since or now)
                if bot not in out or t < out[bot][0]:
                    out[bot] = (t, (client or b"").decode(errors="replace"))
        return out

    async def _assign(self, bot_id: str, assignment: dict[str, Any]) -> None:
        """Append ``assignment`` to the bot's queue unless that seat of that match was assigned
        before (assign.lua: once per seat, whichever process starts the game)."""
        once = aux_key("assigned", assignment["match_id"], str(assignment["seat"]))
        await self._assign_once(keys=[aux_key("botq", bot_id), once],
                                args=[json.dumps(assignment), ASSIGNED_TTL_MS])

    # ------------------------------------------------------------------ ladders
    async def create_ladder(self, spec: LadderSpec, admin_token: str | None = None) -> dict[str, Any]:
        """Validate and plan a ladder (admin); returns :meth:`ladder` (with ``num_players`` and
        ``team_of_seat`` of the variant). Any variant: a 3- or 4-seat one seats that many
        different bots a game (see the module docstring). Raises InvalidArgumentError naming the
        bad field (fewer different bots than seats, an SPRT of a 3- or 4-seat variant, more
        than :data:`MAX_GAMES` games of one), NotFoundError for an unknown bot,
        PermissionDeniedError."""
        self.matches.check_admin(admin_token)
        try:
            variant = find_variant(spec.variant)
            rules = variant.configure(dict(spec.options or {}))
            tc = TimeControl.from_dict(spec.time_control) if spec.time_control else None
        except (UnknownVariantError, InvalidOptionError, TimeControlError) as e:
            raise InvalidArgumentError(str(e)) from None
        seats = variant.num_players
        if spec.format not in FORMATS:
            raise InvalidArgumentError(f"format must be one of {', '.join(FORMATS)}, got {spec.format!r}")
        if spec.timeout_policy not in TIMEOUT_POLICIES:
            raise InvalidArgumentError(f"timeout_policy must be one of {', '.join(TIMEOUT_POLICIES)}")
        bots = list(spec.bot_ids)
        if seats == 2 and (len(set(bots)) != len(bots) or len(bots) < 2):
            raise InvalidArgumentError("a ladder needs at least two different bots")
        if seats != 2 and (len(set(bots)) != len(bots) or len(bots) < seats):
            raise InvalidArgumentError(f"{variant.id} seats {seats} bots a game: a ladder of it needs at least "
                                       f"{seats} different bots, got {len(set(bots))}")
        if spec.format == "sprt" and seats != 2:
            raise InvalidArgumentError(f"an SPRT ladder is a head-to-head of two bots in a two-player variant; "
                                       f"{variant.id} seats {seats} (use round_robin or gauntlet)")
        if spec.format == "sprt" and len(bots) != 2:
            raise InvalidArgumentError("an SPRT ladder is a head-to-head of exactly two bots")
        if not 0 <= spec.connect_timeout_ms <= 7 * 24 * 3600 * 1000:
            raise InvalidArgumentError("connect_timeout_ms must be in 0 .. 7 days (ms)")
        if not 1 <= spec.rounds <= 100_000 or not 1 <= spec.concurrency <= 1000 or not 0 <= spec.deals_per_game <= 1000:
            raise InvalidArgumentError("rounds must be 1..100000, concurrency 1..1000, deals_per_game 0..1000")
        if (total := planned_games(spec.format, len(bots), seats, spec.rounds, spec.duplicate_deals)) > MAX_GAMES:
            raise InvalidArgumentError(f"this ladder would plan {total} games (at most {MAX_GAMES}): fewer bots or "
                                       f"rounds, or no duplicate deals ({math.factorial(seats)} games a set)")
        try:
            sprt = Sprt(**(spec.sprt or {})) if spec.format == "sprt" else None
        except (TypeError, ValueError) as e:
            raise InvalidArgumentError(f"sprt: {e}") from None
        names = {b: (await self.bot(b))["name"] for b in bots}
        ladder_id = "l" + secrets.token_hex(8)
        rng = random.Random(spec.seed if spec.seed is not None else secrets.randbits(63))
        ids = MatchIds(ladder_id, secrets.token_bytes(32))
        if seats == 2:  # planning up to MAX_GAMES games takes a while: not on the event loop
            games = await asyncio.to_thread(_plan, ladder_id, spec.format, bots, spec.rounds, spec.duplicate_deals,
                                            rng, ids)
        else:
            games = await asyncio.to_thread(_plan_seated, ladder_id, spec.format, bots, seats, spec.rounds,
                                            spec.duplicate_deals, rng, fixed_suits(rules), ids)
        cfg = {
            "ladder_id": ladder_id, "name": spec.name or ladder_id, "variant": variant.id,
            "num_players": seats, "team_of_seat": list(variant.team_of_seat),
            "options": dict(spec.options or {}), "format": spec.format, "bot_ids": bots, "bot_names": names,
            "rounds": spec.rounds, "duplicate_deals": spec.duplicate_deals, "deals_per_game": spec.deals_per_game,
            "time_control": tc.to_dict() if tc else None, "timeout_policy": spec.timeout_policy,
            "sprt": {"elo0": sprt.elo0, "elo1": sprt.elo1, "alpha": sprt.alpha, "beta": sprt.beta} if sprt else None,
            "concurrency": spec.concurrency, "created_at_ms": self.matches.now_ms(), "matches_total": len(games),
            "start_when_connected": spec.start_when_connected,
            "connect_timeout_ms": (spec.connect_timeout_ms or CONNECT_TIMEOUT_MS) if spec.start_when_connected else 0,
        }
        specs, legs = await asyncio.to_thread(_encode_plan, games)
        for i in range(0, len(specs), 10_000):  # the plan first: nothing runs before the status is set
            await self.redis.rpush(aux_key("ladder", ladder_id, "pending"), *specs[i:i + 10_000])
        sets = list(legs.items())
        for i in range(0, len(sets), 10_000):
            await self.redis.hset(aux_key("ladder", ladder_id, "setleft"), mapping=dict(sets[i:i + 10_000]))
        pipe = self.redis.pipeline(transaction=True)
        pipe.set(aux_key("ladder", ladder_id), json.dumps(cfg))
        pipe.set(aux_key("ladder", ladder_id, "status"), "running")
        pipe.zadd(aux_key("ladders"), {ladder_id: cfg["created_at_ms"]})
        pipe.sadd(aux_key("ladders", "running"), ladder_id)
        await pipe.execute()
        await self._event(ladder_id, {"type": "created", "matches_total": len(games)})
        return await self.ladder(ladder_id)

    async def _config(self, ladder_id: str) -> dict[str, Any]:
        if not ladder_id or not ladder_id.isalnum():
            raise InvalidArgumentError("ladder_id must be letters and digits")
        raw = await self.redis.get(aux_key("ladder", ladder_id))
        if raw is None:
            raise NotFoundError(f"no ladder {ladder_id!r}")
        return dict(json.loads(raw))

    async def ladder(self, ladder_id: str) -> dict[str, Any]:
        """The ladder's config with ``status`` (running, finished, stopped), ``matches_played``,
        ``matches_running`` and ``matches_total`` (an SPRT that stopped early has played fewer),
        ``num_players`` and ``team_of_seat`` (team per seat)."""
        cfg = await self._config(ladder_id)
        cfg.setdefault("num_players", 2)  # a ladder made before 3-4 seat ladders existed
        cfg.setdefault("team_of_seat", [0, 1])
        pipe = self.redis.pipeline(transaction=False)
        pipe.get(aux_key("ladder", ladder_id, "status"))
        pipe.llen(aux_key("ladder", ladder_id, "results"))
        pipe.hlen(aux_key("ladder", ladder_id, "running"))
        status, played, running = await pipe.execute()
        cfg.update(status=(status or b"running").decode(), matches_played=int(played), matches_running=int(running))
        connected = await self.connected_bots()
        cfg["absent_bots"] = [b for b in cfg["bot_ids"] if b not in connected]
        cfg["waiting_for_bots"] = cfg["status"] == "running" and await self._waiting(cfg, connected)
        return cfg

    async def _waiting(self, cfg: dict[str, Any], connected: dict[str, int] | None = None) -> bool:
        """Does a ``start_when_connected`` ladder still wait for a bot (none of its games has been
        claimed yet, a bot is absent, and the wait has not timed out)?"""
        if not cfg.get("start_when_connected") or await self.redis.exists(aux_key("ladder", cfg["ladder_id"], "go")):
            return False
        connected = await self.connected_bots() if connected is None else connected
        absent = [b for b in cfg["bot_ids"] if b not in connected]
        timeout = int(cfg.get("connect_timeout_ms") or CONNECT_TIMEOUT_MS)
        if absent and self.matches.now_ms() < int(cfg["created_at_ms"]) + timeout:
            return True
        if await self.redis.set(aux_key("ladder", cfg["ladder_id"], "go"), "1", nx=True):  # once, in one process
            await self._event(cfg["ladder_id"], {"type": "bots_absent" if absent else "bots_connected",
                                                 "bots": absent})
        return False

    async def list_ladders(self) -> list[dict[str, Any]]:
        ids = [x.decode() for x in await self.redis.zrange(aux_key("ladders"), 0, -1)]
        return [await self.ladder(i) for i in ids]

    async def results(self, ladder_id: str) -> list[dict[str, Any]]:
        """Every finished game in order: ``{"game", "pair", "leg", "match_id", "bots", "winner",
        "scores", "reason", "deals_won", "deals", "game_points"}`` (per seat, index = seat; scores:
        1 won, 0.5 drawn, 0 lost). Three or four seats also ``placements``, ``teams`` and
        ``deals_lost`` (:func:`seated_result`)."""
        await self._config(ladder_id)
        raw = await self.redis.lrange(aux_key("ladder", ladder_id, "results"), 0, -1)
        return await asyncio.to_thread(_decode_all, raw) if len(raw) > 1000 else _decode_all(raw)

    async def leaderboard(self, ladder_id: str, pooled: bool = False) -> dict[str, Any]:
        """``{"ladder_id", "entries": [...], "pairs": [...], "ladder_ids", "pool"}`` from the results
        (see :func:`leaderboard`). ``pooled``: ratings and pair statistics over every ladder of the
        same rating pool as this one (:func:`rating_pool`: variant, options, time control, deals per
        game), their results in ladder creation order; ``ladder_ids`` lists them. NotFoundError
        for an unknown ladder."""
        cfg = await self._config(ladder_id)
        if not pooled:  # the ratings fold only the results added since the last read
            board = await self._board(cfg)
            async with board.lock:
                entries = board.standings.entries(cfg.get("bot_names", {}))
                pairs = await asyncio.to_thread(pair_table, cfg, list(board.results))
            return {"ladder_id": ladder_id, "entries": entries, "pairs": pairs, "ladder_ids": [ladder_id],
                    "pool": rating_pool(cfg)}
        pool = rating_pool(cfg)
        members = [c for c in await self.list_ladders() if rating_pool(c) == pool]
        results: list[dict[str, Any]] = []
        merged: dict[str, Any] = {"ladder_id": ladder_id, "bot_ids": [], "bot_names": {}, "sprt": None,
                                  "duplicate_deals": all(c.get("duplicate_deals") for c in members)}
        for c in members:
            merged["bot_ids"] += [b for b in c["bot_ids"] if b not in merged["bot_ids"]]
            merged["bot_names"].update(c.get("bot_names", {}))
            results += [{**r, "pair": f"{c['ladder_id']}/{r['pair']}"} for r in await self.results(c["ladder_id"])]
        return {**await asyncio.to_thread(leaderboard, merged, results), "ladder_ids": [c["ladder_id"] for c in members],
                "pool": pool}

    async def _board(self, cfg: dict[str, Any]) -> _Board:
        """This process's running standings of a ladder, brought up to date: reads and folds only
        the results recorded since the last call (off the event loop when there are many).
        At most :data:`BOARDS` ladders are kept."""
        lid = cfg["ladder_id"]
        board = self._boards.get(lid)
        if board is None:
            board = self._boards[lid] = _Board(Standings(cfg["bot_ids"]))
        self._boards.move_to_end(lid)
        while len(self._boards) > BOARDS:
            self._boards.popitem(last=False)
        async with board.lock:
            raw = await self.redis.lrange(aux_key("ladder", lid, "results"), len(board.results), -1)
            if raw:
                new = await asyncio.to_thread(_decode_all, raw) if len(raw) > 100 else _decode_all(raw)
                if len(new) > 100:
                    await asyncio.to_thread(board.standings.add, new)
                else:
                    board.standings.add(new)
                board.results.extend(new)
        return board

    async def _event(self, ladder_id: str, ev: dict[str, Any]) -> None:
        ev = dict(ev, ladder_id=ladder_id, at_ms=self.matches.now_ms())
        await self.redis.xadd(aux_key("ladder", ladder_id, "events"), {b"e": json.dumps(ev).encode()},
                              maxlen=100_000, approximate=True)

    async def stream_ladder(self, ladder_id: str, peer: str = "") -> AsyncIterator[dict[str, Any]]:
        """Progress events of a ladder as they happen, from its creation: ``created``, ``started``
        (a game's match was created), ``result`` (a game ended, with its result), ``abandoned`` (a
        running game ended by StopLadder), ``finished`` (with the final leaderboard). Ends after
        ``finished``. Needs no token: every watcher of one ladder shares one reader in this
        process, at most :data:`PUBLIC_STREAM_KEYS` ladders are followed at once and
        ``streams_per_peer`` streams per ``peer`` address (ResourceExhaustedError past either)."""
        await self._config(ladder_id)
        with self._slot("peer", peer, self.streams_per_peer, f"peer {peer or '(unknown)'}"):
            async for _eid, fields in self.public_feeds.follow(aux_key("ladder", ladder_id, "events")):
                ev = json.loads(fields[b"e"])
                yield ev
                if ev["type"] == "finished":
                    return

    async def stop_ladder(self, ladder_id: str, admin_token: str | None = None) -> dict[str, Any]:
        """Stop the ladder (admin): no new game starts, and every game still running ends at once as
        ``abandoned`` (no winner; record kind ABANDONED) and is dropped from the ladder, unrated, so
        that no bot plays on until an idle limit. Games already over are recorded as usual."""
        self.matches.check_admin(admin_token)
        await self._config(ladder_id)
        await self.redis.delete(aux_key("ladder", ladder_id, "pending"))
        await self.redis.set(aux_key("ladder", ladder_id, "status"), "stopped")
        running_key = aux_key("ladder", ladder_id, "running")
        for num, raw in (await self.redis.hgetall(running_key)).items():
            game = json.loads(raw)
            if await self.store.is_over(game["match_id"]):
                continue  # a result: the driver records it
            with contextlib.suppress(NotFoundError, MatchOverError):
                await self.matches.abandon(game["match_id"])
            if await self.redis.hdel(running_key, num):
                await self._event(ladder_id, {"type": "abandoned", "game": game["game"], "match_id": game["match_id"]})
        return await self.ladder(ladder_id)

    async def pause_ladder(self, ladder_id: str, admin_token: str | None = None) -> dict[str, Any]:
        """Pause a running ladder (admin): no new game starts; running games finish and count.
        FailedPreconditionError unless it is running."""
        return await self._set_status(ladder_id, admin_token, "running", "paused")

    async def resume_ladder(self, ladder_id: str, admin_token: str | None = None) -> dict[str, Any]:
        """Resume a paused ladder (admin). FailedPreconditionError unless it is paused."""
        return await self._set_status(ladder_id, admin_token, "paused", "running")

    async def _set_status(self, ladder_id: str, admin_token: str | None, old: str, new: str) -> dict[str, Any]:
        self.matches.check_admin(admin_token)
        await self._config(ladder_id)
        key = aux_key("ladder", ladder_id, "status")
        cur = (await self.redis.get(key) or b"running").decode()
        if cur != old:
            raise FailedPreconditionError(f"the ladder is {cur}, not {old}")
        await self.redis.set(key, new)
        await self._event(ladder_id, {"type": new if new == "paused" else "resumed"})
        return await self.ladder(ladder_id)

    async def games(self, ladder_id: str, state: str = "") -> list[dict[str, Any]]:
        """The ladder's games: ``{"game", "pair", "leg", "bots", "state", "match_id"}``, planned
        ones in play order (at most :data:`GAMES_LISTED`, no match id), then the running ones, then
        the finished ones in the order they ended; ``state`` picks one of ``planned``, ``running``,
        ``finished`` ("" = all). Never a seed or suit relabelling."""
        if state not in ("", "planned", "running", "finished"):
            raise InvalidArgumentError("state must be planned, running, finished or empty")
        await self._config(ladder_id)
        out: list[dict[str, Any]] = []

        def row(g: dict[str, Any], st: str) -> dict[str, Any]:
            return {"game": g["game"], "pair": g["pair"], "leg": g["leg"], "bots": g["bots"], "state": st,
                    "match_id": "" if st == "planned" else g["match_id"]}

        if state in ("", "planned"):
            raw = await self.redis.lrange(aux_key("ladder", ladder_id, "pending"), 0, GAMES_LISTED - 1)
            out += [row(json.loads(g), "planned") for g in raw]
        if state in ("", "running"):
            running = [json.loads(g) for g in await self.redis.hvals(aux_key("ladder", ladder_id, "running"))]
            out += [row(g, "running") for g in sorted(running, key=lambda g: g["game"])]
        if state in ("", "finished"):
            out += [row(g, "finished") for g in await self.results(ladder_id)]
        return out

    # ------------------------------------------------------------------ driving
    async def drive(self, ladder_id: str) -> int:
        """One pass over a running ladder: record finished games, (re)create and assign claimed
        games, claim new ones up to the concurrency. Returns the number of results recorded.
        Safe to run in any number of processes at once."""
        cfg = await self._config(ladder_id)
        running_key = aux_key("ladder", ladder_id, "running")
        recorded = 0
        now = self.matches.now_ms()
        for raw in (await self.redis.hgetall(running_key)).values():
            game = json.loads(raw)
            if not game.get("assigned"):
                if now - int(game.get("claimed_ms") or 0) >= CLAIM_LEASE_MS:  # its claimer died
                    await self._start(cfg, game)
                continue
            if await self.store.is_over(game["match_id"]):
                recorded += await self._record(cfg, game)
        pending_key = aux_key("ladder", ladder_id, "pending")
        paused = (await self.redis.get(aux_key("ladder", ladder_id, "status"))) == b"paused"
        while not paused and not await self._waiting(cfg):
            raw = await self._claim(keys=[pending_key, running_key], args=[cfg["concurrency"], self.matches.now_ms()])
            if not raw:
                break
            await self._start(cfg, json.loads(raw))
        if recorded or not await self.redis.hlen(running_key):
            await self._maybe_finish(cfg)
        return recorded

    async def _start(self, cfg: dict[str, Any], game: dict[str, Any]) -> None:
        """Create a claimed game's match, assign its seats and mark it started. Idempotent, for the
        process that claimed it and for one that takes over after :data:`CLAIM_LEASE_MS`: the match
        id is fixed (created once), each seat is assigned once (assign.lua), and the ``started``
        mark and event happen once (started.lua), never for a game already recorded."""
        bots = game["bots"]
        hashes = [(await self.bot(b))["token_hash"] for b in bots]
        try:
            await self.matches.create_match(
                cfg["variant"], cfg["options"], [cfg["bot_names"][b] for b in bots], game["seed"],
                time_control=cfg["time_control"], timeout_policy=cfg["timeout_policy"], trusted=True,
                max_deals=cfg["deals_per_game"], suit_perm=game.get("suit_perm") or (), seat_bot_hashes=hashes,
                match_id=game["match_id"], ladder_id=cfg["ladder_id"], ladder_set=int(game["pair"]),
            )
        except MatchExistsError:
            pass  # another process created it before it could mark the game started
        for seat, b in enumerate(bots):
            await self._assign(b, {"match_id": game["match_id"], "seat": seat, "variant": cfg["variant"],
                                   "ladder_id": cfg["ladder_id"]})
        game["assigned"] = True
        if await self._started(keys=[aux_key("ladder", cfg["ladder_id"], "running")],
                               args=[str(game["game"]), json.dumps(game)]):
            await self._event(cfg["ladder_id"], {"type": "started", "game": game["game"],
                                                 "match_id": game["match_id"], "bots": bots})

    async def _record(self, cfg: dict[str, Any], game: dict[str, Any]) -> int:
        s = await self.matches.summary(game["match_id"])
        if len(game["bots"]) != 2:
            result = seated_result(game, s, cfg.get("team_of_seat") or find_variant(cfg["variant"]).team_of_seat)
        else:
            res = s["match_result"]
            w = int(res["winner"])
            scores = [0.5, 0.5] if w < 0 else [1.0 if i == w else 0.0 for i in (0, 1)]
            deals_won = [sum(1 for d in s["deal_results"] if d["winner"] == i) for i in (0, 1)]
            result = {
                "game": game["game"], "pair": game["pair"], "leg": game["leg"], "match_id": game["match_id"],
                "bots": game["bots"], "winner": w, "scores": scores, "reason": res["reason"], "deals_won": deals_won,
                "deals": len(s["deal_results"]),
                "game_points": [sum(d["game_points"][i] for d in s["deal_results"]) for i in (0, 1)],
            }
        seats = await self.matches.seat_stats(game["match_id"])
        result["stats"] = [botstats.game_stats(seats[i], *_outcome(result, i)) for i in range(len(game["bots"]))]
        lid = cfg["ladder_id"]
        done = await self._finish(
            keys=[aux_key("ladder", lid, "running"), aux_key("ladder", lid, "results"),
                  aux_key("ladder", lid, "setleft")],
            args=[str(game["game"]), json.dumps(result), str(game["pair"])],
        )
        if int(done) != 1:
            return 0
        pipe = self.redis.pipeline(transaction=False)  # every ladder's totals of each bot (ListBots)
        for bot, st in zip(game["bots"], result["stats"], strict=True):
            for k, v in botstats.flatten(st).items():
                if v:
                    pipe.hincrby(aux_key("botstats", bot), k, v)
            metrics.bot_game(cfg.get("bot_names", {}).get(bot, bot), st)
        await pipe.execute()
        await self._event(lid, {"type": "result", "result": result})
        if cfg["format"] == "sprt" and cfg["sprt"]:
            board = await self._board(cfg)
            async with board.lock:
                pairs = await asyncio.to_thread(pair_table, cfg, list(board.results))
            if pairs and pairs[0]["sprt_result"]:
                await self.redis.delete(aux_key("ladder", lid, "pending"))
        return 1

    async def _maybe_finish(self, cfg: dict[str, Any]) -> None:
        lid = cfg["ladder_id"]
        pipe = self.redis.pipeline(transaction=False)
        pipe.llen(aux_key("ladder", lid, "pending"))
        pipe.hlen(aux_key("ladder", lid, "running"))
        pending, running = await pipe.execute()
        if pending or running:
            return
        if await self.redis.srem(aux_key("ladders", "running"), lid) != 1:
            return  # another process finished it
        status_key = aux_key("ladder", lid, "status")
        if (await self.redis.get(status_key)) != b"stopped":
            await self.redis.set(status_key, "finished")
        final = await self.leaderboard(lid)
        await self._event(lid, {"type": "finished", "leaderboard": {k: final[k] for k in ("ladder_id", "entries",
                                                                                         "pairs")}})

    async def running_ladders(self) -> list[str]:
        return sorted(x.decode() for x in await self.redis.smembers(aux_key("ladders", "running")))


BOARDS = 64
"""Ladders whose running standings one process keeps (least recently read dropped)."""


@dataclass
class _Board:
    standings: Standings
    results: list[dict[str, Any]] = field(default_factory=list)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


def _outcome(result: dict[str, Any], i: int) -> tuple[float, float]:
    """(score, best other score) of seat ``i`` for :func:`botstats.game_stats`: two seats the game
    scores; three or four: 1 vs 0 alone (with the partner) in first place, 1/2 vs 1/2 first place
    shared, 0 vs 1 otherwise (the leaderboard's W/D/L)."""
    if "placements" not in result:
        return float(result["scores"][i]), float(result["scores"][1 - i])
    places, teams = result["placements"], result["teams"]
    firsts = {teams[j] for j, p in enumerate(places) if p == 1}
    if places[i] != 1:
        return 0.0, 1.0
    return (1.0, 0.0) if len(firsts) == 1 else (0.5, 0.5)


def _decode_all(raw: Sequence[bytes]) -> list[dict[str, Any]]:
    return [json.loads(x) for x in raw]


class MatchIds:
    """Match ids of a ladder's games that nobody can derive from public facts (issue 25: a bot
    must not find another leg of its duplicate set by guessing): ``<ladder id>g<24 hex digits of
    HMAC-SHA256(key, game number)>``. ``key`` is drawn at creation and not kept: the ids are
    stored with the plan, so they stay the same across restarts (exactly-once scheduling)."""

    def __init__(self, ladder_id: str, key: bytes) -> None:
        self.ladder_id = ladder_id
        self.key = key

    def __call__(self, game: int) -> str:
        return f"{self.ladder_id}g{hmac.new(self.key, str(game).encode(), 'sha256').hexdigest()[:24]}"


def _encode_plan(games: list[dict[str, Any]]) -> tuple[list[str], dict[str, int]]:
    """The game specs as JSON, and the number of games of each duplicate set (``pair``)."""
    legs: dict[str, int] = {}
    for g in games:
        legs[str(g["pair"])] = legs.get(str(g["pair"]), 0) + 1
    return [json.dumps(g) for g in games], legs


def _plan(ladder_id: str, fmt: str, bots: list[str], rounds: int, duplicate: bool,
          rng: random.Random, match_id: Callable[[int], str] | None = None) -> list[dict[str, Any]]:
    """Every game of a ladder, round by round so that pairings interleave. A duplicate pair is two
    games on one seed with the seats swapped, the second with relabelled suits. ``match_id``:
    game number -> match id (:class:`MatchIds`; default ``<ladder>g<number>``)."""
    match_id = match_id or _plain_ids(ladder_id)
    if fmt == "round_robin":
        pairings = [(a, b) for i, a in enumerate(bots) for b in bots[i + 1:]]
    else:  # gauntlet: the first bot against every other; sprt: the two bots
        pairings = [(bots[0], b) for b in bots[1:]]
    games: list[dict[str, Any]] = []
    pair = 0
    for r in range(rounds):
        for a, b in pairings:
            seed = rng.randrange(2**63)
            first = (a, b) if r % 2 == 0 else (b, a)
            legs = [list(first), list(reversed(first))] if duplicate else [list(first)]
            for leg, seats in enumerate(legs):
                perm: list[int] = []
                if leg == 1:
                    perm = [0, 1, 2, 3]
                    while perm == [0, 1, 2, 3]:
                        rng.shuffle(perm)
                n = len(games)
                games.append({"game": n, "pair": pair, "leg": leg, "bots": seats, "seed": seed,
                              "suit_perm": perm, "match_id": match_id(n)})
            pair += 1
    return games


def seatings(group: Sequence[str]) -> list[list[str]]:
    """Every seating arrangement of ``group`` (bot ids; index = seat), ``len(group)!`` of them,
    the group's own order first. Ordered so that the first ones already vary what a seat number
    does not decide: ``k`` takes the cyclic order ``k % C`` (the group's first bot followed by
    each ordering of the others: who sits after whom, and with four seats the partnership
    0&2 / 1&3; the first three orders of four give the three partnerships) rotated by
    ``k // C`` seats (``C = (n - 1)!``). Two bots: ``[[a, b], [b, a]]``.

    >>> seatings(["a", "b", "c"])
    [['a', 'b', 'c'], ['a', 'c', 'b'], ['b', 'c', 'a'], ['c', 'b', 'a'], ['c', 'a', 'b'], ['b', 'a', 'c']]
    """
    first, rest = group[0], list(group[1:])
    cycles = [[first, *p] for p in itertools.permutations(rest)]
    n = len(group)
    return [cycles[k % len(cycles)][k // len(cycles):] + cycles[k % len(cycles)][:k // len(cycles)]
            for k in range(len(cycles) * n)]


def _suit_perms(rng: random.Random, count: int, fixed: Sequence[int] = ()) -> list[list[int]]:
    """``count`` suit relabellings (permutations of 0..3, never the identity) that keep the suits
    ``fixed`` (a suit the rules single out, e.g. hearts always trump): every allowed one once,
    in random order, before any repeats (23 of them, 5 when hearts stay hearts)."""
    pool = [list(p) for p in itertools.permutations(range(4))
            if list(p) != [0, 1, 2, 3] and all(p[s] == s for s in fixed)]
    out: list[list[int]] = []
    while len(out) < count:
        batch = [list(p) for p in pool]
        rng.shuffle(batch)
        out.extend(batch)
    return out[:count]


def _groups(fmt: str, bots: Sequence[str], seats: int) -> list[list[str]]:
    """The tables of a multi-player ladder: round robin = every ``seats``-subset of the bots (in
    list order, itertools.combinations); gauntlet = the first bot with every
    ``(seats - 1)``-subset of the others."""
    if fmt == "round_robin":
        return [list(c) for c in itertools.combinations(bots, seats)]
    return [[bots[0], *c] for c in itertools.combinations(bots[1:], seats - 1)]


def _plain_ids(ladder_id: str) -> Callable[[int], str]:
    return lambda n: f"{ladder_id}g{n:06d}"


def planned_games(fmt: str, num_bots: int, seats: int, rounds: int, duplicate: bool) -> int:
    """How many games :func:`_plan` / :func:`_plan_seated` plan (pairings or tables x rounds x
    ``seats!`` legs, or one game per pairing or table and round without duplicate deals; an SPRT
    plans its ``rounds`` pairs up front)."""
    tables = math.comb(num_bots, seats) if fmt == "round_robin" else math.comb(num_bots - 1, seats - 1)
    return tables * rounds * (math.factorial(seats) if duplicate else 1)


def _plan_seated(ladder_id: str, fmt: str, bots: list[str], seats: int, rounds: int, duplicate: bool,
                 rng: random.Random, fixed_suits: Sequence[int] = (),
                 match_id: Callable[[int], str] | None = None) -> list[dict[str, Any]]:
    """Every game of a ladder of a 3- or 4-seat variant, round by round so that tables interleave
    (see :func:`_groups`). A duplicate set (``pair`` = its number) plays one seed under every
    seating arrangement of the table (:func:`seatings`; ``leg`` 0 .. ``seats! - 1``), every leg
    after the first with its own suit relabelling (:func:`_suit_perms`, keeping ``fixed_suits``).
    Without duplicate deals each table plays one game per round on its own seed, seated by
    arrangement ``round % seats!``. Game spec: ``{"game", "pair", "leg", "bots" (bot id per
    seat), "seed", "suit_perm", "match_id"}`` (``match_id`` as in :func:`_plan`)."""
    match_id = match_id or _plain_ids(ladder_id)
    games: list[dict[str, Any]] = []
    pair = 0
    for r in range(rounds):
        for group in _groups(fmt, bots, seats):
            arrangements = seatings(group)
            seed = rng.randrange(2**63)
            legs = arrangements if duplicate else [arrangements[r % len(arrangements)]]
            perms = [[], *_suit_perms(rng, len(legs) - 1, fixed_suits)]
            for leg, seated in enumerate(legs):
                n = len(games)
                games.append({"game": n, "pair": pair, "leg": leg, "bots": seated, "seed": seed,
                              "suit_perm": perms[leg], "match_id": match_id(n)})
            pair += 1
    return games


def seated_result(game: dict[str, Any], summary: dict[str, Any], team_of_seat: Sequence[int]) -> dict[str, Any]:
    """The result of a finished game of a 3- or 4-seat variant (``summary``: the match service's
    summary with ``match_result`` and ``deal_results``; ``team_of_seat``: the variant's team per
    seat). Per seat, index = seat: ``bots`` (bot id), ``placements`` (1 = first; teammates share
    a place), ``teams`` (team id), ``scores`` (:func:`~bummerl.ladder.stats.placement_scores`:
    1 alone first, 0 behind every other team, shared places half), ``game_points`` (the match's
    final game points), ``deals_won`` / ``deals_lost`` (deals the seat played and was, or was not,
    credited game points in, counting deals that credited anybody and no play-off deal; a seat
    sitting a deal out or credited as the watcher counts neither). Also ``game``, ``pair`` (the
    duplicate set), ``leg``, ``match_id``, ``winner`` (team, or seat without teams, alone in
    first place; -1 shared), ``reason`` and ``deals`` (deals played, play-off deals included)."""
    res = summary["match_result"]
    n = len(game["bots"])
    teams = [int(t) for t in team_of_seat]
    w = int(res["winner"])
    places = [int(p) for p in res.get("placements") or []]
    if len(places) != n:  # not expected from a finished match; derive the places from the winner
        places = [1 if w < 0 or teams[i] == w else 2 for i in range(n)]
    won, lost = [0] * n, [0] * n
    for d in summary["deal_results"]:
        credited = {i for i in range(n) if d["game_points"][i] > 0}
        if d.get("playoff") or not credited:
            continue
        for i in d.get("seats") or range(n):
            if i in credited:
                won[i] += 1
            else:
                lost[i] += 1
    return {
        "game": game["game"], "pair": game["pair"], "leg": game["leg"], "match_id": game["match_id"],
        "bots": game["bots"], "winner": w, "placements": places, "teams": teams,
        "scores": placement_scores(places, teams), "reason": res["reason"], "deals_won": won, "deals_lost": lost,
        "deals": len(summary["deal_results"]), "game_points": [int(x) for x in res["game_points"]],
    }


def rating_pool(cfg: dict[str, Any]) -> str:
    """The rating pool of a ladder: ratings are comparable across ladders of one variant with the
    same options, time control and deals per game (one Bummerl or N deals), so they are pooled
    by this key, e.g. ``schnapsen-at|{}|5000+100|deals=0``."""
    tc = cfg.get("time_control") or {}
    clock = (f"{tc.get('base_ms', 0)}+{tc.get('increment_ms', 0)}/move{tc.get('move_cap_ms', 0)}"
             f"/{tc.get('scope') or 'match'}" if tc else "untimed")
    options = json.dumps(cfg.get("options") or {}, sort_keys=True, separators=(",", ":"))
    return f"{cfg['variant']}|{options}|{clock}|deals={cfg.get('deals_per_game', 0)}"


def leaderboard(cfg: dict[str, Any], results: list[dict[str, Any]]) -> dict[str, Any]:
    """Ratings and pairwise statistics from a ladder's results, in result order.

    ``entries``: per bot ``{"rank", "bot_id", "name", "mu", "sigma", "ordinal", "games", "wins",
    "losses", "draws", "score", "deals_won", "deals_lost"}``, sorted by ``ordinal`` (openskill's
    ``mu - 3 sigma``; Plackett-Luce model, one rating update per game in result order).
    ``score`` is the sum of the bot's game scores (two seats: 1 won, 1/2 drawn, 0 lost).

    Games of three or four seats (results with ``placements``): one update per game with one
    openskill team per team of the variant (``[[seat 0, seat 2], [seat 1, seat 3]]`` in the
    four-seat team games; each bot its own team otherwise) ranked by the placements, so partners
    get the same update. ``wins`` = alone (with the partner) in first place, ``draws`` = first
    place shared with another team (or an abandoned game), ``losses`` = any other place;
    ``score`` sums :func:`~bummerl.ladder.stats.placement_scores`; ``deals_won`` / ``deals_lost``
    as in :func:`seated_result`.

    ``pairs``: per pairing ``{"a", "b", "elo", "elo_ci95", "los", "deal_pairs", "games",
    "pentanomial", "sprt_llr", "sprt_result"}`` from ``a``'s side (see :mod:`bummerl.ladder.stats`):
    from complete duplicate pairs (pentanomial) when the ladder plays them, else from games.
    Three or four seats: head to head of every two bots that sat at one table as opponents
    (partners are left out): a game scores ``a`` 1 if it placed ahead of ``b``, 1/2 on the same
    place, 0 behind; with duplicate deals the unit is a complete duplicate set (``deal_pairs``
    counts them; ``a``'s mean over the set's games where the two were opponents), else the game;
    ``pentanomial`` is empty. That Elo measures finishing ahead of one bot at a table of three or
    four, with the other seats' play mixed in: compare it within the ladder, not with two-player
    Elo.
    """
    standings = Standings(cfg["bot_ids"])
    standings.add(results)
    return {"ladder_id": cfg["ladder_id"], "entries": standings.entries(cfg.get("bot_names", {})),
            "pairs": pair_table(cfg, results)}


class Standings:
    """The running openskill ratings and tallies of a ladder (the ``entries`` of
    :func:`leaderboard`), folded one result at a time in result order, so that a leaderboard read
    costs the results added since the last read, not all of them (:meth:`LadderService.leaderboard`
    keeps one per ladder). ``bot_ids``: the ladder's bots."""

    def __init__(self, bot_ids: Sequence[str]) -> None:
        from openskill.models import PlackettLuce

        self.model = PlackettLuce()
        self.ratings = {b: self.model.rating(name=b) for b in bot_ids}
        self.tally = {b: {"games": 0, "wins": 0, "losses": 0, "draws": 0, "score": 0.0, "deals_won": 0,
                          "deals_lost": 0} for b in bot_ids}
        self.stats: dict[str, dict[str, Any]] = {b: {} for b in bot_ids}
        self.count = 0
        """Results folded in so far."""

    def add(self, results: Sequence[dict[str, Any]]) -> None:
        """Fold ``results`` (the next ones of the ladder, in order) into the ratings and tallies."""
        model, ratings, tally = self.model, self.ratings, self.tally
        for r in results:
            self.count += 1
            for bot, st in zip(r["bots"], r.get("stats") or (), strict=False):
                botstats.add(self.stats.setdefault(bot, {}), st)
            if len(r["bots"]) != 2:
                _rate_seated(model, ratings, tally, r)
                continue
            a, b = r["bots"]
            sa, sb = r["scores"]
            ranks = [0, 0] if sa == sb else ([0, 1] if sa > sb else [1, 0])
            [[ra], [rb]] = model.rate([[ratings[a]], [ratings[b]]], ranks=ranks)
            ratings[a], ratings[b] = ra, rb
            for bot, mine, theirs, dw, dl in ((a, sa, sb, r["deals_won"][0], r["deals_won"][1]),
                                              (b, sb, sa, r["deals_won"][1], r["deals_won"][0])):
                t = tally[bot]
                t["games"] += 1
                t["wins" if mine > theirs else "losses" if mine < theirs else "draws"] += 1
                t["score"] += mine
                t["deals_won"] += dw
                t["deals_lost"] += dl

    def entries(self, names: dict[str, str]) -> list[dict[str, Any]]:
        """The leaderboard rows, best ordinal first (see :func:`leaderboard`)."""
        entries = [{"bot_id": b, "name": names.get(b, b), "mu": rt.mu, "sigma": rt.sigma, "ordinal": rt.ordinal(),
                    **self.tally[b], "stats": botstats.view(self.stats.get(b, {}))} for b, rt in self.ratings.items()]
        entries.sort(key=lambda e: -e["ordinal"])
        for i, e in enumerate(entries):
            e["rank"] = i + 1
        return entries


def pair_table(cfg: dict[str, Any], results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The ``pairs`` of :func:`leaderboard` alone (no ratings): what an SPRT ladder needs after
    every result."""
    names = cfg.get("bot_names", {})
    by_pair: dict[Any, list[dict[str, Any]]] = {}
    for r in results:
        by_pair.setdefault(r["pair"], []).append(r)
    sprt = Sprt(**cfg["sprt"]) if cfg.get("sprt") else None
    pairings: dict[tuple[str, str], dict[str, list[float]]] = {}
    seated = False
    for games in by_pair.values():
        if len(games[0]["bots"]) != 2:
            seated = True
            _pair_seated(pairings, games, bool(cfg.get("duplicate_deals")))
            continue
        a, b = sorted(games[0]["bots"])
        side = pairings.setdefault((a, b), {"pairs": [], "games": []})
        own = [g["scores"][g["bots"].index(a)] for g in games]
        side["games"].extend(own)
        if cfg.get("duplicate_deals") and len(games) == 2:
            side["pairs"].append(sum(own) / 2)
    pairs = []
    for (a, b), side in sorted(pairings.items()):
        units = side["pairs"] if cfg.get("duplicate_deals") else side["games"]
        est = estimate(units)
        # two-seat duplicate pairs score 0, 1/4 ... 1 (pentanomial), single games 0, 1/2, 1
        cells = PENTANOMIAL if cfg.get("duplicate_deals") and not seated else TRINOMIAL
        llr = sprt.llr(units, cells) if sprt else 0.0
        pairs.append({
            "a": a, "b": b, "a_name": names.get(a, a), "b_name": names.get(b, b), "elo": est.elo,
            "elo_ci95": est.elo_ci95, "los": est.los, "deal_pairs": len(side["pairs"]), "games": len(side["games"]),
            "pentanomial": [] if seated else pentanomial(side["pairs"]), "sprt_llr": llr,
            "sprt_result": sprt.verdict(units, cells) if sprt else "",
        })
    return pairs


def _rate_seated(model: Any, ratings: dict[str, Any], tally: dict[str, dict[str, Any]], r: dict[str, Any]) -> None:
    """One openskill update and the tallies of a 3- or 4-seat result (see :func:`leaderboard`)."""
    bots, places, teams = r["bots"], r["placements"], r["teams"]
    order = sorted(set(teams))
    seats_of = {t: [i for i, u in enumerate(teams) if u == t] for t in order}
    team_place = {t: places[seats_of[t][0]] for t in order}
    rated = model.rate([[ratings[bots[i]] for i in seats_of[t]] for t in order], ranks=[float(team_place[t]) for t in order])
    for t, new in zip(order, rated, strict=True):
        for i, rating in zip(seats_of[t], new, strict=True):
            ratings[bots[i]] = rating
    firsts = sum(1 for t in order if team_place[t] == 1)
    for i, b in enumerate(bots):
        t = tally[b]
        t["games"] += 1
        t["wins" if places[i] == 1 and firsts == 1 else "draws" if places[i] == 1 else "losses"] += 1
        t["score"] += r["scores"][i]
        t["deals_won"] += r["deals_won"][i]
        t["deals_lost"] += r["deals_lost"][i]


def _pair_seated(pairings: dict[tuple[str, str], dict[str, list[float]]], games: list[dict[str, Any]],
                 duplicate: bool) -> None:
    """Add the head-to-head scores of one duplicate set (or one game) of 3 or 4 seats to
    ``pairings`` (``(a, b)`` with ``a < b`` -> ``{"pairs": set means, "games": game scores}``,
    from ``a``'s side); a set counts as a unit only when complete (``seats!`` games)."""
    own: dict[tuple[str, str], list[float]] = {}
    for g in games:
        bots = g["bots"]
        for i, j in itertools.combinations(range(len(bots)), 2):
            if bots[i] > bots[j]:
                i, j = j, i
            x = head_to_head(g["placements"], g["teams"], i, j)
            if x is not None:
                own.setdefault((bots[i], bots[j]), []).append(x)
    complete = duplicate and len(games) == math.factorial(len(games[0]["bots"]))
    for key, xs in own.items():
        side = pairings.setdefault(key, {"pairs": [], "games": []})
        side["games"].extend(xs)
        if complete:
            side["pairs"].append(sum(xs) / len(xs))


class LadderDriver:
    """Runs :meth:`LadderService.drive` for every running ladder every ``poll_ms`` (one per
    server process, like the reaper)."""

    def __init__(self, ladders: LadderService, poll_ms: int = 100,
                 sleep: Callable[[float], Any] = asyncio.sleep) -> None:
        self.ladders = ladders
        self.poll_ms = poll_ms
        self._sleep = sleep

    async def run_once(self) -> int:
        """One pass over every running ladder; returns the results recorded. Redis errors
        propagate (the caller backs off); any other error of one ladder is logged with its
        traceback (a bug) and the other ladders go on."""
        done = 0
        for lid in await self.ladders.running_ladders():
            try:
                done += await self.ladders.drive(lid)
            except (RedisError, OSError):
                raise
            except Exception:  # noqa: BLE001 - one ladder's trouble must not stop the others
                log.exception("ladder driver: ladder %s failed this pass; retrying", lid)
        return done

    async def run(self, stop: asyncio.Event) -> None:
        """Drive every ``poll_ms`` until ``stop``. While Redis is unreachable: one log line when it
        goes and one when it is back, retrying with a backoff that doubles up to 5 s (an expected
        fault, no traceback)."""
        delay = self.poll_ms / 1000
        down = False
        while not stop.is_set():
            try:
                await self.run_once()
                if down:
                    log.warning("ladder driver: redis reachable again; driving")
                down, delay = False, self.poll_ms / 1000
            except (RedisError, OSError) as e:
                if not down:
                    log.warning("ladder driver: redis unavailable (%s: %s); retrying with backoff",
                                type(e).__name__, str(e)[:200])
                down, delay = True, min(max(delay * 2, 0.2), 5.0)
            except Exception:  # noqa: BLE001 - a bug: logged, retried
                log.exception("ladder driver: pass failed; retrying")
                delay = min(max(delay * 2, 0.2), 5.0)
            try:
                await asyncio.wait_for(stop.wait(), timeout=delay)
            except TimeoutError:
                pass

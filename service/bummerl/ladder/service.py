"""Registered bots and ladders: the service's calls (docs/DESIGN.md §5). Where the rest lives:

* :mod:`bummerl.ladder.data`: what the calls and the scheduler share (configs, bots, presence,
  results, running standings, events; the typed ``LadderConfig`` and ``GameSpec``);
* :mod:`bummerl.ladder.formats` (the ``Format`` protocol; round robin, gauntlet, SPRT; the plan of
  games), :mod:`bummerl.ladder.swiss`, :mod:`bummerl.ladder.knockout`, :mod:`bummerl.ladder.arena`,
  listed in :mod:`bummerl.ladder.registry`;
* :mod:`bummerl.ladder.driver`: the scheduler that claims, starts and records games in Redis and
  plans the next stage of a Swiss or knockout ladder and the pairings of an arena, exactly once
  across processes, and the per-process :class:`~bummerl.ladder.driver.LadderDriver`;
* :mod:`bummerl.ladder.bots`: registered bots and their versions; :mod:`bummerl.ladder.challenges`:
  challenges between bots;
* :mod:`bummerl.ladder.standings`: results, openskill standings, pair tables, the leaderboard;
  :mod:`bummerl.ladder.later_leg`: the later-leg advantage;
* :mod:`bummerl.ladder.stats`: Elo, LOS, pentanomial, SPRT; :mod:`bummerl.ladder.botstats`:
  per-bot statistics; :mod:`bummerl.ladder.feeds`: the shared stream readers.

Bots: ``register_bot`` (admin) returns a bot id and a secret bot token (stored as SHA-256 only).
A bot connects once to its assignment stream (:meth:`LadderService.assignments`); every ladder
match it is to play, and every challenge it is to answer, arrives there, and the bot token itself
authorises its seat in that match (the match stores the token's hash for the seat), so no seat
token is ever stored in plain. While a stream is open the bot is *present* (``bm:presence``,
renewed every 5 s).

Ladders: ``create_ladder`` (admin) validates the spec with its format and writes its first stage
(every game, for a format planned at once) as JSON specs in a Redis list; the scheduler of any
process plays them, and plans later stages or arena pairings as the format says; a ladder
survives a restart of every process and continues where it stopped; no game is played twice or
lost. A ladder game's hidden cards are revealed only when its whole duplicate set is over
(:meth:`LadderService.set_over`).

Redis keys (``bm:`` aux keys): ``bot:<id>`` (JSON), ``botname:<name>`` (id), ``bots`` (set),
``botq:<id>`` (stream of assignments), ``assigned:<match>:<seat>`` (once-only mark),
``botstats:<id>`` (hash of totals), ``presence`` (zset member -> expiry), ``presence:since`` and
``presence:client`` (hashes), ``ladder:<id>`` (JSON config), ``ladder:<id>:status``, ``ladders``
(zset by creation time), ``ladders:running`` (set), ``ladder:<id>:pending`` (list of game specs),
``ladder:<id>:running`` (hash game -> spec), ``ladder:<id>:results`` (list),
``ladder:<id>:setleft`` (hash set -> games not yet recorded), ``ladder:<id>:go`` (a waiting ladder
started), ``ladder:<id>:events`` (stream of progress events), ``ladder:<id>:plan`` (a staged or
continuous ladder's secret plan seed, id key and counters), ``ladder:<id>:stages`` (its stages),
``challenge:<id>`` (see :mod:`bummerl.ladder.challenges`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import random
import secrets
from collections.abc import AsyncIterator, Iterator, Sequence
from typing import Any

from bummerl.core.errors import (
    FailedPreconditionError,
    InvalidArgumentError,
    MatchOverError,
    NotFoundError,
    ResourceExhaustedError,
)
from bummerl.core.house import PREFIX as HOUSE_PREFIX
from bummerl.core.house import HouseBots
from bummerl.core.matches import MatchService
from bummerl.store.connection import raise_if_cancelled
from bummerl.store.keys import aux_key, botq_key, ladder_key
from bummerl.store.redis_store import blocking_twin, close_client

from .arena import MAX_MINUTES
from .bots import BotRegistry
from .challenges import PER_HOUR, Challenges
from .data import CONNECT_TIMEOUT_MS, LadderConfig, LadderData
from .driver import Scheduler
from .feeds import Feeds
from .formats import MAX_GAMES, MatchIds, StageContext, encode_plan, fixed_suits, plan_meetings, stage_record
from .ids import MAX_LADDER_NAME, _is_id
from .registry import find_format
from .spec import LadderSpec, table_of
from .stats import Sprt

log = logging.getLogger(__name__)

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


SEEDINGS = ("listed", "rating")
"""How a knockout seeds its bots: in the order listed, or by their pooled rating."""

GAMES_LISTED = 10_000
"""Most planned games :meth:`LadderService.games` lists."""


class LadderService:
    """Bots and ladders over the match service's store (one Redis); ``now_ms`` = its clock.
    ``public_stream_keys``, ``streams_per_peer``, ``streams_per_bot``: the stream budgets
    (:data:`PUBLIC_STREAM_KEYS`, :data:`STREAMS_PER_PEER`, :data:`STREAMS_PER_BOT`; 0 = no cap).
    Call :meth:`aclose` when done (it stops the stream readers)."""

    def __init__(self, matches: MatchService, *, public_stream_keys: int = PUBLIC_STREAM_KEYS,
                 streams_per_peer: int = STREAMS_PER_PEER, streams_per_bot: int = STREAMS_PER_BOT,
                 challenges_per_hour: int = PER_HOUR) -> None:
        self.matches = matches
        self.store = matches.store
        self.redis = matches.store.client
        self._public_client = blocking_twin(self.redis, public_stream_keys or None)  # no read timeout
        self.public_feeds = Feeds(self.redis, self._public_client, max_keys=public_stream_keys, name="public ladder")
        self.bot_feeds = Feeds(self.redis, self.store.blocking_client, name="bot assignment")
        self.streams_per_peer = streams_per_peer
        self.streams_per_bot = streams_per_bot
        self._open: dict[tuple[str, str], int] = {}
        self.data = LadderData(matches)
        """The ladders' data (configs, bots, presence, results, standings, events)."""
        self.bots = BotRegistry(self.data)
        """Registered bots: register, list, revoke, rotate, delete, versions."""
        self.scheduler = Scheduler(self.data)
        """Claims, starts and records the games of running ladders; :meth:`drive` asks it."""
        self.house: HouseBots | None = None
        """Plays the house bots of challenges (:meth:`set_house`); None = no house bot in ladders."""
        self.challenges = Challenges(self.data, self._create,
                                     lambda: self.house.settings.bots if self.house is not None else (),
                                     challenges_per_hour)
        """Challenges between bots (:mod:`bummerl.ladder.challenges`)."""
        matches.reveal_check = self.set_over  # a ladder game's hidden cards wait for its duplicate set

    def set_house(self, house: HouseBots) -> None:
        """Let ladders (an accepted challenge of a house bot) seat the server's house bots, played
        by ``house`` (:class:`bummerl.core.house.HouseBots`)."""
        self.house = house
        self.scheduler.house = house

    # challenges (bummerl.ladder.challenges.Challenges)
    async def create_challenge(self, token: str | None, req: dict[str, Any]) -> dict[str, Any]:
        """:meth:`Challenges.create`."""
        return await self.challenges.create(token, req)

    async def answer_challenge(self, token: str | None, challenge_id: str, accept: bool, reason: str = "") -> dict[str, Any]:
        """:meth:`Challenges.answer`."""
        return await self.challenges.answer(token, challenge_id, accept, reason)

    async def challenge(self, challenge_id: str) -> dict[str, Any]:
        """:meth:`Challenges.get`."""
        return await self.challenges.get(challenge_id)

    async def list_challenges(self, bot_id: str = "", state: str = "") -> list[dict[str, Any]]:
        """:meth:`Challenges.list`."""
        return await self.challenges.list(bot_id, state)

    async def aclose(self) -> None:
        """Stop the stream readers and close the public streams' pool."""
        await self.public_feeds.aclose()
        await self.bot_feeds.aclose()
        await close_client(self._public_client)

    # the ladders' data (bummerl.ladder.data.LadderData), as the API calls it
    async def config(self, ladder_id: str) -> LadderConfig:
        """:meth:`LadderData.config`: InvalidArgumentError for a malformed id, NotFoundError."""
        return await self.data.config(ladder_id)

    async def bot(self, bot_id: str) -> dict[str, Any]:
        """:meth:`LadderData.bot`: the stored bot (with its token hash); NotFoundError if unknown."""
        return await self.data.bot(bot_id)

    async def presence(self) -> dict[str, tuple[int, str]]:
        """:meth:`LadderData.presence`."""
        return await self.data.presence()

    async def connected_bots(self) -> dict[str, int]:
        """:meth:`LadderData.connected_bots`."""
        return await self.data.connected_bots()

    async def waiting_for_bots(self, cfg: LadderConfig, connected: dict[str, int] | None = None) -> bool:
        """:meth:`LadderData.waiting_for_bots`."""
        return await self.data.waiting_for_bots(cfg, connected)

    async def results(self, ladder_id: str) -> list[dict[str, Any]]:
        """:meth:`LadderData.results`."""
        return await self.data.results(ladder_id)

    async def leaderboard(self, ladder_id: str, pooled: bool = False) -> dict[str, Any]:
        """:meth:`LadderData.leaderboard`."""
        return await self.data.leaderboard(ladder_id, pooled)

    async def event(self, ladder_id: str, ev: dict[str, Any]) -> None:
        """:meth:`LadderData.event`."""
        await self.data.event(ladder_id, ev)

    async def running_ladders(self) -> list[str]:
        """:meth:`LadderData.running_ladders`."""
        return await self.data.running_ladders()

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
        if not _is_id(lid):
            return False
        pair = meta.get("ladder_set")
        if pair is None:
            return (await self.redis.get(ladder_key(lid, "status"))) not in (None, b"running")
        left = await self.redis.hget(ladder_key(lid, "setleft"), str(pair))
        if left is not None and int(left) <= 0:
            return True
        if await self.redis.llen(ladder_key(lid, "pending")):
            return False  # a set's games are planned together: the rest is still to come
        running = await self.redis.hvals(ladder_key(lid, "running"))
        return not any(json.loads(g).get("pair") == pair for g in running)

    # ------------------------------------------------------------------ bots (bummerl.ladder.bots.BotRegistry)
    async def register_bot(self, name: str, description: str = "", admin_token: str | None = None) -> dict[str, Any]:
        """:meth:`BotRegistry.register`."""
        return await self.bots.register(name, description, admin_token)

    async def authenticate_bot(self, bot_id: str, token: str | None) -> dict[str, Any]:
        """:meth:`LadderData.authenticate_bot`: the bot if ``token`` is its bot token;
        PermissionDeniedError for another bot's valid token; UnauthenticatedError otherwise."""
        return await self.data.authenticate_bot(bot_id, token)

    async def list_bots(self) -> list[dict[str, Any]]:
        """:meth:`BotRegistry.list`."""
        return await self.bots.list()

    async def revoke_bot(self, bot_id: str, admin_token: str | None = None) -> dict[str, Any]:
        """:meth:`BotRegistry.revoke`."""
        return await self.bots.revoke(bot_id, admin_token)

    async def rotate_bot_token(self, bot_id: str, admin_token: str | None = None) -> dict[str, Any]:
        """:meth:`BotRegistry.rotate_token`."""
        return await self.bots.rotate_token(bot_id, admin_token)

    async def delete_bot(self, bot_id: str, admin_token: str | None = None) -> dict[str, Any]:
        """:meth:`BotRegistry.delete`."""
        return await self.bots.delete(bot_id, admin_token)

    async def publish_version(self, bot_id: str, version: str, note: str = "", token: str | None = None) -> dict[str, Any]:
        """:meth:`BotRegistry.publish_version`."""
        return await self.bots.publish_version(bot_id, version, note, token)

    async def connected_seats(self, names: Sequence[str]) -> dict[int, dict[str, Any]]:
        """:meth:`BotRegistry.connected_seats`."""
        return await self.bots.connected_seats(names)

    async def assign_seats(self, match_id: str, variant: str, seats: dict[int, dict[str, Any]]) -> None:
        """Hand each of ``seats`` (seat -> bot) of a created match to its bot's assignment stream
        (once per seat; no ladder)."""
        for seat, bot in seats.items():
            await self.scheduler.assign(bot["bot_id"], {"match_id": match_id, "seat": seat, "variant": variant,
                                                        "ladder_id": ""})

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
        raise_if_cancelled()
        with self._slot("bot", bot_id, self.streams_per_bot, "this bot"):
            member = f"{bot_id}|{secrets.token_hex(8)}"
            heartbeat: asyncio.Task[None] | None = None
            try:  # a client that cancels at any await below is normal: the finally releases all
                await self._present(member, "".join(ch for ch in client if ch.isprintable())[:200])
                raise_if_cancelled()
                heartbeat = asyncio.create_task(self._heartbeat(member))
                async for _eid, fields in self.bot_feeds.follow(botq_key(bot_id)):
                    raise_if_cancelled()
                    a = json.loads(fields[b"a"])
                    if "challenge" in a:  # a challenge to answer, while it is open
                        if await self.challenges.still_open(a["challenge"]):
                            yield a
                        continue
                    running = await self.store.is_running(a["match_id"])  # not over, and not expired either
                    raise_if_cancelled()
                    if running:
                        yield a
            finally:
                if heartbeat is not None:
                    heartbeat.cancel()
                await self._absent(member)

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

    async def _absent(self, member: str) -> None:
        """Drop one assignment stream's presence entry (one round trip). Runs as its stream ends,
        also when the client cancelled it: shielded from that cancellation, and a Redis error
        leaves only an entry that expires after :data:`PRESENCE_TTL_MS`."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.zrem(aux_key("presence"), member)
        pipe.hdel(aux_key("presence", "since"), member)
        pipe.hdel(aux_key("presence", "client"), member)
        try:
            await asyncio.shield(pipe.execute())
        except Exception as e:  # noqa: BLE001 - redis down: the entry expires on its own
            log.debug("presence of %s not dropped: %s", member.split("|")[0], type(e).__name__)

    async def _heartbeat(self, member: str) -> None:
        while True:
            await asyncio.sleep(PRESENCE_TTL_MS / 3000)
            try:
                await self._present(member)
            except Exception as e:  # noqa: BLE001 - redis down: the next beat retries
                log.warning("presence of %s: %s", member.split("|")[0], type(e).__name__)

    # ------------------------------------------------------------------ ladders
    async def create_ladder(self, spec: LadderSpec, admin_token: str | None = None) -> dict[str, Any]:
        """Validate and plan a ladder (admin); returns :meth:`ladder` (with ``num_players`` and
        ``team_of_seat`` of the variant). Any variant: a 3- or 4-seat one seats that many
        different bots a game (see the module docstring). Raises InvalidArgumentError naming the
        bad field (fewer different bots than seats, an SPRT of a 3- or 4-seat variant, more
        than :data:`MAX_GAMES` games of one, a name over :data:`MAX_LADDER_NAME` characters or with
        control characters), NotFoundError for an unknown or deleted bot, FailedPreconditionError
        for a revoked one, PermissionDeniedError."""
        self.matches.check_admin(admin_token)
        return await self._create(spec)

    async def _create(self, spec: LadderSpec, extra: dict[str, Any] | None = None) -> dict[str, Any]:
        """:meth:`create_ladder` without the admin check (an accepted challenge); ``extra``: more
        config keys (``kind``, ``rated``, ``challenge_id``)."""
        variant, rules, tc = table_of(spec)
        seats = variant.num_players
        fmt = find_format(spec.format)
        bots = list(spec.bot_ids)
        if seats == 2 and (len(set(bots)) != len(bots) or len(bots) < 2):
            raise InvalidArgumentError("a ladder needs at least two different bots")
        if seats != 2 and (len(set(bots)) != len(bots) or len(bots) < seats):
            raise InvalidArgumentError(f"{variant.id} seats {seats} bots a game: a ladder of it needs at least "
                                       f"{seats} different bots, got {len(set(bots))}")
        fmt.validate(bots, seats, spec.rounds)
        if not 1 <= spec.pairs_per_meeting <= 1000:
            raise InvalidArgumentError(f"pairs_per_meeting must be 1..1000, not {spec.pairs_per_meeting}")
        if spec.seeding not in SEEDINGS:
            raise InvalidArgumentError(f"seeding must be one of {', '.join(SEEDINGS)}, got {spec.seeding!r}")
        if not 0 <= spec.connect_timeout_ms <= 7 * 24 * 3600 * 1000:
            raise InvalidArgumentError("connect_timeout_ms must be in 0 .. 7 days (ms)")
        for name, value, low, high in (("rounds", spec.rounds, 1, 100_000), ("concurrency", spec.concurrency, 1, 1000),
                                       ("deals_per_game", spec.deals_per_game, 0, 1000)):
            if not low <= value <= high:
                raise InvalidArgumentError(f"{name} must be {low}..{high}, not {value}")
        if (total := fmt.max_games(len(bots), seats, spec.rounds, spec.pairs_per_meeting,
                                   spec.duplicate_deals)) > MAX_GAMES:
            raise InvalidArgumentError(f"this ladder would plan {total} games (at most {MAX_GAMES}): fewer bots or "
                                       f"rounds, or no duplicate deals ({math.factorial(seats)} games a set)")
        if spec.sprt and not fmt.stops_early:
            raise InvalidArgumentError(f"sprt: settings for format sprt only, this ladder's format is {fmt.name}")
        try:
            sprt = Sprt(**(spec.sprt or {})) if fmt.stops_early else None
        except (TypeError, ValueError) as e:
            raise InvalidArgumentError(f"sprt: {e}") from None
        if len(spec.name) > MAX_LADDER_NAME or not spec.name.isprintable():
            raise InvalidArgumentError(f"name must be at most {MAX_LADDER_NAME} printable characters (no control "
                                       f"characters), got {len(spec.name)} characters")
        names = {}
        house_specs: dict[str, str] = {}
        for b in bots:  # a deleted or revoked bot could never connect: it would lose every game it is planned in
            if b.startswith(HOUSE_PREFIX):  # a house bot (a challenge of one): the server plays it
                if self.house is None:
                    raise InvalidArgumentError(f"{b}: this server plays no house bots in ladders")
                house_specs[b] = self.house.plan([b])[0]
                names[b] = b
                continue
            bot = await self.bot(b)
            if bot.get("deleted"):
                raise NotFoundError(f"bot {bot['name']!r} ({b}) was deleted")
            if bot.get("revoked"):
                raise FailedPreconditionError(f"the token of bot {bot['name']!r} ({b}) was revoked: rotate its token "
                                              f"(RotateBotToken) before it plays in a new ladder")
            names[b] = bot["name"]
        ladder_id = "l" + secrets.token_hex(8)
        plan_seed = spec.seed if spec.seed is not None else secrets.randbits(63)
        rng = random.Random(plan_seed)
        id_key = secrets.token_bytes(32)
        fixed = fixed_suits(rules)
        if spec.seeding == "rating":
            bots = await self.data.by_rating(bots, {"variant": variant.id, "options": dict(spec.options or {}),
                                                    "time_control": tc.to_dict() if tc else None,
                                                    "deals_per_game": spec.deals_per_game})
        ctx = StageContext(bots, seats, spec.rounds, spec.pairs_per_meeting, spec.duplicate_deals, 0, (), (), rng)
        first = await asyncio.to_thread(fmt.stage, ctx)
        if not 0 <= spec.arena_minutes <= MAX_MINUTES:
            raise InvalidArgumentError(f"arena_minutes must be 0..{MAX_MINUTES} (0 = until stopped), "
                                       f"not {spec.arena_minutes}")
        if spec.arena_minutes and not fmt.continuous:
            raise InvalidArgumentError(f"arena_minutes is for format arena, not {fmt.name}")
        if (first is None or not first.meetings) and not fmt.continuous:
            raise InvalidArgumentError(f"format {fmt.name} has no game to play with these bots")
        # planning up to MAX_GAMES games takes a while: not on the event loop
        games = await asyncio.to_thread(plan_meetings, first.meetings if first else [], seats, spec.duplicate_deals, rng, fixed,
                                        MatchIds(ladder_id, id_key), 0, 0, 0 if fmt.staged else None)
        cfg: dict[str, Any] = {
            "ladder_id": ladder_id, "name": spec.name or ladder_id, "variant": variant.id,
            "num_players": seats, "team_of_seat": list(variant.team_of_seat),
            "options": dict(spec.options or {}), "format": spec.format, "bot_ids": bots, "bot_names": names,
            "rounds": spec.rounds, "duplicate_deals": spec.duplicate_deals, "deals_per_game": spec.deals_per_game,
            "time_control": tc.to_dict() if tc else None, "timeout_policy": spec.timeout_policy,
            "sprt": {"elo0": sprt.elo0, "elo1": sprt.elo1, "alpha": sprt.alpha, "beta": sprt.beta} if sprt else None,
            "concurrency": spec.concurrency, "created_at_ms": self.matches.now_ms(), "matches_total": len(games),
            "start_when_connected": spec.start_when_connected,
            "connect_timeout_ms": (spec.connect_timeout_ms or CONNECT_TIMEOUT_MS) if spec.start_when_connected else 0,
            "pairs_per_meeting": spec.pairs_per_meeting, "seeding": spec.seeding, "arena_minutes": spec.arena_minutes,
            **({"house_specs": house_specs} if house_specs else {}), **(extra or {}),
        }
        specs, legs = await asyncio.to_thread(encode_plan, games)
        for i in range(0, len(specs), 10_000):  # the plan first: nothing runs before the status is set
            await self.redis.rpush(ladder_key(ladder_id, "pending"), *specs[i:i + 10_000])
        sets = list(legs.items())
        for i in range(0, len(sets), 10_000):
            await self.redis.hset(ladder_key(ladder_id, "setleft"), mapping=dict(sets[i:i + 10_000]))
        pipe = self.redis.pipeline(transaction=True)  # the ladder's own keys: one hash tag, one MULTI
        if fmt.staged or fmt.continuous:  # the secret of later decks and ids, and where the plan stands
            pipe.hset(ladder_key(ladder_id, "plan"), mapping={
                "seed": str(plan_seed), "id_key": id_key.hex(), "fixed": json.dumps(list(fixed)), "stage": "1",
                "games": str(len(games)), "sets": str(len(first.meetings) if first else 0)})
        if fmt.staged and first is not None:
            pipe.rpush(ladder_key(ladder_id, "stages"), json.dumps(stage_record(0, first)))
        pipe.set(ladder_key(ladder_id), json.dumps(cfg))
        pipe.set(ladder_key(ladder_id, "status"), "running")
        await pipe.execute()
        # then the indexes (other slots on Redis Cluster): a ladder is listed and driven once in them
        await self.redis.zadd(aux_key("ladders"), {ladder_id: int(cfg["created_at_ms"])})
        await self.redis.sadd(aux_key("ladders", "running"), ladder_id)
        await self.event(ladder_id, {"type": "created", "matches_total": len(games)})
        if fmt.staged and first is not None:
            await self.event(ladder_id, {"type": "stage", **stage_record(0, first)})
        return await self.ladder(ladder_id)

    async def ladder(self, ladder_id: str) -> dict[str, Any]:
        """The ladder's config with ``status`` (running, finished, stopped), ``matches_played``,
        ``matches_running`` and ``matches_total`` (an SPRT that stopped early has played fewer),
        ``num_players`` and ``team_of_seat`` (team per seat)."""
        stored = await self.config(ladder_id)
        cfg: dict[str, Any] = dict(stored)
        cfg.setdefault("num_players", 2)  # a ladder made before 3-4 seat ladders existed
        cfg.setdefault("team_of_seat", [0, 1])
        pipe = self.redis.pipeline(transaction=False)
        pipe.get(ladder_key(ladder_id, "status"))
        pipe.llen(ladder_key(ladder_id, "results"))
        pipe.hlen(ladder_key(ladder_id, "running"))
        status, played, running = await pipe.execute()
        cfg.update(status=(status or b"running").decode(), matches_played=int(played), matches_running=int(running))
        lfmt = find_format(stored["format"])
        if lfmt.staged or lfmt.continuous:  # planned so far
            cfg["matches_total"] = int(await self.redis.hget(ladder_key(ladder_id, "plan"), "games") or 0)
        connected = await self.connected_bots()
        cfg["absent_bots"] = [b for b in cfg["bot_ids"] if b not in connected]
        cfg["waiting_for_bots"] = cfg["status"] == "running" and await self.waiting_for_bots(stored, connected)
        return cfg

    async def list_ladders(self) -> list[dict[str, Any]]:
        ids = [_text(x) for x in await self.redis.zrange(aux_key("ladders"), 0, -1)]
        return [await self.ladder(i) for i in ids]

    async def stream_ladder(self, ladder_id: str, peer: str = "") -> AsyncIterator[dict[str, Any]]:
        """Progress events of a ladder as they happen, from its creation: ``created``, ``started``
        (a game's match was created), ``result`` (a game ended, with its result), ``abandoned`` (a
        running game ended by StopLadder), ``finished`` (with the final leaderboard). Ends after
        ``finished``. Needs no token: every watcher of one ladder shares one reader in this
        process, at most :data:`PUBLIC_STREAM_KEYS` ladders are followed at once and
        ``streams_per_peer`` streams per ``peer`` address (ResourceExhaustedError past either)."""
        await self.config(ladder_id)
        with self._slot("peer", peer, self.streams_per_peer, f"peer {peer or '(unknown)'}"):
            async for _eid, fields in self.public_feeds.follow(ladder_key(ladder_id, "events")):
                ev = json.loads(fields[b"e"])
                yield ev
                if ev["type"] == "finished":
                    return

    async def stop_ladder(self, ladder_id: str, admin_token: str | None = None) -> dict[str, Any]:
        """Stop the ladder (admin): no new game starts, and every game still running ends at once as
        ``abandoned`` (no winner; record kind ABANDONED) and is dropped from the ladder, unrated, so
        that no bot plays on until an idle limit. Games already over are recorded as usual."""
        self.matches.check_admin(admin_token)
        await self.config(ladder_id)
        await self.redis.delete(ladder_key(ladder_id, "pending"))
        await self.redis.set(ladder_key(ladder_id, "status"), "stopped")
        running_key = ladder_key(ladder_id, "running")
        for num, raw in (await self.redis.hgetall(running_key)).items():
            game = json.loads(raw)
            if await self.store.is_over(game["match_id"]):
                continue  # a result: the driver records it
            with contextlib.suppress(NotFoundError, MatchOverError):
                await self.matches.abandon(game["match_id"])
            if await self.redis.hdel(running_key, num):
                await self.event(ladder_id, {"type": "abandoned", "game": game["game"], "match_id": game["match_id"]})
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
        await self.config(ladder_id)
        key = ladder_key(ladder_id, "status")
        cur = _text(await self.redis.get(key) or b"running")
        if cur != old:
            raise FailedPreconditionError(f"the ladder is {cur}, not {old}")
        await self.redis.set(key, new)
        await self.event(ladder_id, {"type": new if new == "paused" else "resumed"})
        return await self.ladder(ladder_id)

    async def pairings(self, ladder_id: str) -> dict[str, Any]:
        """What a format planned stage by stage shows of its progress (``GetPairings``):
        ``{"ladder_id", "format", "standings", "rounds"}``. Swiss: ``standings`` (per bot, best first:
        ``bot_id``, ``name``, ``rank``, ``points``, ``buchholz``, ``sonneborn_berger``,
        ``direct_encounter``, ``byes``, ``played``; :func:`bummerl.ladder.swiss.standings`) and per
        round its meetings (``key``, ``bots``, ``names``, ``totals``, ``points``, ``games``,
        ``expected``, ``complete``) and byes. Knockout: ``rounds`` of ties (``key``, ``round``,
        ``seeds``, ``bots``, ``names``, ``score``, ``game_points``, ``pairs``, ``games``, ``winner``,
        ``decided_by``: :class:`bummerl.ladder.knockout.Tie`). Formats planned at once: both
        empty. NotFoundError for an unknown ladder."""
        cfg = await self.config(ladder_id)
        fmt = find_format(cfg["format"])
        out: dict[str, Any] = {"ladder_id": ladder_id, "format": fmt.name, "standings": [], "rounds": [], "arena": []}
        if not (fmt.staged or fmt.continuous):
            return out
        stages = [json.loads(x) for x in await self.redis.lrange(ladder_key(ladder_id, "stages"), 0, -1)]
        results = await self.results(ladder_id)
        ctx = StageContext(cfg["bot_ids"], int(cfg.get("num_players") or 2), cfg["rounds"],
                           int(cfg.get("pairs_per_meeting") or 1), cfg["duplicate_deals"], len(stages), stages, results)
        view = await asyncio.to_thread(fmt.view, ctx)
        names = cfg.get("bot_names", {})
        connected = await self.connected_bots() if fmt.continuous else {}
        for row in view["standings"]:
            row["name"] = names.get(row["bot_id"], row["bot_id"])
            row.pop("opponents", None)
        for row in view.get("arena", ()):
            row.update(name=names.get(row["bot_id"], row["bot_id"]), connected=row["bot_id"] in connected)
        for rnd in view["rounds"]:
            rnd["bye_names"] = [names.get(b, b) for b in rnd.get("byes") or ()]
            for m in rnd["meetings"]:
                m["names"] = [names.get(b, b) if b else "" for b in m["bots"]]
        return {**out, **view}

    async def games(self, ladder_id: str, state: str = "") -> list[dict[str, Any]]:
        """The ladder's games: ``{"game", "pair", "leg", "bots", "state", "match_id"}``, planned
        ones in play order (at most :data:`GAMES_LISTED`, no match id), then the running ones, then
        the finished ones in the order they ended; ``state`` picks one of ``planned``, ``running``,
        ``finished`` ("" = all). Never a seed or suit relabelling."""
        if state not in ("", "planned", "running", "finished"):
            raise InvalidArgumentError("state must be planned, running, finished or empty")
        await self.config(ladder_id)
        out: list[dict[str, Any]] = []

        def row(g: dict[str, Any], st: str) -> dict[str, Any]:
            return {"game": g["game"], "pair": g["pair"], "leg": g["leg"], "bots": g["bots"], "state": st,
                    "match_id": "" if st == "planned" else g["match_id"]}

        if state in ("", "planned"):
            raw = await self.redis.lrange(ladder_key(ladder_id, "pending"), 0, GAMES_LISTED - 1)
            out += [row(json.loads(g), "planned") for g in raw]
        if state in ("", "running"):
            running = [json.loads(g) for g in await self.redis.hvals(ladder_key(ladder_id, "running"))]
            out += [row(g, "running") for g in sorted(running, key=lambda g: g["game"])]
        if state in ("", "finished"):
            out += [row(g, "finished") for g in await self.results(ladder_id)]
        return out

    # ------------------------------------------------------------------ driving
    async def drive(self, ladder_id: str) -> int:
        """One pass of :class:`~bummerl.ladder.driver.Scheduler` over a running ladder."""
        return await self.scheduler.drive(ladder_id)


def _text(x: object) -> str:
    """A Redis reply item (bytes: the client does not decode) as text."""
    return x.decode(errors="replace") if isinstance(x, bytes) else str(x)

"""The scheduler of ladders in Redis (docs/DESIGN.md §5): any number of server processes claim,
start and record the games of every running ladder, each exactly once.

:class:`Scheduler` does one pass over a ladder (:meth:`Scheduler.drive`): it records finished
games (``finish.lua``: the game leaves the running hash and its result is appended in one step,
and its duplicate set is counted down), starts claimed games (a process that died after its
claim is taken over after :data:`CLAIM_LEASE_MS`; each seat is assigned once, ``assign.lua``, the
start is marked once and never for a recorded game, ``started.lua``) and claims new ones up to the
concurrency (``claim.lua``: never a leg of a duplicate set while another leg of it runs), unless the ladder is paused or waits for its bots. Formats are asked
whether the ladder may stop early (:meth:`bummerl.ladder.formats.Format.decided`).
:class:`LadderDriver` runs a pass over every running ladder every ``poll_ms`` in each process.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
from collections.abc import Callable
from importlib import resources
from typing import Any, Protocol

from redis.exceptions import RedisError

from bummerl import metrics
from bummerl.core.auth import hash_token
from bummerl.core.house import PREFIX as HOUSE_PREFIX
from bummerl.core.house import HouseBots
from bummerl.rules import find_variant
from bummerl.store.errors import MatchExistsError
from bummerl.store.keys import aux_key, botq_key, ladder_key

from . import botstats
from .arena import last_opponents, minutes_left
from .data import GameSpec, LadderConfig, LadderData
from .formats import (
    DemandContext,
    MatchIds,
    StageContext,
    encode_plan,
    legs_per_set,
    plan_meetings,
    stage_record,
)
from .registry import find_format
from .standings import _outcome, pair_table, seated_result

log = logging.getLogger(__name__)

CLAIM_LEASE_MS = 10_000
"""A claimed game that its process has not started within this many ms (the process died) is
started by another process; starting twice is harmless (the match id is fixed, each seat is
assigned once, the ``started`` mark and event happen once)."""

CLAIM_WINDOW = 256
"""How many pending games a claim looks at for one whose duplicate set has no leg running
(``claim.lua``); when all of them wait for a running leg, the ladder runs fewer games at once."""

ASSIGNED_TTL_MS = 40 * 24 * 3600 * 1000
"""How long the once-only mark of a seat's assignment is kept (longer than any retention)."""


class Drivable(Protocol):
    """What :class:`LadderDriver` drives: :class:`Scheduler` itself, or the ladder service (which
    hands both calls to its scheduler)."""

    async def running_ladders(self) -> list[str]: ...

    async def drive(self, ladder_id: str) -> int: ...


def _lua(name: str) -> str:
    return resources.files("bummerl.ladder").joinpath(name).read_text(encoding="utf-8")


class Scheduler:
    """Claims, starts and records the games of the running ladders of ``ladders`` (one per
    service). It reads and writes ladders through :class:`~bummerl.ladder.data.LadderData` only
    and never calls the service."""

    def __init__(self, ladders: LadderData) -> None:
        self.ladders = ladders
        self.house: HouseBots | None = None
        """Plays the house seats of a ladder's games (a challenge of a house bot); set by the service."""
        redis = ladders.redis
        self.claim_script = redis.register_script(_lua("claim.lua"))
        self.finish_script = redis.register_script(_lua("finish.lua"))
        self.started_script = redis.register_script(_lua("started.lua"))
        self.assign_script = redis.register_script(_lua("assign.lua"))
        self.stage_script = redis.register_script(_lua("stage.lua"))
        self.arena_script = redis.register_script(_lua("arena.lua"))

    async def running_ladders(self) -> list[str]:
        """:meth:`LadderData.running_ladders`."""
        return await self.ladders.running_ladders()

    async def drive(self, ladder_id: str) -> int:
        """One pass over a running ladder: record finished games, (re)create and assign claimed
        games, claim new ones up to the concurrency. Returns the number of results recorded.
        Safe to run in any number of processes at once."""
        cfg = await self.ladders.config(ladder_id)
        running_key = ladder_key(ladder_id, "running")
        recorded = 0
        now = self.ladders.matches.now_ms()
        for raw in (await self.ladders.redis.hgetall(running_key)).values():
            game = json.loads(raw)
            if not game.get("assigned"):
                if now - int(game.get("claimed_ms") or 0) >= CLAIM_LEASE_MS:  # its claimer died
                    await self.start(cfg, game)
                continue
            if await self.ladders.store.is_over(game["match_id"]):
                recorded += await self.record(cfg, game)
        pending_key = ladder_key(ladder_id, "pending")
        status = await self.ladders.redis.get(ladder_key(ladder_id, "status"))
        paused = status == b"paused"
        fmt = find_format(cfg["format"])
        if fmt.continuous and status in (None, b"running"):
            await self.arena_pass(cfg)
        while not paused and not await self.ladders.waiting_for_bots(cfg):
            raw = await self.claim_script(keys=[pending_key, running_key],
                                          args=[cfg["concurrency"], self.ladders.matches.now_ms(), CLAIM_WINDOW])
            if not raw:
                break
            await self.start(cfg, json.loads(raw))
        if (recorded or not await self.ladders.redis.hlen(running_key)) and not await self.next_stage(cfg):
            await self.maybe_finish(cfg)
        return recorded

    async def next_stage(self, cfg: LadderConfig) -> bool:
        """For a format planned stage by stage (Swiss, knockout) whose stage is over: plan the next
        one from the results (:meth:`~bummerl.ladder.formats.Format.stage`) and write it once
        (``stage.lua``: only if no other process wrote it first, nothing is pending or running and
        no result came in meanwhile), with a ``stage`` event. Returns True while the ladder is not
        to finish yet (a stage was planned, another process planned it, games are left, or the
        ladder is paused); False when the format has nothing left (or plans all at once)."""
        fmt = find_format(cfg["format"])
        if fmt.continuous:  # an arena lives until its time is up or it is stopped
            status = await self.ladders.redis.get(ladder_key(cfg["ladder_id"], "status"))
            left = minutes_left(cfg["created_at_ms"], int(cfg.get("arena_minutes") or 0), self.ladders.matches.now_ms())
            return status != b"stopped" and left > 0
        if not fmt.staged:
            return False
        lid = cfg["ladder_id"]
        redis = self.ladders.redis
        plan = {k.decode(): v.decode() for k, v in (await redis.hgetall(ladder_key(lid, "plan"))).items()}
        pipe = redis.pipeline(transaction=False)
        pipe.get(ladder_key(lid, "status"))
        pipe.llen(ladder_key(lid, "pending"))
        pipe.hlen(ladder_key(lid, "running"))
        pipe.lrange(ladder_key(lid, "stages"), 0, -1)
        status, pending, running, stages = await pipe.execute()
        if status == b"stopped":
            return False
        if pending or running or status == b"paused":
            return True
        results = await self.ladders.results(lid)  # after the stage number: a stale read fails the script
        number = int(plan["stage"])
        rng = random.Random(f"{plan['seed']}:{number}")
        seats = int(cfg.get("num_players") or 2)
        ctx = StageContext(cfg["bot_ids"], seats, cfg["rounds"], int(cfg.get("pairs_per_meeting") or 1),
                           cfg["duplicate_deals"], number, [json.loads(x) for x in stages], results, rng)
        stage = await asyncio.to_thread(fmt.stage, ctx)
        if stage is None or not stage.meetings:
            return False
        games = await asyncio.to_thread(
            plan_meetings, stage.meetings, seats, cfg["duplicate_deals"], rng, json.loads(plan["fixed"]),
            MatchIds(lid, bytes.fromhex(plan["id_key"])), int(plan["games"]), int(plan["sets"]), number)
        specs, legs = encode_plan(games)
        record = stage_record(number, stage)
        args: list[Any] = [number, len(results), int(plan["games"]) + len(games),
                           int(plan["sets"]) + len(stage.meetings), json.dumps(record), len(specs), *specs]
        for pair, count in legs.items():
            args += [pair, count]
        keys = [ladder_key(lid, k) for k in ("plan", "pending", "running", "results", "setleft", "stages")]
        if await self.stage_script(keys=keys, args=args):
            await self.ladders.event(lid, {"type": "stage", **record})
        return True

    async def arena_pass(self, cfg: LadderConfig) -> int:
        """Pair the idle bots of a running arena (connected, in no pending or running game of it)
        by :meth:`~bummerl.ladder.formats.Format.on_demand` over its standings, and write the games
        once (``arena.lua``: only if no other process paired since this one read the counter).
        Returns the games written (0 after the arena's time, when fewer than a table are idle, or
        when another process paired first)."""
        lid = cfg["ladder_id"]
        now = self.ladders.matches.now_ms()
        if minutes_left(cfg["created_at_ms"], int(cfg.get("arena_minutes") or 0), now) <= 0:
            return 0
        redis = self.ladders.redis
        plan = {k.decode(): v.decode() for k, v in (await redis.hgetall(ladder_key(lid, "plan"))).items()}
        pipe = redis.pipeline(transaction=False)
        pipe.lrange(ladder_key(lid, "pending"), 0, -1)
        pipe.hvals(ladder_key(lid, "running"))
        pending, running = await pipe.execute()
        busy = {b for raw in [*pending, *running] for b in json.loads(raw)["bots"]}
        seats = int(cfg.get("num_players") or 2)
        per = legs_per_set(seats, cfg["duplicate_deals"])
        room = (int(cfg["concurrency"]) - len(pending) - len(running)) // per  # pair only what can start now
        if room <= 0:
            return 0
        connected = await self.ladders.connected_bots()
        idle = [b for b in cfg["bot_ids"] if b in connected and b not in busy]
        if len(idle) < seats:
            return 0
        board = await self.ladders.board(cfg)
        async with board.lock:
            st = board.standings
            rated = [b for b in idle if st.tally.get(b, {}).get("games")]
            ordinal = {b: float(st.ratings[b].ordinal()) for b in rated}
            sigma = {b: float(st.ratings[b].sigma) for b in rated}
            last = last_opponents(board.results[-4 * len(cfg["bot_ids"]):])
        fmt = find_format(cfg["format"])
        meetings = fmt.on_demand(DemandContext(idle, seats, ordinal, sigma, last))[:room]
        if not meetings:
            return 0
        counter = int(plan["stage"])
        rng = random.Random(f"{plan['seed']}:{counter}")
        games = plan_meetings(meetings, seats, cfg["duplicate_deals"], rng, json.loads(plan["fixed"]),
                              MatchIds(lid, bytes.fromhex(plan["id_key"])), int(plan["games"]), int(plan["sets"]))
        specs, legs = encode_plan(games)
        args: list[Any] = [counter, int(plan["games"]) + len(games), int(plan["sets"]) + len(meetings), len(specs),
                           *specs]
        for pair, count in legs.items():
            args += [pair, count]
        keys = [ladder_key(lid, k) for k in ("plan", "pending", "setleft")]
        return len(games) if await self.arena_script(keys=keys, args=args) else 0

    async def start(self, cfg: LadderConfig, game: GameSpec) -> None:
        """Create a claimed game's match, assign its seats and mark it started. Idempotent, for the
        process that claimed it and for one that takes over after :data:`CLAIM_LEASE_MS`: the match
        id is fixed (created once), each seat is assigned once (assign.lua), and the ``started``
        mark and event happen once (started.lua), never for a game already recorded."""
        bots = game["bots"]
        house = {seat: (cfg.get("house_specs") or {}).get(b, b.removeprefix(HOUSE_PREFIX))
                 for seat, b in enumerate(bots) if b.startswith(HOUSE_PREFIX)}
        rows = [{} if seat in house else await self.ladders.bot(b) for seat, b in enumerate(bots)]
        hashes = [str(r.get("token_hash", "")) for r in rows]
        game["versions"] = [str(r.get("version", "")) for r in rows]  # as each bot said when the game started
        house_tokens: dict[int, str] = {}
        if house and self.house is not None:  # derived, not drawn: a process taking over knows them too
            for seat in house:
                house_tokens[seat] = await self.house.seat_token(game["match_id"], seat)
                hashes[seat] = hash_token(house_tokens[seat])
        try:
            await self.ladders.matches.create_match(
                cfg["variant"], cfg["options"], [cfg["bot_names"][b] for b in bots], game["seed"],
                time_control=cfg["time_control"], timeout_policy=cfg["timeout_policy"], trusted=True,
                max_deals=cfg["deals_per_game"], suit_perm=game.get("suit_perm") or (), seat_bot_hashes=hashes,
                match_id=game["match_id"], ladder_id=cfg["ladder_id"], ladder_set=int(game["pair"]),
                ladder_solo=not cfg["duplicate_deals"],
            )
        except MatchExistsError:
            pass  # another process created it before it could mark the game started (it may have died)
        if house and self.house is not None:  # the server plays them (leased once: another process plays on)
            await self.house.start(game["match_id"], house, house_tokens)
        for seat, b in enumerate(bots):
            if seat in house:
                continue
            await self.assign(b, {"match_id": game["match_id"], "seat": seat, "variant": cfg["variant"],
                                   "ladder_id": cfg["ladder_id"]})
        game["assigned"] = True
        if await self.started_script(keys=[ladder_key(cfg["ladder_id"], "running")],
                               args=[str(game["game"]), json.dumps(game)]):
            await self.ladders.event(cfg["ladder_id"], {"type": "started", "game": game["game"],
                                                 "match_id": game["match_id"], "bots": bots})

    async def record(self, cfg: LadderConfig, game: GameSpec) -> int:
        s = await self.ladders.matches.summary(game["match_id"])
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
        result["versions"] = list(game.get("versions") or ())
        if "stage" in game:  # a format planned stage by stage: which stage and meeting it belongs to
            result.update(stage=game["stage"], meeting=game.get("meeting", ""))
        seats = await self.ladders.matches.seat_stats(game["match_id"])
        result["stats"] = [botstats.game_stats(seats[i], *_outcome(result, i)) for i in range(len(game["bots"]))]
        lid = cfg["ladder_id"]
        done = await self.finish_script(
            keys=[ladder_key(lid, "running"), ladder_key(lid, "results"),
                  ladder_key(lid, "setleft")],
            args=[str(game["game"]), json.dumps(result), str(game["pair"])],
        )
        if int(done) != 1:
            return 0
        pipe = self.ladders.redis.pipeline(transaction=False)  # every ladder's totals of each bot (ListBots)
        for bot, st in zip(game["bots"], result["stats"], strict=True):
            for k, v in botstats.flatten(st).items():
                if v:
                    pipe.hincrby(aux_key("botstats", bot), k, v)
            metrics.bot_game(cfg.get("bot_names", {}).get(bot, bot), st)
        await pipe.execute()
        await self.ladders.event(lid, {"type": "result", "result": result})
        fmt = find_format(cfg["format"])
        if fmt.stops_early:
            board = await self.ladders.board(cfg)
            async with board.lock:
                pairs = await asyncio.to_thread(pair_table, cfg, list(board.results))
                played = len(board.results)
            if pairs:  # the LLR's path, for whoever follows the ladder (the web page plots it)
                await self.ladders.event(lid, {"type": "sprt", "games_played": played,
                                               "sprt_llr": pairs[0]["sprt_llr"], "sprt_result": pairs[0]["sprt_result"]})
            if fmt.decided(pairs):
                await self.ladders.redis.delete(ladder_key(lid, "pending"))
        return 1

    async def maybe_finish(self, cfg: LadderConfig) -> None:
        lid = cfg["ladder_id"]
        pipe = self.ladders.redis.pipeline(transaction=False)
        pipe.llen(ladder_key(lid, "pending"))
        pipe.hlen(ladder_key(lid, "running"))
        pending, running = await pipe.execute()
        if pending or running:
            return
        if await self.ladders.redis.srem(aux_key("ladders", "running"), lid) != 1:
            return  # another process finished it
        status_key = ladder_key(lid, "status")
        if (await self.ladders.redis.get(status_key)) != b"stopped":
            await self.ladders.redis.set(status_key, "finished")
        final = await self.ladders.leaderboard(lid)
        board = {k: final[k] for k in ("ladder_id", "entries", "pairs")}
        await self.ladders.event(lid, {"type": "finished", "leaderboard": board})

    async def assign(self, bot_id: str, assignment: dict[str, Any]) -> None:
        """Append ``assignment`` to the bot's queue unless that seat of that match was assigned
        before (assign.lua: once per seat, whichever process starts the game)."""
        once = botq_key(bot_id, "assigned", assignment["match_id"], str(assignment["seat"]))
        await self.assign_script(keys=[botq_key(bot_id), once],
                                args=[json.dumps(assignment), ASSIGNED_TTL_MS])


class LadderDriver:
    """Runs :meth:`Scheduler.drive` for every running ladder every ``poll_ms`` (one per
    server process, like the reaper)."""

    def __init__(self, ladders: Drivable, poll_ms: int = 100,
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

"""Challenges between bots (issue 37): a bot (its bot token) challenges another registered bot or a
house bot to a head-to-head of N duplicate pairs in a two-player variant, with options and a time
control (docs/DESIGN.md §5, docs/ACCESS.md).

* The challenge reaches the challenged bot on its assignment stream (``Assignment.challenge``);
  the bot accepts or declines it with a reason (:data:`DECLINE_REASONS`, as lichess's) by
  ``AnswerChallenge`` with its own bot token. Unanswered, it expires after :data:`EXPIRE_MS`.
  A house bot accepts at once (when the server offers it).
* An accepted challenge is played as a ladder of the two bots (``kind`` ``challenge``; round
  robin, one duplicate set a pair, the challenger seated first in the first pair), so every
  ladder call shows it: its games, leaderboard, records. Rated challenges form a rating pool of
  their own (:func:`bummerl.ladder.standings.rating_pool` adds ``|challenge``); an unrated one
  (``rated: false``) is left out of every pooled leaderboard.
* Each bot may send at most ``per_hour`` challenges an hour (sliding window;
  ``RESOURCE_EXHAUSTED`` with the time to wait).

Redis keys (``bm:`` aux keys): ``challenge:<id>`` (JSON of the challenge), ``challenge:<id>:answer``
(the first answer wins: SET NX), ``challenges`` (sorted set id -> created ms, the newest
:data:`KEPT` kept for listing), ``rl:challenge:<bot>`` (the rate window).
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from bummerl.core.errors import (
    FailedPreconditionError,
    InvalidArgumentError,
    NotFoundError,
    PermissionDeniedError,
    UnauthenticatedError,
)
from bummerl.core.house import PREFIX as HOUSE_PREFIX
from bummerl.core.limits import Limit, RateLimiter
from bummerl.store.keys import aux_key, botq_key

from .data import LadderData
from .ids import _NAME_RE, _is_id, check_id
from .spec import LadderSpec, table_of

EXPIRE_MS = 30_000
"""An unanswered challenge expires after this many milliseconds."""

PER_HOUR = 20
"""Challenges a bot may send an hour (default; ``LadderService(challenges_per_hour=...)``)."""

MAX_PAIRS = 100
"""Most duplicate pairs one challenge may ask for."""

KEPT = 1000
"""Challenges kept for ListChallenges (the newest)."""

DECLINE_REASONS = ("generic", "later", "too_fast", "too_slow", "time_control", "variant", "rated", "casual",
                   "no_bots")
"""Why a bot declines, as lichess's bots say it: not now (``generic``), ``later``, the clock is
``too_fast`` / ``too_slow`` / not its ``time_control``, not its ``variant``, it plays only
``rated`` / only ``casual`` games, it plays no bots (``no_bots``)."""

STATES = ("pending", "accepted", "declined", "expired")
"""A challenge's state; ``expired`` is read off the clock (no process needs to mark it)."""

CreateLadder = Callable[[LadderSpec, dict[str, Any]], Awaitable[dict[str, Any]]]
"""How a challenge becomes a ladder: the service's internal create (spec, extra config) -> ladder."""


class Challenges:
    """Challenges over the ladders' data; ``create_ladder`` plays an accepted one, ``house_bots``
    names the house bots this server offers (empty: none), ``per_hour`` caps each bot's challenges."""

    def __init__(self, data: LadderData, create_ladder: CreateLadder, house_bots: Callable[[], Sequence[str]],
                 per_hour: int = PER_HOUR) -> None:
        self.data = data
        self.create_ladder = create_ladder
        self.house_bots = house_bots
        self.limiter = RateLimiter(data.store, {"challenge": Limit(per_hour, 3_600_000)}, data.matches.now_ms)

    async def _bot_of_token(self, token: str | None) -> dict[str, Any]:
        bot_id = (token or "").split(".", 1)[0]
        if not token or "." not in token or not _is_id(bot_id):
            raise UnauthenticatedError("a bot token is needed (authorization: Bearer <bot token>)")
        return await self.data.authenticate_bot(bot_id, token)

    async def _find(self, name_or_id: str) -> dict[str, Any]:
        """A live registered bot by id or name; NotFoundError otherwise."""
        raw = None
        if name_or_id.startswith("b") and len(name_or_id) == 17:
            raw = await self.data.redis.get(aux_key("bot", name_or_id))
        if raw is None and _NAME_RE.match(name_or_id):
            bot_id = await self.data.redis.get(aux_key("botname", name_or_id))
            raw = await self.data.redis.get(aux_key("bot", bot_id.decode())) if bot_id else None
        bot = json.loads(raw) if raw else None
        if not bot or bot.get("deleted") or bot.get("revoked"):
            raise NotFoundError(f"no registered bot {name_or_id[:64]!r} to challenge")
        return dict(bot)

    async def create(self, token: str | None, req: dict[str, Any]) -> dict[str, Any]:
        """Challenge ``req["challenged"]`` (a bot's name or id, or ``house:<bot>``) as the bot of
        ``token``. ``req``: ``variant``, ``options``, ``time_control`` (ms dict), ``timeout_policy``,
        ``pairs`` (duplicate pairs, 1..100), ``deals_per_game`` (0 = whole matches), ``rated``.
        Returns the challenge (see :meth:`get`). UnauthenticatedError / PermissionDeniedError for
        the token, NotFoundError for an unknown opponent, InvalidArgumentError for a bad field
        (a 3-4 seat variant, itself), ResourceExhaustedError past the hourly cap."""
        me = await self._bot_of_token(token)
        target = str(req.get("challenged") or "")
        variant, _, _ = table_of(LadderSpec("", str(req.get("variant") or "schnapsen-at"), []))
        if variant.num_players != 2:
            raise InvalidArgumentError(f"challenges are head-to-head: {variant.id} seats {variant.num_players} "
                                       f"(play it in a ladder)")
        pairs = int(req.get("pairs") or 1)
        if not 1 <= pairs <= MAX_PAIRS:
            raise InvalidArgumentError(f"pairs must be 1..{MAX_PAIRS}, not {pairs}")
        if target.startswith(HOUSE_PREFIX):
            name = target.removeprefix(HOUSE_PREFIX).split(":", 1)[0]
            if name not in self.house_bots():
                offered = ", ".join(HOUSE_PREFIX + b for b in self.house_bots()) or "none"
                raise NotFoundError(f"no house bot {name[:32]!r} on this server; offered: {offered}")
            opponent = {"bot_id": target, "name": target}
        else:
            opponent = await self._find(target)
            if opponent["bot_id"] == me["bot_id"]:
                raise InvalidArgumentError("a bot cannot challenge itself")
        await self.limiter.check("challenge", me["bot_id"])
        now = self.data.matches.now_ms()
        ch = {"challenge_id": "c" + secrets.token_hex(8), "challenger": me["bot_id"], "challenger_name": me["name"],
              "challenged": opponent["bot_id"], "challenged_name": opponent["name"], "variant": variant.id,
              "options": {str(k): str(v) for k, v in (req.get("options") or {}).items()},
              "time_control": req.get("time_control") or None, "timeout_policy": str(req.get("timeout_policy") or ""),
              "pairs": pairs, "deals_per_game": int(req.get("deals_per_game") or 0), "rated": bool(req.get("rated", True)),
              "state": "pending", "decline_reason": "", "created_at_ms": now, "expires_at_ms": now + EXPIRE_MS,
              "ladder_id": ""}
        self._spec(ch)  # the ladder it would be, checked now (options, time control, policy)
        await self.data.redis.set(aux_key("challenge", ch["challenge_id"]), json.dumps(ch), px=40 * 86_400_000)
        await self.data.redis.zadd(aux_key("challenges"), {ch["challenge_id"]: now})
        await self.data.redis.zremrangebyrank(aux_key("challenges"), 0, -KEPT - 1)
        if target.startswith(HOUSE_PREFIX):
            return await self._accept(ch)
        await self.data.redis.xadd(botq_key(ch["challenged"]), {"a": json.dumps({"challenge": ch})},
                                   maxlen=10_000, approximate=True)
        return ch

    def _spec(self, ch: dict[str, Any]) -> LadderSpec:
        spec = LadderSpec(
            name=f"challenge {ch['challenger_name']} vs {ch['challenged_name']}"[:100], variant=ch["variant"],
            bot_ids=[ch["challenger"], ch["challenged"]], rounds=ch["pairs"], deals_per_game=ch["deals_per_game"],
            options=dict(ch["options"]), time_control=ch["time_control"],
            timeout_policy=ch["timeout_policy"] or LadderSpec.timeout_policy, concurrency=2)
        table_of(spec)
        return spec

    async def get(self, challenge_id: str) -> dict[str, Any]:
        """``{"challenge_id", "challenger", "challenger_name", "challenged", "challenged_name",
        "variant", "options", "time_control", "timeout_policy", "pairs", "deals_per_game", "rated",
        "state" (:data:`STATES`), "decline_reason", "created_at_ms", "expires_at_ms", "ladder_id"}``
        (times in ms since the epoch); NotFoundError."""
        check_id("challenge_id", challenge_id)
        raw = await self.data.redis.get(aux_key("challenge", challenge_id))
        if raw is None:
            raise NotFoundError(f"no challenge {challenge_id!r}")
        return _read(raw, self.data.matches.now_ms())

    async def list(self, bot_id: str = "", state: str = "") -> list[dict[str, Any]]:
        """The newest challenges first (at most :data:`KEPT`), those of ``bot_id`` (as either
        side) and in ``state`` when given."""
        if state and state not in STATES:
            raise InvalidArgumentError(f"state must be one of {', '.join(STATES)} or empty")
        ids = [x.decode() for x in await self.data.redis.zrevrange(aux_key("challenges"), 0, KEPT - 1)]
        pipe = self.data.redis.pipeline(transaction=False)  # one round trip (per node on Redis Cluster)
        for cid in ids:
            pipe.get(aux_key("challenge", cid))
        now = self.data.matches.now_ms()
        out = []
        for raw in (await pipe.execute() if ids else []):
            if raw is None:
                continue
            ch = _read(raw, now)
            if bot_id and bot_id not in (ch["challenger"], ch["challenged"]):
                continue
            if state and ch["state"] != state:
                continue
            out.append(ch)
        return out

    async def answer(self, token: str | None, challenge_id: str, accept: bool, reason: str = "") -> dict[str, Any]:
        """The challenged bot (its token) accepts or declines (``reason`` from
        :data:`DECLINE_REASONS`, default ``generic``). The first answer counts; FailedPrecondition
        for an expired or already answered challenge, PermissionDeniedError for another bot's
        token. Accepting creates the ladder (``ladder_id``)."""
        ch = await self.get(challenge_id)
        me = await self._bot_of_token(token)
        if me["bot_id"] != ch["challenged"]:
            raise PermissionDeniedError(f"only {ch['challenged_name']!r} answers this challenge")
        if not accept and (reason or "generic") not in DECLINE_REASONS:
            raise InvalidArgumentError(f"reason must be one of {', '.join(DECLINE_REASONS)}, got {reason!r}")
        if ch["state"] != "pending":
            raise FailedPreconditionError(f"challenge {challenge_id} is {ch['state']}")
        if not await self.data.redis.set(aux_key("challenge", challenge_id, "answer"), "1", nx=True,
                                         px=40 * 86_400_000):
            raise FailedPreconditionError(f"challenge {challenge_id} was answered already")
        if accept:
            return await self._accept(ch)
        ch.update(state="declined", decline_reason=reason or "generic")
        await self.data.redis.set(aux_key("challenge", challenge_id), json.dumps(ch), px=40 * 86_400_000)
        return ch

    async def _accept(self, ch: dict[str, Any]) -> dict[str, Any]:
        lad = await self.create_ladder(self._spec(ch), {"kind": "challenge", "rated": ch["rated"],
                                                        "challenge_id": ch["challenge_id"]})
        ch.update(state="accepted", ladder_id=lad["ladder_id"])
        await self.data.redis.set(aux_key("challenge", ch["challenge_id"]), json.dumps(ch), px=40 * 86_400_000)
        return ch

    async def still_open(self, ch: dict[str, Any]) -> bool:
        """Whether a challenge from an assignment stream is still to be answered."""
        try:
            return bool((await self.get(ch["challenge_id"]))["state"] == "pending")
        except NotFoundError:
            return False


def _read(raw: bytes | str, now_ms: int) -> dict[str, Any]:
    """A stored challenge, its state read off the clock (``expired`` once past ``expires_at_ms``)."""
    ch = dict(json.loads(raw))
    if ch["state"] == "pending" and now_ms > int(ch["expires_at_ms"]):
        ch["state"] = "expired"
    return ch

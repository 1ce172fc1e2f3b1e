"""Registered bots (docs/DESIGN.md §5): register, list, revoke, rotate a token, delete, and
publish versions (issue 37); the seats of a match named ``bot:<name>``.

A bot's **version** is a label its author publishes (``PublishBotVersion`` with the bot's token or
the admin token; ``bummerl bot update NAME --version V`` or ``bummerl bot run --version V``): a new
version keeps the bot's identity and history, and every ladder game records the version each seat's
bot had when the game started, so each version has its own rating in a leaderboard
(``LeaderboardEntry.versions``). A bot starts at version ``1``. The server runs no bot code: the
version played is the one the bot's runner says it is.
"""

from __future__ import annotations

import json
import re
import secrets
from collections.abc import Sequence
from typing import Any

from bummerl.core.errors import FailedPreconditionError, InvalidArgumentError, NotFoundError
from bummerl.core.house import PREFIX as HOUSE_PREFIX
from bummerl.core.matches import hash_token
from bummerl.store.keys import aux_key

from . import botstats
from .data import LadderData
from .ids import _NAME_RE

BOT_SEAT = "bot:"
"""Prefix of a CreateMatch seat name that seats a connected registered bot (``bot:<name>``)."""

FIRST_VERSION = "1"
"""The version of a newly registered bot."""

VERSION_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+-]{0,63}$")
"""A version label: 1-64 letters, digits or ``._+-``, starting with a letter or digit."""

MAX_VERSIONS = 200
"""Versions kept per bot (the oldest dropped beyond; their games keep their label)."""


def _text(x: object) -> str:
    return x.decode(errors="replace") if isinstance(x, bytes) else str(x)


class BotRegistry:
    """The registered bots over the ladders' data."""

    def __init__(self, data: LadderData) -> None:
        self.data = data

    async def register(self, name: str, description: str = "", admin_token: str | None = None) -> dict[str, Any]:
        """Register a bot (admin). Returns ``{"bot_id", "bot_token", "name"}``; the token
        (``<bot id>.<256-bit hex secret>``) is shown only here. Raises InvalidArgumentError for a bad or taken name (1-64 of letters, digits,
        ``_.:+-``, not starting ``house:``), PermissionDeniedError without the admin token."""
        self.data.matches.check_admin(admin_token)
        if not _NAME_RE.match(name or ""):
            raise InvalidArgumentError("bot name must be 1-64 letters, digits or _.:+- (starting with a letter or digit)")
        if name.startswith(HOUSE_PREFIX):  # records and pages would show its seats as the server's own bot
            raise InvalidArgumentError(f"bot name must not start with {HOUSE_PREFIX!r}: that names the server's house "
                                       f"bots (a CreateMatch seat named house:greedy is played by the server)")
        if len(description) > 500:
            raise InvalidArgumentError("bot description is longer than 500 characters")
        if not description.isprintable():
            raise InvalidArgumentError("bot description contains control or non-printable characters")
        bot_id = "b" + secrets.token_hex(8)
        if not await self.data.redis.set(aux_key("botname", name), bot_id, nx=True):
            raise InvalidArgumentError(f"a bot named {name!r} is already registered")
        token = f"{bot_id}.{secrets.token_hex(32)}"  # the id in front lets a bot connect with its token alone
        now = self.data.matches.now_ms()
        bot = {"bot_id": bot_id, "name": name, "description": description, "token_hash": hash_token(token),
               "created_at_ms": now, "version": FIRST_VERSION,
               "versions": [{"version": FIRST_VERSION, "created_at_ms": now, "note": ""}]}
        await self.data.redis.set(aux_key("bot", bot_id), json.dumps(bot))
        await self.data.redis.sadd(aux_key("bots"), bot_id)
        return {"bot_id": bot_id, "bot_token": token, "name": name}

    async def list(self) -> list[dict[str, Any]]:
        """Every registered bot, by name: ``{"bot_id", "name", "description", "created_at_ms",
        "connected", "connected_since_ms", "client", "revoked", "deleted", "version" (its newest),
        "versions" (``{"version", "created_at_ms", "note"}``, oldest first), "stats"}`` (never its
        token)."""
        ids = sorted(_text(x) for x in await self.data.redis.smembers(aux_key("bots")))
        here = await self.data.presence()
        pipe = self.data.redis.pipeline(transaction=False)  # one round trip (per node on Redis Cluster)
        for i in ids:
            pipe.get(aux_key("bot", i))
        for i in ids:
            pipe.hgetall(aux_key("botstats", i))
        got = await pipe.execute() if ids else []
        raws = got[:len(ids)]
        totals = dict(zip(ids, got[len(ids):], strict=True))
        out = []
        for raw in raws:
            if raw is None:
                continue
            b = json.loads(raw)
            since, client = here.get(b["bot_id"], (0, ""))
            out.append({"bot_id": b["bot_id"], "name": b["name"], "description": b.get("description", ""),
                        "created_at_ms": b.get("created_at_ms", 0), "connected": b["bot_id"] in here,
                        "connected_since_ms": since, "client": client, "revoked": bool(b.get("revoked")),
                        "deleted": bool(b.get("deleted")), "version": b.get("version", ""),
                        "versions": list(b.get("versions") or ()),
                        "stats": botstats.view(botstats.unflatten(totals.get(b["bot_id"]) or {}))})
        return sorted(out, key=lambda b: (b["deleted"], b["name"]))

    async def _update_bot(self, bot_id: str, admin_token: str | None, **changes: Any) -> dict[str, Any]:
        self.data.matches.check_admin(admin_token)
        bot = await self.data.bot(bot_id)
        if bot.get("deleted"):
            raise NotFoundError(f"bot {bot_id!r} was deleted")
        bot.update(changes)
        await self.data.redis.set(aux_key("bot", bot_id), json.dumps(bot))
        return bot

    async def revoke(self, bot_id: str, admin_token: str | None = None) -> dict[str, Any]:
        """Revoke a bot's token (admin): new assignment streams and new ladders refuse it, and it
        gets no new game. Limitation: a match already created for it still takes the old token
        for its seat until it ends (StopLadder ends them). Returns the :meth:`list_bots` row."""
        bot = await self._update_bot(bot_id, admin_token, revoked=True)
        return await self._row(bot["bot_id"])

    async def rotate_token(self, bot_id: str, admin_token: str | None = None) -> dict[str, Any]:
        """A new bot token (admin), shown once: ``{"bot_id", "bot_token", "name"}``; the old one
        stops working (for matches already created: see :meth:`revoke_bot`); a revoked bot is
        active again."""
        token = f"{bot_id}.{secrets.token_hex(32)}"
        bot = await self._update_bot(bot_id, admin_token, token_hash=hash_token(token), revoked=False)
        return {"bot_id": bot_id, "bot_token": token, "name": bot["name"]}

    async def delete(self, bot_id: str, admin_token: str | None = None) -> dict[str, Any]:
        """Delete a bot (admin): its token stops working, its name may be registered again; its
        results stay in past ladders and it stays listed, marked deleted."""
        bot = await self._update_bot(bot_id, admin_token, deleted=True, token_hash="")
        await self.data.redis.delete(aux_key("botname", bot["name"]))
        return await self._row(bot_id)

    async def connected_seats(self, names: Sequence[str]) -> dict[int, dict[str, Any]]:
        """The seats of a new match named ``bot:<registered bot>`` -> that bot: a person may play a
        connected bot (issue 20) when the server allows it (``play_connected_bots``; the servicer
        asks only then). Raises NotFoundError for an unknown, revoked or deleted bot and
        FailedPreconditionError for one that holds no assignment stream now."""
        out: dict[int, dict[str, Any]] = {}
        wanted = {i: n[len(BOT_SEAT):] for i, n in enumerate(names) if n.startswith(BOT_SEAT)}
        if not wanted:
            return out
        here = await self.data.connected_bots()
        for i, name in wanted.items():
            raw = await self.data.redis.get(aux_key("botname", name)) if _NAME_RE.match(name) else None
            bot = await self.data.bot(_text(raw)) if raw is not None else None
            if bot is None or bot.get("revoked") or bot.get("deleted"):
                raise NotFoundError(f"seat {i}: no registered bot named {name[:64]!r}")
            if bot["bot_id"] not in here:
                raise FailedPreconditionError(f"seat {i}: bot {name!r} is not connected now (bummerl bot list)")
            out[i] = bot
        return out

    async def _row(self, bot_id: str) -> dict[str, Any]:
        return next(b for b in await self.list() if b["bot_id"] == bot_id)


    async def publish_version(self, bot_id: str, version: str, note: str = "", token: str | None = None) -> dict[str, Any]:
        """Publish ``version`` of the bot (its own bot token, or the admin token): from now on its
        ladder games are recorded under it. Returns the :meth:`list` row. InvalidArgumentError for a
        bad label (:data:`VERSION_RE`) or a note over 200 characters; FailedPreconditionError for
        a label it had before (a version names one program: publish a new one);
        UnauthenticatedError / PermissionDeniedError for the token; NotFoundError."""
        if not self.data.matches.is_admin(token):
            await self.data.authenticate_bot(bot_id, token)
        if not VERSION_RE.match(version or ""):
            raise InvalidArgumentError("version must be 1-64 letters, digits or ._+- (starting with a letter or digit)")
        if len(note) > 200 or not note.isprintable():
            raise InvalidArgumentError("version note must be at most 200 printable characters")
        bot = await self.data.bot(bot_id)
        if bot.get("deleted"):
            raise NotFoundError(f"bot {bot_id!r} was deleted")
        versions = list(bot.get("versions") or ())
        if any(v["version"] == version for v in versions):
            raise FailedPreconditionError(f"bot {bot['name']!r} has a version {version!r} already; publish a new label")
        versions.append({"version": version, "created_at_ms": self.data.matches.now_ms(), "note": note})
        bot.update(version=version, versions=versions[-MAX_VERSIONS:])
        await self.data.redis.set(aux_key("bot", bot_id), json.dumps(bot))
        return await self._row(bot_id)

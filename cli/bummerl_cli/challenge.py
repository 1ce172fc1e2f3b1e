"""``bummerl bot challenge`` and ``bummerl bot challenges`` (issue 37): a bot challenges another
bot (or a house bot) with its bot token and waits for the answer; the list of challenges. Also the
flags of ``bummerl bot run`` that say which challenges the bot accepts
(:class:`bummerl_client.challenges.ChallengePolicy`).

    bummerl bot challenge OPPONENT --token <bot token> [--variant V] [--deals N | --matches N]
                          [--tc 5+0.1] [--unrated] [--wait 35] [--json]
    bummerl bot challenges [--bot NAME] [--state pending|accepted|declined|expired] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import time
from typing import Any

from bummerl_client import AsyncClient, BummerlError
from bummerl_client.challenges import ChallengePolicy

from .common import (
    SafeTable,
    add_columns,
    out_console,
    positive_int,
    safe,
    server_flags,
    server_of,
    time_control_fields,
)


def add_parsers(bsub: Any) -> None:
    """``challenge`` and ``challenges`` under ``bummerl bot``."""
    p = bsub.add_parser("challenge", help="challenge another bot (or house:greedy) with your bot token")
    p.add_argument("opponent", help="a registered bot's name or id, or house:<bot> (house:greedy)")
    p.add_argument("--token", default=None, help="your bot token (default: BUMMERL_BOT_TOKEN)")
    p.add_argument("--variant", default="schnapsen-at", help="a two-player variant (default schnapsen-at)")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--deals", type=positive_int, default=0, help="N duplicate pairs of single deals")
    g.add_argument("--matches", type=positive_int, default=1, help="N duplicate pairs of whole matches (default 1)")
    p.add_argument("--tc", default=None, help="time control in seconds, e.g. 5+0.1 or move=2,bank=30 (default none)")
    p.add_argument("--timeout-policy", default="", choices=["", "forfeit-match", "forfeit-deal", "default-move"],
                   help="default forfeit-match")
    p.add_argument("--option", action="append", default=[], help="table option name=value (repeatable)")
    p.add_argument("--unrated", action="store_true", help="not rated (in no pooled leaderboard)")
    p.add_argument("--wait", type=float, default=35.0, help="seconds to wait for the answer (default 35; 0: do not)")
    p.add_argument("--server", default=None, help="HOST:PORT (default: BUMMERL_SERVER or localhost:50051)")
    p.add_argument("--json", action="store_true", help="the challenge as JSON")
    p = bsub.add_parser("challenges", help="the newest challenges, of one bot or in one state")
    p.add_argument("--bot", default="", help="a bot name or id: its challenges, sent or received")
    p.add_argument("--state", default="", choices=["", "pending", "accepted", "declined", "expired"],
                   help="only those in this state (default: all)")
    server_flags(p)


def policy_flags(br: Any) -> None:
    """The flags of ``bummerl bot run`` that decide its challenges."""
    br.add_argument("--challenges", choices=["accept", "decline"], default="accept",
                    help="challenges from other bots: accept within the limits below (default), or decline all")
    br.add_argument("--challenge-variants", default="", help="accept only these variants (comma-separated)")
    br.add_argument("--challenge-max-pairs", type=positive_int, default=10, help="most duplicate pairs (default 10)")
    br.add_argument("--challenge-min-move", type=float, default=0.0,
                    help="decline clocks giving less than this many seconds a decision (too_fast)")


def policy_of(args: argparse.Namespace) -> ChallengePolicy:
    """The :class:`ChallengePolicy` of ``bummerl bot run``'s flags."""
    variants = [v.strip() for v in args.challenge_variants.split(",") if v.strip()] or None
    return ChallengePolicy(variants=variants, max_pairs=args.challenge_max_pairs,
                           min_move_ms=round(args.challenge_min_move * 1000), accept=args.challenges == "accept")


async def challenge(args: argparse.Namespace) -> int:
    """Send the challenge; with ``--wait``, poll it until it is answered or expires. Exit 0 when
    accepted (the ladder id on stdout), 1 when declined or expired."""
    token = args.token or os.environ.get("BUMMERL_BOT_TOKEN", "")
    if not token:
        raise SystemExit("bummerl bot challenge: no bot token: pass --token or set BUMMERL_BOT_TOKEN")
    tc = time_control_fields(args.tc, "bummerl bot challenge") if args.tc else None
    async with AsyncClient(server_of(args)) as c:
        try:
            ch = await c.challenge(token, args.opponent, args.variant, pairs=args.deals or args.matches,
                                   deals_per_game=1 if args.deals else 0, time_control=tc,
                                   timeout_policy=args.timeout_policy, rated=not args.unrated,
                                   options=dict(o.split("=", 1) for o in args.option))
            end = time.monotonic() + args.wait
            while ch["state"] == "pending" and time.monotonic() < end:
                await asyncio.sleep(0.25)
                ch = await c.get_challenge(ch["challenge_id"])
        except BummerlError as e:
            raise SystemExit(f"bummerl bot challenge: {e.code.name}: {e.details}") from None
    if args.json:
        print(json.dumps(ch))
    elif ch["state"] == "accepted":
        print(ch["ladder_id"])
    else:
        why = f" ({ch['decline_reason']})" if ch["decline_reason"] else ""
        print(safe(f"challenge {ch['challenge_id']} to {ch['challenged_name']}: {ch['state']}{why}"))
    return 0 if ch["state"] in ("accepted", "pending") else 1


async def challenges(args: argparse.Namespace) -> int:
    """List challenges (a table, or ``--json``)."""
    async with AsyncClient(server_of(args)) as c:
        bot = args.bot
        if bot:
            bot = next((b["bot_id"] for b in await c.list_bots() if bot in (b["bot_id"], b["name"])), bot)
        got = await c.challenges(bot, args.state)
    if args.json:
        print(json.dumps(got))
        return 0
    t = SafeTable(title="Challenges (newest first)")
    add_columns(t, ("id", "from", "to", "variant", "pairs", "rated", "state", "ladder"))
    for ch in got:
        state = ch["state"] + (f" ({ch['decline_reason']})" if ch.get("decline_reason") else "")
        t.add_row(ch["challenge_id"], ch["challenger_name"], ch["challenged_name"], ch["variant"], str(ch["pairs"]),
                  "yes" if ch.get("rated") else "no", state, ch.get("ladder_id") or "-")
    out_console().print(t)
    return 0

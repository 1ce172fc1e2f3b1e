"""``python -m bummerl_client join``: play one seat of an existing match with a bundled bot or an
executable over the stdio bridge.

    python -m bummerl_client join --server localhost:50051 --match ID --seat 0 --token TOKEN --bot greedy
    python -m bummerl_client join ... --bot "exec:./my_bot --level 3"

Prints the final result as one JSON line; exit code 0 when the match ended.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys

from .bot import Bot
from .bots import make_bot
from .client import AsyncClient
from .runner import play_seat
from .stdio import StdioBot


def bot_from_spec(spec: str, seed: int | None = None) -> Bot:
    """``random`` / ``greedy`` / ``exec:COMMAND ARGS`` -> a Bot. Raises ValueError if unknown."""
    if spec.startswith("exec:"):
        return StdioBot(spec[5:], seed)
    return make_bot(spec, seed)


async def _join(args: argparse.Namespace) -> int:
    bot = bot_from_spec(args.bot, args.seed)
    async with AsyncClient(args.server) as client:
        await client.wait_ready(args.connect_timeout)
        final = await play_seat(client, args.match, args.seat, args.token, bot)
    if isinstance(bot, StdioBot):
        bot.close(final)
    m = final.get("match", {})
    print(json.dumps({"match_id": args.match, "seat": args.seat, "winner": m.get("winner"), "game_points": m.get("game_points")}))
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bummerl_client")
    sub = p.add_subparsers(dest="cmd", required=True)
    j = sub.add_parser("join", help="play one seat of a match until it ends")
    j.add_argument("--server", default="localhost:50051")
    j.add_argument("--match", required=True)
    j.add_argument("--seat", type=int, required=True)
    j.add_argument("--token", required=True)
    j.add_argument("--bot", default="greedy", help="random | greedy | exec:COMMAND")
    j.add_argument("--seed", type=int, default=None)
    j.add_argument("--connect-timeout", type=float, default=10.0)
    args = p.parse_args(argv)
    return asyncio.run(_join(args))


if __name__ == "__main__":
    sys.exit(main())

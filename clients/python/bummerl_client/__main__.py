"""``python -m bummerl_client join``: play one seat of an existing match with a bundled bot or an
executable over the stdio bridge (protocol: ``docs/ENGINE_PROTOCOL.md``).

    BUMMERL_SEAT_TOKEN=... python -m bummerl_client join --server localhost:50051 --match ID --seat 0 --bot greedy
    python -m bummerl_client join ... --token-file token.txt --bot "exec:./my_bot --level 3"

The seat token comes from ``BUMMERL_SEAT_TOKEN`` or ``--token-file`` (``-`` = stdin), never the
command line, where ``ps`` shows it (``--token`` still works, with a warning). Prints the result
as one JSON line. Exit codes: 0 the match ended; 2 usage or connection error; 3 the bot timed
out; 4 the bot gave an illegal or unparsable answer; 5 the bot crashed. On a bot fault the seat
is resigned (unless the server already ended the match) and one line says why, never a traceback.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys

import grpc

from bummerl.bots import BotFault

from .client import AsyncClient, BummerlError
from .runner import EXIT_CODES, FAULT_REASONS, play_seat
from .specs import bot_from_spec, bot_specs

__all__ = ["EXIT_CODES", "bot_from_spec", "bot_specs", "main"]


def _token(args: argparse.Namespace) -> str:
    if args.token_file:
        text = sys.stdin.read() if args.token_file == "-" else open(args.token_file, encoding="utf-8").read()
        return text.strip()
    if os.environ.get("BUMMERL_SEAT_TOKEN"):
        return os.environ["BUMMERL_SEAT_TOKEN"].strip()
    if args.token:
        print("bummerl_client: warning: --token shows the seat token in the process list; use BUMMERL_SEAT_TOKEN "
              "or --token-file", file=sys.stderr)
        return str(args.token)
    raise SystemExit("bummerl_client join: no seat token: set BUMMERL_SEAT_TOKEN or pass --token-file FILE")


async def _join(args: argparse.Namespace, token: str) -> int:
    bot = bot_from_spec(args.bot, args.seed, args.decision_timeout)
    final = None
    async with AsyncClient(args.server) as client:
        try:
            await client.wait_ready(args.connect_timeout)
        except (TimeoutError, grpc.FutureTimeoutError):
            print(f"bummerl_client join: cannot reach the server at {args.server}", file=sys.stderr)
            return 2
        try:
            final = await play_seat(client, args.match, args.seat, token, bot)
        except BotFault as f:
            info = await client.information_set(args.match, args.seat, token)
            if not info["match"]["over"]:
                await client.resign(args.match, args.seat, token, FAULT_REASONS[f.kind])
            print(f"bummerl_client join: seat {args.seat}: bot {f.kind}: {f.detail}; seat resigned"
                  if not info["match"]["over"] else f"bummerl_client join: seat {args.seat}: bot {f.kind}: {f.detail}",
                  file=sys.stderr)
            final = await client.information_set(args.match, args.seat, token)
            m = final.get("match", {})
            print(json.dumps({"match_id": args.match, "seat": args.seat, "winner": m.get("winner"),
                              "game_points": m.get("game_points"), "fault": f.kind}))
            return EXIT_CODES.get(f.kind, 5)
        except BummerlError as e:
            print(f"bummerl_client join: {e.code.name}: {e.details}", file=sys.stderr)
            return 2
        finally:
            await bot.aclose(final)
    m = final.get("match", {})
    print(json.dumps({"match_id": args.match, "seat": args.seat, "winner": m.get("winner"),
                      "game_points": m.get("game_points")}))
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bummerl_client")
    sub = p.add_subparsers(dest="cmd", required=True)
    j = sub.add_parser("join", help="play one seat of a match until it ends")
    j.add_argument("--server", default="localhost:50051")
    j.add_argument("--match", required=True)
    j.add_argument("--seat", type=int, required=True)
    j.add_argument("--token-file", default=None, help="file with the seat token ('-' = stdin)")
    j.add_argument("--token", default=None, help=argparse.SUPPRESS)
    j.add_argument("--bot", default="greedy", help="random | greedy | strong[:budget_ms=50,...] | exec:COMMAND")
    j.add_argument("--seed", type=int, default=None)
    j.add_argument("--decision-timeout", type=float, default=60.0,
                   help="seconds per decision of an exec: bot when the match has no clock")
    j.add_argument("--connect-timeout", type=float, default=10.0)
    args = p.parse_args(argv)
    token = _token(args)
    try:
        return asyncio.run(_join(args, token))
    except ValueError as e:  # an unknown bot name
        print(f"bummerl_client join: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())

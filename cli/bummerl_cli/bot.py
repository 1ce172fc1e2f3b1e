"""``bummerl bot ...``: bots from the command line. ``run`` connects a bot to a server and plays
every match it is assigned until Ctrl-C; ``check`` plays a bot offline against bundled bots on the
rules engine in every variant and reports each protocol fault (exit 1;
:class:`bummerl.bots.harness.BotTestHarness`); ``logs`` prints what an ``exec:`` bot wrote to
stderr in a match; the organizer's commands (:mod:`.organizer`) register and manage bots on a
running server.

    bummerl bot run --bot greedy --token <bot token> --server HOST:PORT
    bummerl bot check --bot exec:./my_bot [--variant all] [--matches 1] [--json]
    bummerl bot logs MATCH_ID
    bummerl bot update NAME --version V [--note TEXT] [--token T]   (a new version, rated apart)
    bummerl bot challenge OPPONENT --token <bot token> [--deals N] [--tc 5+0.1]   (issue 37)
    bummerl bot challenges [--bot NAME] [--state pending]
    bummerl bot register NAME [--description TEXT]       (prints the bot token once)
    bummerl bot list | revoke NAME | rotate-token NAME | delete NAME
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any

from bummerl.bots.harness import BotTestHarness
from bummerl.rules import UnknownVariantError, find_variant
from bummerl_client import AsyncClient, BummerlError
from bummerl_client.botrunner import check_token, ensure_version, run_bot
from bummerl_client.specs import bot_from_spec
from bummerl_client.stdio import default_log_dir, match_log_dir

from . import challenge, organizer
from .common import counted, safe, server_flags, server_of


def add_parser(sub: Any) -> None:
    bot = sub.add_parser("bot", help="connect a bot and play its assigned matches; register and manage bots")
    bsub = bot.add_subparsers(dest="bot_cmd", required=True)
    p = bsub.add_parser("register", help="register a bot (admin); prints its token once")
    p.add_argument("name", help="1-64 letters, digits or _.:+-")
    p.add_argument("--description", default="", help="free text, at most 500 characters (default none)")
    server_flags(p, admin=True)
    bls = bsub.add_parser("list", help="every bot: connected or not, since when, its client, status "
                                       "(deleted bots only with --all)")
    bls.add_argument("--all", action="store_true", help="also the deleted bots (their results stay in ladders)")
    server_flags(bls)
    for cmd, what in (("revoke", "revoke a bot's token (admin)"),
                      ("rotate-token", "issue a new token for a bot (admin); the old one stops working"),
                      ("delete", "delete a bot (admin): its name is free again, its results stay")):
        p = bsub.add_parser(cmd, help=what)
        p.add_argument("name", help="bot name or id")
        server_flags(p, admin=True)
    p = bsub.add_parser("update", help="publish a new version of a bot (its --token, or the admin token): its games "
                                       "are then rated under that version")
    p.add_argument("name", help="bot name or id")
    p.add_argument("--version", required=True, help="the new version's label (1-64 letters, digits or ._+-)")
    p.add_argument("--note", default="", help="what changed (at most 200 characters)")
    p.add_argument("--token", default=None, help="the bot's own token (default: BUMMERL_BOT_TOKEN, else the admin token)")
    server_flags(p, admin=True)
    bc = bsub.add_parser("check", help="check a bot offline: it plays every variant against bundled bots on the "
                                       "rules engine, and every protocol fault is reported (exit 1)")
    bc.add_argument("--bot", required=True, help="the bot: exec:COMMAND, random, greedy, strong[:...]")
    bc.add_argument("--variant", default="all", help="a variant id, or all (default)")
    bc.add_argument("--matches", type=int, default=1, help="matches per variant (default 1)")
    bc.add_argument("--opponent", default="random", help="the bundled bot in the other seats (default random)")
    bc.add_argument("--seed", type=int, default=1, help="seed of the decks (default 1)")
    bc.add_argument("--decision-timeout", type=float, default=10.0, help="seconds per decision (default 10)")
    bc.add_argument("--json", action="store_true", help="one JSON object with the report")
    bl = bsub.add_parser("logs", help="print what an exec: bot wrote to stderr in a match (per seat)")
    bl.add_argument("match_id", help="the match id")
    bl.add_argument("--dir", default=None, help="log folder (default: BUMMERL_BOT_LOG_DIR or "
                                                "~/.local/share/bummerl/bot-logs)")
    br = bsub.add_parser("run", help="play every assigned match until Ctrl-C")
    br.add_argument("--bot", default="greedy", help="random | greedy | strong[:budget_ms=50,...] | exec:COMMAND")
    br.add_argument("--token", default=None, help="bot token (default: BUMMERL_BOT_TOKEN)")
    br.add_argument("--process-model", choices=["match", "reuse"], default=None,
                    help="exec: bots: a new process per match (match), or a process that finished a match cleanly "
                         "gets the next one (reuse) (default: BUMMERL_BOT_PROCESS_MODEL or match)")
    br.add_argument("--server", default=None, help="HOST:PORT (default: BUMMERL_SERVER or localhost:50051)")
    br.add_argument("--version", default=None,
                    help="the bot's version: published on connecting unless it is already the newest (its games are "
                         "rated under it)")
    challenge.policy_flags(br)
    challenge.add_parsers(bsub)


def run(args: argparse.Namespace) -> int:
    if args.bot_cmd == "logs":
        return bot_logs(args)
    if args.bot_cmd == "check":
        return bot_check(args)
    if args.bot_cmd == "run":
        return asyncio.run(bot_run(args))
    if args.bot_cmd == "challenge":
        return asyncio.run(challenge.challenge(args))
    if args.bot_cmd == "challenges":
        return asyncio.run(challenge.challenges(args))
    return organizer.dispatch(args)


async def bot_run(args: argparse.Namespace) -> int:
    """``bummerl bot run``: play every match assigned to the bot of ``--token`` until Ctrl-C."""
    token = args.token or os.environ.get("BUMMERL_BOT_TOKEN", "")
    if not token:
        raise SystemExit("bummerl bot run: no bot token: pass --token or set BUMMERL_BOT_TOKEN")
    check_token(token)  # fatal at once: a token gRPC cannot send would be retried forever
    try:
        bot_from_spec(args.bot)  # fail early, in one line, on an unknown bot or option
    except ValueError as e:
        raise SystemExit(f"bummerl bot run: {e}") from None

    def done(s: dict[str, Any]) -> None:
        fault = f", bot fault {s['fault']}" if s.get("fault") else ""
        print(safe(f"match {s['match_id']} seat {s['seat']}: {s['outcome']} ({s.get('reason', '')}), "
                   f"game points {s.get('game_points')}{fault}"), flush=True)

    def status(line: str) -> None:
        print(safe(line), flush=True)

    kind = args.bot.split(":", 1)[0]  # never the command line of an exec: bot (it may hold secrets)
    server = server_of(args)
    async with AsyncClient(server) as c:
        try:
            await c.wait_ready(15)
        except Exception:  # noqa: BLE001 - not up yet: run_bot retries and says so
            status(f"server {server} unreachable: retrying")
        if args.version:
            try:
                status(await ensure_version(c, token, args.version))
            except BummerlError as e:
                raise SystemExit(f"bummerl bot run: {e.code.name}: {e.details}") from None
        await run_bot(c, token, lambda: bot_from_spec(args.bot, process_model=args.process_model), on_done=done,
                      on_status=status, client_info=f"bummerl bot run ({kind})",
                      challenge_policy=challenge.policy_of(args))
    return 0


def bot_check(args: argparse.Namespace) -> int:
    """``bummerl bot check``: :class:`bummerl.bots.harness.BotTestHarness`; exit 1 on any fault."""
    try:
        bot_from_spec(args.bot)
        bot_from_spec(args.opponent)
        variants = None if args.variant == "all" else [find_variant(args.variant).id]
    except (ValueError, UnknownVariantError) as e:
        raise SystemExit(f"bummerl bot check: {e}") from None
    report = BotTestHarness(lambda: bot_from_spec(args.bot), variants, args.matches, args.opponent, args.seed,
                            args.decision_timeout).run()
    if args.json:
        print(json.dumps({"ok": report.ok, "matches": report.matches, "decisions": report.decisions,
                          "problems": [asdict(p) for p in report.problems], "slowest_ms": report.slowest_ms}))
    else:
        for p in report.problems:
            print(safe(f"FAULT {p.variant} seat {p.seat} version {p.version}: {p.kind}: {p.detail}"))
        print(f"{'the bot complies' if report.ok else counted(len(report.problems), 'fault')}: "
              f"{counted(report.matches, 'match', 'matches')} played to the end, "
              f"{counted(report.decisions, 'decision')}; slowest decision "
              f"{max(report.slowest_ms.values(), default=0):.0f} ms")
    return 0 if report.ok else 1


def bot_logs(args: argparse.Namespace) -> int:
    """Print each seat's stderr log of a match (the stdio bridge's, :mod:`bummerl_client.stdio`)."""
    folder = match_log_dir(args.match_id, Path(args.dir) if args.dir else default_log_dir())
    logs = sorted(folder.glob("seat*.log")) if folder.is_dir() else []
    if not logs:
        raise SystemExit(f"bummerl bot logs: no bot log of match {args.match_id} in {folder.parent}")
    for log in logs:
        print(f"==> {log} <==")
        sys.stdout.write(log.read_text(encoding="utf-8", errors="replace"))
    return 0



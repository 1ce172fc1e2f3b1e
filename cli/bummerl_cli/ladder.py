"""``bummerl ladder ...``: ladders from the command line. ``run`` plays a whole ladder between
bots run in this process (a local server unless ``--server``) and ``export`` writes its match
records (:mod:`.ladder_run`); the organizer's commands create, follow and manage ladders on a
running server (:mod:`.organizer`).

    bummerl ladder run --variant schnapsen-at --bots greedy,random,strong --deals 100 --tc 5+0.1 [--json]
    bummerl ladder export --ladder ID --server HOST:PORT > records.jsonl
    bummerl ladder create --variant V --bots a,b,c [--format round_robin] [--deals N | --matches N]
                          [--tc 5+0.1] [--seed N] [--start-when-connected [--connect-timeout S]]  (prints the id)
    bummerl ladder list | watch ID | leaderboard ID [--pooled] | crosstable ID
    bummerl ladder games ID [--state planned|running|finished] | stop ID | pause ID | resume ID
"""

from __future__ import annotations

import argparse
import asyncio
from typing import Any

from . import ladder_run, organizer
from .common import FORMATS, positive_int, server_flags
from .pairings import staged_flags


def add_parser(sub: Any) -> None:
    lad = sub.add_parser("ladder", help="run a ladder locally, or create, follow and manage ladders on a server")
    lsub = lad.add_subparsers(dest="ladder_cmd", required=True)
    ladder_run.add_parsers(lsub)
    add_organizer_parsers(lsub)


def run(args: argparse.Namespace) -> int:
    if args.ladder_cmd == "run":
        return asyncio.run(ladder_run.ladder_run(args))
    if args.ladder_cmd == "export":
        return asyncio.run(ladder_run.ladder_export(args))
    return organizer.dispatch(args)


def add_organizer_parsers(lsub: Any) -> None:
    """The ladder commands of :mod:`.organizer` (create, list, watch, ..., resume)."""
    p = lsub.add_parser("create", help="create a ladder on a server (admin); prints its id")
    p.add_argument("--variant", default="schnapsen-at", help="variant id or alias (default schnapsen-at)")
    p.add_argument("--bots", required=True, help="comma-separated registered bot names (or ids)")
    p.add_argument("--name", default="", help="ladder name (default: its id)")
    p.add_argument("--format", choices=list(FORMATS), default="round_robin", help="default round_robin")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--deals", type=positive_int, default=0, help="single-deal games: N duplicate pairs (sets) per pairing "
                                                        "(table), i.e. 2N games a pair (6N or 24N a table)")
    g.add_argument("--matches", type=positive_int, default=1, help="whole matches per pairing (table), duplicated likewise "
                                                          "(default 1)")
    p.add_argument("--no-duplicate", action="store_true", help="no duplicate deals (default: duplicate)")
    staged_flags(p)
    p.add_argument("--tc", default=None, help="time control in seconds, e.g. 5+0.1 or move=2 (default none)")
    p.add_argument("--timeout-policy", default="forfeit-match",
                   choices=["forfeit-match", "forfeit-deal", "default-move"], help="default forfeit-match")
    p.add_argument("--concurrency", type=positive_int, default=4, help="games at once (default 4)")
    p.add_argument("--sprt", default=None, help="with --format sprt: elo0=0,elo1=10,alpha=0.05,beta=0.05")
    p.add_argument("--option", action="append", default=[], help="table option name=value (repeatable)")
    p.add_argument("--seed", type=int, default=None,
                   help="seed of the schedule and decks, as `ladder run --seed` (default: secret random)")
    p.add_argument("--start-when-connected", action="store_true",
                   help="start no game until every bot is connected (default: start at once)")
    p.add_argument("--connect-timeout", type=float, default=0.0, metavar="SECONDS",
                   help="with --start-when-connected: start anyway after this long (default 600)")
    server_flags(p, admin=True)
    server_flags(lsub.add_parser("list", help="every ladder with its progress and absent bots"))
    for cmd, what in (("watch", "follow a ladder live: progress, standings, last results (Ctrl-C to leave)"),
                      ("crosstable", "score of every bot against every other"),
                      ("leaderboard", "ratings and pair statistics")):
        p = lsub.add_parser(cmd, help=what)
        p.add_argument("id", help="ladder id")
        if cmd == "leaderboard":
            p.add_argument("--pooled", action="store_true", help="over every ladder of the same rating pool")
        server_flags(p)
    p = lsub.add_parser("games", help="the games of a ladder: planned (upcoming pairings), running, finished")
    p.add_argument("id", help="ladder id")
    p.add_argument("--state", choices=["planned", "running", "finished"], default=None, help="default: all")
    server_flags(p)
    p = lsub.add_parser("pairings", help="Swiss standings with tiebreaks and each round's pairings; a knockout's bracket")
    p.add_argument("id", help="ladder id")
    p.add_argument("--round", type=positive_int, default=0, help="only this round (1 = first)")
    server_flags(p)
    p = lsub.add_parser("bracket", help="a knockout ladder's bracket")
    p.add_argument("id", help="ladder id")
    server_flags(p)
    for cmd, what in (("stop", "stop a ladder (admin): running games end as abandoned"),
                      ("pause", "pause a ladder (admin): no new game starts"),
                      ("resume", "resume a paused ladder (admin)")):
        p = lsub.add_parser(cmd, help=what)
        p.add_argument("id", help="ladder id")
        server_flags(p, admin=True)


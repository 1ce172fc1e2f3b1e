"""``bummerl ladder run | export``: ladders from the command line.

    bummerl ladder run --variant schnapsen-at --bots greedy,random,strong --deals 100 --tc 5+0.1 [--json]
    bummerl ladder run --format sprt --bots greedy,random --sprt elo0=0,elo1=10 --deals 2000
    bummerl ladder run --variant bauernschnapsen --bots greedy,random,greedy,random --deals 2
    bummerl ladder export --ladder ID --server HOST:PORT > records.jsonl

``ladder run`` starts a local server (embedded Valkey) unless ``--server`` is given, registers one
bot per ``--bots`` entry (bundled names or ``exec:COMMAND``), runs each as a connected bot in this
process, follows the ladder with a live progress bar (matches done, ETA, current leader) on
stderr, and prints the leaderboard; with ``--json`` the last stdout line is
``{"leaderboard": [...], "pairs": [...]}``. A 3- or 4-seat variant seats that many of the bots a
game (every subset of them, or the first bot with every subset of the others for the gauntlet):
``--deals N`` plays N duplicate sets of single deals per table (6 or 24 games each: every seating
arrangement), the table shows each bot's score (shared places half) and the pairs table the
head-to-head of two bots over the games they sat in as opponents.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import json
import logging
import os
import re
import secrets
import sys
from collections.abc import Mapping
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from bummerl.app import Runtime
from bummerl.bots import BOTS, parse_bot_spec
from bummerl.bots import named_specs as _named_specs
from bummerl.config import Settings
from bummerl_client import AsyncClient, BummerlError
from bummerl_client.botrunner import run_bot
from bummerl_client.specs import bot_from_spec, bot_specs

from . import transcript
from .common import (
    FORMATS,
    SafeTable,
    elo_cell,
    finite,
    fmt,
    leaderboard_table,
    out_console,
    page_link,
    positive_int,
    safe,
    server_of,
    set_word,
    sprt_fields,
    time_control_fields,
)
from .pairings import STAGED, pairings_tables, plan_fields, staged_flags


def named_specs(text: str) -> list[tuple[str, str]]:
    """``--bots`` with optional names (:func:`bummerl.bots.named_specs` over the bundled bots):
    ``"mine=exec:./bot,ref=strong:samples=32,greedy"`` ->
    ``[("mine", "exec:./bot"), ("ref", "strong:samples=32"), ("", "greedy")]``."""
    return _named_specs(text, frozenset(BOTS))


def _bot_name(spec: str, i: int, tag: str) -> str:
    """The name a bot of ``ladder run`` without a NAME= is registered under (and deleted at the
    end): its spec's label (:meth:`BotSpec.label`), the run's index and tag."""
    base = re.sub(r"[^A-Za-z0-9_.+-]+", "-", parse_bot_spec(spec).label())
    return f"{base.strip('-')[:40] or 'bot'}-{i}-{tag}"


def later_leg_json(e: Mapping[str, Any]) -> dict[str, Any]:
    """``LeaderboardEntry.later_leg`` with plain numbers (proto3 JSON leaves zeros out)."""
    ll = e.get("later_leg") or {}
    return {"sets": int(ll.get("sets") or 0), "mean": float(ll.get("mean") or 0.0),
            "ci95_low": float(ll.get("ci95_low") or 0.0), "ci95_high": float(ll.get("ci95_high") or 0.0),
            "flagged": bool(ll.get("flagged"))}


def final_json(board: Mapping[str, Any], names: dict[str, str]) -> dict[str, Any]:
    """The ``--json`` line: leaderboard entries and pair statistics by bot name."""
    entries = [{"name": e["name"], "mu": float(e["mu"]), "sigma": float(e["sigma"]), "ordinal": float(e["ordinal"]),
                "games": int(e.get("games", 0)), "wins": int(e.get("wins", 0)), "losses": int(e.get("losses", 0)),
                "draws": int(e.get("draws", 0)), "score": float(e.get("score", 0.0)), "deals_won": int(e.get("deals_won", 0)),
                "deals_lost": int(e.get("deals_lost", 0)), "later_leg": later_leg_json(e)}
               for e in board.get("entries", [])]
    pairs = [{"a": names.get(p["a"], p["a"]), "b": names.get(p["b"], p["b"]), "elo": finite(p["elo"]),
              "elo_ci95": finite(p["elo_ci95"]), "los": float(p["los"]), "deal_pairs": int(p.get("deal_pairs", 0)),
              "games": int(p.get("games", 0)), "sprt_llr": float(p.get("sprt_llr", 0.0)),
              "sprt_result": p.get("sprt_result", "")}
             for p in board.get("pairs", [])]
    return {"leaderboard": entries, "pairs": pairs}


def _pairs_table(board: Mapping[str, Any], names: dict[str, str], seats: int = 2) -> Table:
    """Pair statistics; with 3 or 4 ``seats`` the head-to-head placements of two bots over the
    games they sat in as opponents (units: complete duplicate sets)."""
    title = "Pairs (Elo of a over b, 95% CI; LOS)"
    if seats > 2:
        title = "Head to head as opponents (Elo of a placing ahead of b, 95% CI; LOS)"
    t = SafeTable(title=title)
    for col in ("a", "b", "Elo +/- 95% CI", "LOS", set_word(seats), "games", "SPRT"):
        t.add_column(col)
    for p in board.get("pairs", []):
        # as `ladder leaderboard` and the ladder page show it: n/a below MIN_PAIRS_FOR_ELO pairs (sets)
        t.add_row(names.get(p["a"], p["a"]), names.get(p["b"], p["b"]), elo_cell(p, seats),
                  fmt(p["los"], ".3f"), str(p.get("deal_pairs", 0)),
                  str(p.get("games", 0)), p.get("sprt_result", "") or "-")
    return t


async def _run(args: argparse.Namespace, target: str, admin: str | None) -> dict[str, Any]:
    named = named_specs(args.bots)
    specs = [spec for _, spec in named]
    bot_specs(",".join(specs), "bummerl ladder run")  # checks every spec (one line on a bad one)
    if args.format == "arena" and not args.minutes:
        raise SystemExit("bummerl ladder run: --format arena needs --minutes M (how long it pairs the bots)")
    if len(specs) < 2:
        raise SystemExit("bummerl ladder run: --bots needs at least two bots, e.g. greedy,random")
    err = Console(stderr=True)
    tc = None
    if args.tc:
        tc = time_control_fields(args.tc, "bummerl ladder run")
    tag = secrets.token_hex(3)
    async with AsyncClient(target) as c:
        await c.wait_ready(15)
        regs = []
        throwaway: list[str] = []  # bots this run registered under a made-up name: deleted at the end
        for i, (name, spec) in enumerate(named):
            if not name:
                regs.append(await c.register_bot(_bot_name(spec, i, tag), f"bummerl ladder run: {spec}",
                                                 admin_token=admin))
                throwaway.append(regs[-1]["bot_id"])
                continue
            try:  # a named bot keeps its identity across runs (pooled ratings): a new token for it
                regs.append(await c.register_bot(name, f"bummerl ladder run: {spec}", admin_token=admin))
            except BummerlError as e:
                if "already registered" not in e.details:
                    raise
                old = next(b for b in await c.list_bots() if b["name"] == name and not b.get("deleted"))
                regs.append(await c.rotate_bot_token(old["bot_id"], admin_token=admin))
        names = {r["bot_id"]: r["name"] for r in regs}
        stop = asyncio.Event()
        runners = [asyncio.create_task(run_bot(c, r["bot_token"], functools.partial(bot_from_spec, spec, i), stop=stop))
                   for i, (spec, r) in enumerate(zip(specs, regs, strict=True))]
        ladder_format = FORMATS[args.format]
        fields: dict[str, Any] = {
            "name": args.name or f"{args.variant} {args.format}", "variant": args.variant,
            "bot_ids": [r["bot_id"] for r in regs], "format": ladder_format,
            "duplicate_deals": not args.no_duplicate,
            **plan_fields(args.format, args.deals or args.matches, args.rounds, args.seeding, len(regs),
                          "bummerl ladder run", args.minutes),
            "deals_per_game": 1 if args.deals else 0, "timeout_policy": args.timeout_policy,
            "concurrency": args.concurrency, "options": dict(o.split("=", 1) for o in args.option),
        }
        if tc:
            fields["time_control"] = tc
        if args.format == "sprt":
            fields["sprt"] = sprt_fields(args.sprt)
        if args.seed is not None:
            fields["seed"] = args.seed
        try:
            lad = await c.create_ladder(admin_token=admin, **fields)
        except BummerlError as e:
            stop.set()
            await asyncio.gather(*runners, return_exceptions=True)
            raise SystemExit(f"bummerl ladder run: {e.details}") from None
        lid = lad["ladder_id"]
        seats = int(lad.get("num_players") or 2)
        if getattr(args, "web", None) and not args.json:
            err.print(f"follow it: {page_link(args.web, 'ladder', lid)}")
        leader = "-"
        board: Mapping[str, Any] = {}
        with Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                      TimeRemainingColumn(), TextColumn("leader: {task.fields[leader]}"), console=err,
                      disable=args.quiet) as progress:
            task = progress.add_task(f"ladder {lid}", total=int(lad["matches_total"]), leader=leader)
            async for ev in c.stream_ladder(lid):
                if ev["type"] == "result":
                    board = await c.leaderboard(lid)
                    if board.get("entries"):
                        leader = safe(board["entries"][0]["name"]).replace("[", "\\[")
                    progress.update(task, advance=1, leader=leader)
                elif ev["type"] == "started" and args.format == "arena":  # paired as they come
                    progress.update(task, total=int((await c.ladder(lid))["matches_total"]))
                elif ev["type"] == "stage":  # Swiss, knockout: the next round is planned
                    progress.update(task, total=int((await c.ladder(lid))["matches_total"]))
                elif ev["type"] == "finished":
                    board = ev.get("leaderboard") or await c.leaderboard(lid)
                    played = int((await c.ladder(lid))["matches_played"])
                    progress.update(task, completed=played, total=played, leader=leader)
        stop.set()
        await asyncio.gather(*runners, return_exceptions=True)
        for bot_id in throwaway:  # results stay in the ladder; the throwaway bots leave the server
            with contextlib.suppress(BummerlError):
                await c.delete_bot(bot_id, admin_token=admin)
        out = final_json(board, names)
        out["ladder_id"] = lid
        pairings = await c.pairings(lid) if args.format in STAGED else None
        if pairings is not None:
            out["pairings"] = pairings
        if not args.json:
            con = out_console()
            if pairings is not None:  # the event's own standings first: Swiss points, the bracket
                con.print(pairings_tables(pairings))
            con.print(leaderboard_table(board, names, seats))
            con.print(_pairs_table(board, names, seats))
            if args.format == "sprt" and board.get("pairs"):
                p = board["pairs"][0]
                verdict = {"H1": f"H1 accepted: {names[p['a']]} is stronger than {names[p['b']]} by >= elo1",
                           "H0": f"H0 accepted: {names[p['a']]} is not stronger than {names[p['b']]} by elo1"}.get(
                    p["sprt_result"], "undecided after the maximum number of games")
                con.print(f"SPRT: {verdict} (LLR {fmt(p['sprt_llr'], '.2f')})")
            played = int((await c.ladder(lid))["matches_played"])
            con.print(f"ladder {lid}: {played} games" + (f" of {seats} seats" if seats > 2 else ""))
        return out


async def ladder_run(args: argparse.Namespace) -> int:
    if args.server:
        out = await _run(args, args.server, args.admin_token or os.environ.get("BUMMERL_ADMIN_TOKEN"))
    else:
        logging.basicConfig(level=logging.ERROR)
        settings = Settings.from_env(port=0, http_port=0, metrics_port=0, reaper_poll_ms=10)
        async with Runtime(settings) as rt:
            out = await _run(args, rt.target, settings.admin_token)
    if args.json:
        print(json.dumps(out))
    return 0


async def ladder_export(args: argparse.Namespace) -> int:
    async with AsyncClient(server_of(args)) as c:
        await c.wait_ready(15)
        out = open(args.out, "w", encoding="utf-8") if args.out else sys.stdout  # noqa: SIM115
        token = args.admin_token or os.environ.get("BUMMERL_ADMIN_TOKEN")
        try:
            rows = []
            for r in await c.ladder_matches(args.ladder):
                rec = await c.match_record(r["match_id"], token=token)
                rows.append({"ladder_id": args.ladder, "game": r["game"], "pair": r["pair"], "leg": r["leg"],
                             "bots": r["bots"], "record": rec})
                if args.format == "jsonl":
                    out.write(json.dumps(rows[-1]) + "\n")
                elif args.format == "text":
                    out.write(f"=== game {r['game']} (set {r['pair']}, leg {r['leg']})\n{safe(transcript.text(rec), keep_newlines=True)}\n")
            if args.format == "json":
                out.write(json.dumps(rows, indent=2) + "\n")
        finally:
            if out is not sys.stdout:
                out.close()
    return 0


def add_parsers(lsub: Any) -> None:
    """Add ``run`` and ``export`` to ``bummerl ladder``."""
    r = lsub.add_parser("run", help="run a ladder (local server unless --server)")
    r.add_argument("--variant", default="schnapsen-at", help="variant id or alias (default schnapsen-at)")
    r.add_argument("--bots", required=True,
                   help="comma-separated, optionally named (NAME=SPEC keeps one bot identity across runs for "
                        "pooled ratings): random, greedy, strong[:budget_ms=50,...], exec:COMMAND, e.g. "
                        "\"mine=exec:./bot,ref=strong:samples=32,greedy\"")
    r.add_argument("--format", choices=list(FORMATS), default="round_robin",
                   help="default round_robin")
    g = r.add_mutually_exclusive_group()
    g.add_argument("--deals", type=positive_int, default=0,
                   help="single-deal games: N duplicate pairs per pairing = 2N games (3-4 seats: N duplicate sets "
                        "per table = 6N or 24N games; with --no-duplicate N games)")
    g.add_argument("--matches", type=positive_int, default=1,
                   help="whole matches (Bummerls) per pairing, duplicated likewise: 2N games (default 1)")
    r.add_argument("--no-duplicate", action="store_true",
                   help="do not replay decks with the seats swapped (3-4 seats: under every seating)")
    staged_flags(r)
    r.add_argument("--tc", default=None, help="time control in seconds, e.g. 5+0.1 or move=1 (default none)")
    r.add_argument("--timeout-policy", default="forfeit-match", choices=["forfeit-match", "forfeit-deal", "default-move"],
                   help="what happens when a bot runs out of time (default forfeit-match)")
    r.add_argument("--sprt", default=None, help="elo0=0,elo1=10,alpha=0.05,beta=0.05 (format sprt; these defaults)")
    r.add_argument("--concurrency", type=positive_int, default=4, help="games at once (default 4)")
    r.add_argument("--option", action="append", default=[], help="table option name=value (repeatable)")
    r.add_argument("--name", default=None, help="ladder name (default: variant and format)")
    r.add_argument("--seed", type=int, default=None, help="seed of the schedule and decks (default: secret random)")
    r.add_argument("--server", default=None, help="HOST:PORT of a running server (default: start a local one)")
    r.add_argument("--web", default=os.environ.get("BUMMERL_WEB_URL"),
                   help="with --server: base URL of its web pages (e.g. http://HOST:8080) to print the ladder's link "
                        "(default $BUMMERL_WEB_URL)")
    r.add_argument("--admin-token", default=None, help="admin token of --server (default: BUMMERL_ADMIN_TOKEN)")
    r.add_argument("--json", action="store_true", help="last line: the final leaderboard as JSON")
    r.add_argument("--quiet", action="store_true", help="no progress bar")
    e = lsub.add_parser("export", help="the match records of a ladder (JSON lines, JSON or transcripts)")
    e.add_argument("--ladder", required=True, help="ladder id")
    e.add_argument("--server", default=None, help="HOST:PORT (default: BUMMERL_SERVER or localhost:50051)")
    e.add_argument("--out", default=None, help="file to write (default: standard output)")
    e.add_argument("--format", choices=["jsonl", "json", "text"], default="jsonl",
                   help="jsonl (default): one {ladder_id, game, pair, leg, bots, record} a line; json: one array; "
                        "text: a readable transcript per game (bummerl match show)")
    e.add_argument("--admin-token", default=None,
                   help="admin token: full records even of duplicate sets still running (default: "
                        "BUMMERL_ADMIN_TOKEN)")

"""``bummerl ladder run | export`` and ``bummerl bot run``: ladders from the command line.

    bummerl ladder run --variant schnapsen-at --bots greedy,random,strong --deals 100 --tc 5+0.1 [--json]
    bummerl ladder run --format sprt --bots greedy,random --sprt elo0=0,elo1=10 --deals 2000
    bummerl ladder run --variant bauernschnapsen --bots greedy,random,greedy,random --deals 2
    bummerl ladder export --ladder ID --server HOST:PORT > records.jsonl
    bummerl bot run --bot greedy --token <bot token> --server HOST:PORT

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
import json
import math
import os
import re
import secrets
import sys
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from bummerl import cli_organize
from bummerl.config import Settings


def _finite(x: Any) -> float | None:
    """A proto double from JSON (``"Infinity"`` arrives as a string) as a float; None if infinite."""
    v = float(x)
    return v if math.isfinite(v) else None


def _fmt(x: Any, spec: str = ".1f") -> str:
    v = _finite(x)
    return "inf" if v is None else format(v, spec)


def time_control_fields(text: str, prog: str) -> dict[str, Any]:
    """A ``--tc`` text (seconds, e.g. ``5+0.1`` or ``move=2``: :meth:`TimeControl.parse`) as the
    ``time_control`` of a CreateLadder request (milliseconds, the scope as its proto enum name).
    SystemExit naming ``prog`` and the flag for a bad one."""
    from bummerl.core.clocks import TimeControl, TimeControlError

    try:
        tc = TimeControl.parse(text).to_dict()
    except TimeControlError as e:
        raise SystemExit(f"{prog}: --tc: {e}") from None
    return {**tc, "scope": "TIME_CONTROL_SCOPE_" + str(tc["scope"]).upper()}


def _sprt(text: str | None) -> dict[str, float]:
    out = {"elo0": 0.0, "elo1": 10.0, "alpha": 0.05, "beta": 0.05}
    for part in (text or "").split(","):
        if not part.strip():
            continue
        k, eq, v = part.partition("=")
        if not eq or k.strip() not in out:
            raise SystemExit(f"bummerl ladder: --sprt takes elo0=,elo1=,alpha=,beta= (got {part!r})")
        try:
            out[k.strip()] = float(v)
        except ValueError:
            raise SystemExit(f"bummerl ladder: --sprt {k.strip()} must be a number, got {v!r}") from None
    return out


_NAMED = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9_.:+-]{0,63}?)=(.+)$")


def named_specs(text: str) -> list[tuple[str, str]]:
    """``--bots`` with optional names: ``"mine=exec:./bot,ref=strong:samples=32,greedy"`` ->
    ``[("mine", "exec:./bot"), ("ref", "strong:samples=32"), ("", "greedy")]``. An item
    ``NAME=SPEC`` starts a named bot when SPEC is a bundled bot (``random``, ``greedy``,
    ``strong...``), ``exec:...`` or ``py:...``; any other ``key=value`` item continues the options of the
    bot before it (``strong:budget_ms=50,samples=8``)."""
    from bummerl_client.bots import BOTS, split_bot_specs

    out: list[tuple[str, str]] = []
    for item in text.split(","):
        m = _NAMED.match(item)
        kind = m.group(2).strip().split(":", 1)[0] if m else ""
        if m and (kind in BOTS or kind in ("exec", "py")):
            out.append((m.group(1), m.group(2).strip()))
        elif out:
            merged = split_bot_specs(f"{out[-1][1]},{item}")
            if len(merged) == 1:
                out[-1] = (out[-1][0], merged[0])
            elif item.strip():
                out.append(("", item.strip()))
        elif item.strip():
            out.append(("", item.strip()))
    return out


def _bot_name(spec: str, i: int, tag: str) -> str:
    if spec.startswith("py:"):  # py:FILE.py:CLASS -> the class
        spec = spec.rsplit(":", 1)[-1]
    base = re.sub(r"[^A-Za-z0-9_.+-]+", "-", spec.removeprefix("exec:").split()[0] if spec.startswith("exec:") else spec)
    return f"{base.strip('-')[:40] or 'bot'}-{i}-{tag}"


def final_json(board: dict[str, Any], names: dict[str, str]) -> dict[str, Any]:
    """The ``--json`` line: leaderboard entries and pair statistics by bot name."""
    entries = [{"name": e["name"], "mu": float(e["mu"]), "sigma": float(e["sigma"]), "ordinal": float(e["ordinal"]),
                "games": int(e.get("games", 0)), "wins": int(e.get("wins", 0)), "losses": int(e.get("losses", 0)),
                "draws": int(e.get("draws", 0)), "score": float(e.get("score", 0.0)), "deals_won": int(e.get("deals_won", 0)),
                "deals_lost": int(e.get("deals_lost", 0))} for e in board.get("entries", [])]
    pairs = [{"a": names.get(p["a"], p["a"]), "b": names.get(p["b"], p["b"]), "elo": _finite(p["elo"]),
              "elo_ci95": _finite(p["elo_ci95"]), "los": float(p["los"]), "deal_pairs": int(p.get("deal_pairs", 0)),
              "games": int(p.get("games", 0)), "sprt_llr": float(p.get("sprt_llr", 0.0)),
              "sprt_result": p.get("sprt_result", "")}
             for p in board.get("pairs", [])]
    return {"leaderboard": entries, "pairs": pairs}


def _table(board: dict[str, Any], names: dict[str, str], seats: int = 2) -> Table:
    """The leaderboard; with 3 or 4 ``seats`` also each bot's score (the sum of its game scores:
    the share of the other teams placed behind it, shared places half), W = alone (with the
    partner) in first place, D = first place shared."""
    title = "Leaderboard (openskill: ordinal = mu - 3 sigma)"
    if seats > 2:
        title = f"Leaderboard, {seats} seats (openskill by placements, ordinal = mu - 3 sigma)"
    t = Table(title=title, caption="deals won: of the deals played to their end (a game lost to a bot's fault or "
                                   "timeout may end before its first deal does)")
    cols = ["#", "bot", "ordinal", "mu", "sigma", "games", *(["score"] if seats > 2 else []), "W", "L", "D", "deals won"]
    for col in cols:
        t.add_column(col, justify="right" if col not in ("bot",) else "left")
    for e in board.get("entries", []):
        score = [_fmt(e.get("score", 0.0), ".1f")] if seats > 2 else []
        t.add_row(str(e["rank"]), e["name"], _fmt(e["ordinal"], ".2f"), _fmt(e["mu"], ".2f"), _fmt(e["sigma"], ".2f"),
                  str(e.get("games", 0)), *score, str(e.get("wins", 0)), str(e.get("losses", 0)),
                  str(e.get("draws", 0)), f"{e.get('deals_won', 0)}/{e.get('deals_won', 0) + e.get('deals_lost', 0)}")
    return t


def _pairs_table(board: dict[str, Any], names: dict[str, str], seats: int = 2) -> Table:
    """Pair statistics; with 3 or 4 ``seats`` the head-to-head placements of two bots over the
    games they sat in as opponents (units: complete duplicate sets)."""
    title = "Pairs (Elo of a over b, 95% CI; LOS)"
    if seats > 2:
        title = "Head to head as opponents (Elo of a placing ahead of b, 95% CI; LOS)"
    t = Table(title=title)
    for col in ("a", "b", "Elo +/- 95% CI", "LOS", "pairs" if seats == 2 else "sets", "games", "SPRT"):
        t.add_column(col)
    for p in board.get("pairs", []):
        # as `ladder leaderboard` and the ladder page show it: n/a below MIN_PAIRS_FOR_ELO pairs
        t.add_row(names.get(p["a"], p["a"]), names.get(p["b"], p["b"]), cli_organize.elo_cell(p),
                  _fmt(p["los"], ".3f"), str(p.get("deal_pairs", 0)),
                  str(p.get("games", 0)), p.get("sprt_result", "") or "-")
    return t


async def _run(args: argparse.Namespace, target: str, admin: str | None) -> dict[str, Any]:
    from bummerl_client import AsyncClient, BummerlError
    from bummerl_client.__main__ import bot_from_spec, bot_specs
    from bummerl_client.botrunner import run_bot

    named = named_specs(args.bots)
    specs = [spec for _, spec in named]
    bot_specs(",".join(specs), "bummerl ladder run")  # checks every spec (one line on a bad one)
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
        runners = [asyncio.create_task(run_bot(c, r["bot_token"], lambda s=spec, k=i: bot_from_spec(s, k), stop=stop))
                   for i, (spec, r) in enumerate(zip(specs, regs, strict=True))]
        fmt = {"round_robin": "LADDER_FORMAT_ROUND_ROBIN", "gauntlet": "LADDER_FORMAT_GAUNTLET",
               "sprt": "LADDER_FORMAT_SPRT"}[args.format]
        fields: dict[str, Any] = {
            "name": args.name or f"{args.variant} {args.format}", "variant": args.variant,
            "bot_ids": [r["bot_id"] for r in regs], "format": fmt,
            "rounds": args.deals or args.matches, "duplicate_deals": not args.no_duplicate,
            "deals_per_game": 1 if args.deals else 0, "timeout_policy": args.timeout_policy,
            "concurrency": args.concurrency, "options": dict(o.split("=", 1) for o in args.option),
        }
        if tc:
            fields["time_control"] = tc
        if args.format == "sprt":
            fields["sprt"] = _sprt(args.sprt)
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
            err.print(f"follow it: {args.web.rstrip('/')}/#/ladder/{lid}")
        leader = "-"
        board: dict[str, Any] = {}
        with Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                      TimeRemainingColumn(), TextColumn("leader: {task.fields[leader]}"), console=err,
                      disable=args.quiet) as progress:
            task = progress.add_task(f"ladder {lid}", total=int(lad["matches_total"]), leader=leader)
            async for ev in c.stream_ladder(lid):
                if ev["type"] == "result":
                    board = await c.leaderboard(lid)
                    if board.get("entries"):
                        leader = board["entries"][0]["name"]
                    progress.update(task, advance=1, leader=leader)
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
        if not args.json:
            con = cli_organize.out_console()
            con.print(_table(board, names, seats))
            con.print(_pairs_table(board, names, seats))
            if args.format == "sprt" and board.get("pairs"):
                p = board["pairs"][0]
                verdict = {"H1": f"H1 accepted: {names[p['a']]} is stronger than {names[p['b']]} by >= elo1",
                           "H0": f"H0 accepted: {names[p['a']]} is not stronger than {names[p['b']]} by elo1"}.get(
                    p["sprt_result"], "undecided after the maximum number of games")
                con.print(f"SPRT: {verdict} (LLR {_fmt(p['sprt_llr'], '.2f')})")
            played = int((await c.ladder(lid))["matches_played"])
            con.print(f"ladder {lid}: {played} games" + (f" of {seats} seats" if seats > 2 else ""))
        return out


async def ladder_run(args: argparse.Namespace) -> int:
    if args.server:
        out = await _run(args, args.server, args.admin_token or os.environ.get("BUMMERL_ADMIN_TOKEN"))
    else:
        import logging

        from bummerl.app import Runtime

        logging.basicConfig(level=logging.ERROR)
        settings = Settings.from_env(port=0, http_port=0, metrics_port=0, reaper_poll_ms=10)
        async with Runtime(settings) as rt:
            out = await _run(args, rt.target, settings.admin_token)
    if args.json:
        print(json.dumps(out))
    return 0


async def ladder_export(args: argparse.Namespace) -> int:
    from bummerl import transcript
    from bummerl_client import AsyncClient

    async with AsyncClient(cli_organize.server_of(args)) as c:
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
                    out.write(f"=== game {r['game']} (set {r['pair']}, leg {r['leg']})\n{transcript.text(rec)}\n")
            if args.format == "json":
                out.write(json.dumps(rows, indent=2) + "\n")
        finally:
            if out is not sys.stdout:
                out.close()
    return 0


async def bot_run(args: argparse.Namespace) -> int:
    from bummerl_client import AsyncClient
    from bummerl_client.__main__ import bot_from_spec
    from bummerl_client.botrunner import run_bot

    token = args.token or os.environ.get("BUMMERL_BOT_TOKEN", "")
    if not token:
        raise SystemExit("bummerl bot run: no bot token: pass --token or set BUMMERL_BOT_TOKEN")
    try:
        bot_from_spec(args.bot)  # fail early, in one line, on an unknown bot or option
    except ValueError as e:
        raise SystemExit(f"bummerl bot run: {e}") from None

    def done(s: dict[str, Any]) -> None:
        fault = f", bot fault {s['fault']}" if s.get("fault") else ""
        print(f"match {s['match_id']} seat {s['seat']}: {s['outcome']} ({s.get('reason', '')}), "
              f"game points {s.get('game_points')}{fault}", flush=True)

    def status(line: str) -> None:
        print(line, flush=True)

    kind = args.bot.split(":", 1)[0]  # never the command line of an exec: bot (it may hold secrets)
    server = cli_organize.server_of(args)
    async with AsyncClient(server) as c:
        try:
            await c.wait_ready(15)
        except Exception:  # noqa: BLE001 - not up yet: run_bot retries and says so
            status(f"server {server} unreachable: retrying")
        await run_bot(c, token, lambda: bot_from_spec(args.bot, process_model=args.process_model), on_done=done,
                      on_status=status,
                      client_info=f"bummerl bot run ({kind})")
    return 0


def bot_check(args: argparse.Namespace) -> int:
    """``bummerl bot check``: :class:`bummerl_client.harness.BotTestHarness`; exit 1 on any fault."""
    from dataclasses import asdict

    from bummerl.rules import UnknownVariantError, find_variant
    from bummerl_client.__main__ import bot_from_spec
    from bummerl_client.harness import BotTestHarness

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
            print(f"FAULT {p.variant} seat {p.seat} version {p.version}: {p.kind}: {p.detail}")
        print(f"{'the bot complies' if report.ok else cli_organize.counted(len(report.problems), 'fault')}: "
              f"{cli_organize.counted(report.matches, 'match', 'matches')} played to the end, "
              f"{cli_organize.counted(report.decisions, 'decision')}; slowest decision "
              f"{max(report.slowest_ms.values(), default=0):.0f} ms")
    return 0 if report.ok else 1


def bot_logs(args: argparse.Namespace) -> int:
    """Print each seat's stderr log of a match (the stdio bridge's, :mod:`bummerl_client.stdio`)."""
    from pathlib import Path

    from bummerl_client.stdio import default_log_dir, match_log_dir

    folder = match_log_dir(args.match_id, Path(args.dir) if args.dir else default_log_dir())
    logs = sorted(folder.glob("seat*.log")) if folder.is_dir() else []
    if not logs:
        raise SystemExit(f"bummerl bot logs: no bot log of match {args.match_id} in {folder.parent}")
    for log in logs:
        print(f"==> {log} <==")
        sys.stdout.write(log.read_text(encoding="utf-8", errors="replace"))
    return 0


def add_parsers(sub: Any) -> None:
    """Add ``ladder`` and ``bot`` to the ``bummerl`` command line."""
    lad = sub.add_parser("ladder", help="run a ladder locally, or create, follow and manage ladders on a server")
    lsub = lad.add_subparsers(dest="ladder_cmd", required=True)
    r = lsub.add_parser("run", help="run a ladder (local server unless --server)")
    r.add_argument("--variant", default="schnapsen-at", help="variant id or alias (default schnapsen-at)")
    r.add_argument("--bots", required=True,
                   help="comma-separated, optionally named (NAME=SPEC keeps one bot identity across runs for "
                        "pooled ratings): random, greedy, strong[:budget_ms=50,...], exec:COMMAND, e.g. "
                        "\"mine=exec:./bot,ref=strong:samples=32,greedy\"")
    r.add_argument("--format", choices=["round_robin", "gauntlet", "sprt"], default="round_robin",
                   help="default round_robin")
    g = r.add_mutually_exclusive_group()
    g.add_argument("--deals", type=cli_organize.positive_int, default=0,
                   help="single-deal games: N duplicate pairs per pairing = 2N games (3-4 seats: N duplicate sets "
                        "per table = 6N or 24N games; with --no-duplicate N games)")
    g.add_argument("--matches", type=cli_organize.positive_int, default=1,
                   help="whole matches (Bummerls) per pairing, duplicated likewise: 2N games (default 1)")
    r.add_argument("--no-duplicate", action="store_true",
                   help="do not replay decks with the seats swapped (3-4 seats: under every seating)")
    r.add_argument("--tc", default=None, help="time control in seconds, e.g. 5+0.1 or move=1 (default none)")
    r.add_argument("--timeout-policy", default="forfeit-match", choices=["forfeit-match", "forfeit-deal", "default-move"],
                   help="what happens when a bot runs out of time (default forfeit-match)")
    r.add_argument("--sprt", default=None, help="elo0=0,elo1=10,alpha=0.05,beta=0.05 (format sprt; these defaults)")
    r.add_argument("--concurrency", type=cli_organize.positive_int, default=4, help="games at once (default 4)")
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
    cli_organize.add_ladder_parsers(lsub)
    bot = sub.add_parser("bot", help="connect a bot and play its assigned matches; register and manage bots")
    bsub = bot.add_subparsers(dest="bot_cmd", required=True)
    cli_organize.add_bot_parsers(bsub)
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


def dispatch(args: argparse.Namespace) -> int:
    if cli_organize.handles(args):
        return cli_organize.dispatch(args)
    if args.cmd == "bot" and args.bot_cmd == "logs":
        return bot_logs(args)
    if args.cmd == "bot" and args.bot_cmd == "check":
        return bot_check(args)
    if args.cmd == "bot":
        return asyncio.run(bot_run(args))
    if args.ladder_cmd == "run":
        return asyncio.run(ladder_run(args))
    return asyncio.run(ladder_export(args))

"""``bummerl play``: one match (a Bummerl) between bots, one per seat, through a server (``--server``)
or a local one started for it; a line per deal and the result.

    bummerl play --variant schnapsen-at --bots greedy,random [--server HOST:PORT] [--seed N]
                 [--option name=value ...] [--tc 5+0.1] [--timeout-policy forfeit-match] [--json]

Its exit code is 0 when no bot faulted, else that of ``python -m bummerl_client join`` for the
first fault (3 timeout, 4 an illegal or unparsable answer, 5 a crash).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import sys
from collections.abc import Mapping
from typing import Any

from bummerl.app import Runtime
from bummerl.config import Settings
from bummerl.core.clocks import TimeControl, TimeControlError
from bummerl.rules import UnknownVariantError, find_variant
from bummerl_client import AsyncClient, play_match
from bummerl_client.runner import EXIT_CODES
from bummerl_client.specs import bot_from_spec, bot_specs

from .common import counted, page_link, table_options

CONCEDED = ("resigned", "illegal", "disconnect", "timeout", "abandoned")
"""Match end reasons of a match that did not end at the table (a seat gave up, faulted or timed
out under ``forfeit-match``, or nobody acted): ``bummerl play`` names them in its result line."""


def add_parser(sub: Any) -> None:
    pl = sub.add_parser("play", help="play one match (a Bummerl) between bots, one per seat (2, 3 or 4 by variant), "
                                     "through a server")
    pl.add_argument("--variant", default="schnapsen-at", help="variant id or alias (default schnapsen-at)")
    pl.add_argument("--web", default=os.environ.get("BUMMERL_WEB_URL"),
                    help="with --server: base URL of its web pages (e.g. http://HOST:8080) to print the match's link "
                         "(default $BUMMERL_WEB_URL)")
    pl.add_argument("--bots", default="greedy,random",
                    help="one per seat (2, 3 or 4, as the variant seats), comma-separated: random, greedy, "
                         "strong[:budget_ms=50,samples=N,seed=S], exec:COMMAND (default greedy,random)")
    pl.add_argument("--server", default=None, help="HOST:PORT (default: start a local server)")
    pl.add_argument("--seed", type=int, default=None, help="deck seed (default: secret random)")
    pl.add_argument("--option", action="append", default=[], help="table option name=value (repeatable)")
    pl.add_argument("--json", action="store_true", help="last line: one JSON object with the result")
    pl.add_argument("--tc", default=None, metavar="TC",
                    help="time control in seconds: 5+0.1 (base+increment), move=2 (per move), 60+1,move=5")
    pl.add_argument("--timeout-policy", default="forfeit-match",
                    choices=["forfeit-match", "forfeit-deal", "default-move"],
                    help="what happens when a bot runs out of time (default forfeit-match)")
    pl.add_argument("--admin-token", default=None, help="admin token of --server (default: BUMMERL_ADMIN_TOKEN)")


def run(args: argparse.Namespace) -> int:
    return asyncio.run(play_cmd(args))


def print_deal(res: Mapping[str, Any]) -> None:
    """One line for a finished deal (a ``DealResult`` dict; ``deal_number`` is 0-based)."""
    gp = list(res.get("game_points") or [])
    credited = [s for s, v in enumerate(gp) if v]
    who = "no points" if not credited else ("seat " if len(credited) == 1 else "seats ") + ", ".join(map(str, credited))
    contract = f"{res['contract']} x{res.get('multiplier', 1)}, " if res.get("contract") else ""
    play_off = "play-off, " if res.get("playoff") else ""
    print(f"deal {res.get('deal_number', 0) + 1}: {play_off}{contract}{who} +{max(gp or [0])} ({res.get('reason')}), "
          f"deal points {res.get('deal_points')}, tricks {res.get('tricks_won')}", flush=True)


async def play(client: Any, variant: str, bot_names: list[str], seed: int | None, options: dict[str, str],
               as_json: bool, web: str | None = None, **create_kwargs: Any) -> dict[str, Any]:
    """Play one match of ``bot_names`` (specs) on ``client``'s server, printing its lines (or, with
    ``as_json``, one JSON line); returns the summary."""
    bots = [bot_from_spec(b, None if seed is None else seed + i) for i, b in enumerate(bot_names)]

    def created(match_id: str) -> None:
        if not as_json:
            print(f"{variant}: {' vs '.join(f'{b.name} (seat {i})' for i, b in enumerate(bots))}, match {match_id}",
                  flush=True)
            if web:
                print(f"watch it: {page_link(web, 'match', match_id)}", flush=True)

    rec = await play_match(client, variant, bots, options, seed, on_created=created,
                           on_deal=None if as_json else print_deal, **create_kwargs)
    names = [s["name"] for s in rec["seats"]]
    for f in rec.get("faults", []):
        print(f"bummerl play: seat {f['seat']} ({names[f['seat']]}): bot {f['kind']}: {f['detail']}", file=sys.stderr)
    res = rec["match_result"]
    places = list(res.get("placements") or [])
    firsts = [s for s, p in enumerate(places) if p == 1] or ([res["winner"]] if res["winner"] >= 0 else [])
    summary = {
        "match_id": rec["match_id"], "variant": rec["variant"], "winner": res["winner"],
        "winner_bot": names[firsts[0]] if len(firsts) == 1 else None, "placements": places,
        "winner_seats": firsts,
        "game_points": res["game_points"], "sets_won": res["sets_won"], "deals": len(rec["deals"]),
        "actions": len(rec["actions"]), "reason": res["reason"], "match_schneider": res["match_schneider"],
        "faults": rec.get("faults", []),
    }
    if as_json:
        print(json.dumps(summary))
    else:
        who = ", ".join(f"seat {s} ({names[s]})" for s in firsts) or "nobody"
        early = ""
        if res["reason"] in CONCEDED:  # the match did not end at the table: say how it ended
            early = f"; ended early: {res['reason']}" + "".join(
                f" (seat {f['seat']}'s bot: {f['kind']})" for f in summary["faults"][-1:])
        print(f"result: {who} {'wins' if len(firsts) == 1 else 'win'}, game points {res['game_points']}"
              f"{', sets ' + str(res['sets_won']) if max(res['sets_won']) > 1 else ''}"
              f"{' (Schneider)' if res['match_schneider'] else ''}; {counted(summary['deals'], 'deal')}, "
              f"{counted(summary['actions'], 'action')}{early}")
    return summary


async def play_cmd(args: argparse.Namespace) -> int:
    try:
        seats: int | None = find_variant(args.variant).num_players
    except UnknownVariantError:
        seats = None  # the server names the variants it knows (INVALID_ARGUMENT)
    bots = bot_specs(args.bots, "bummerl play", seats)
    options = table_options(args.option)
    create: dict[str, Any] = {"timeout_policy": args.timeout_policy}
    if args.tc:
        try:
            create["time_control"] = TimeControl.parse(args.tc).to_dict()
        except TimeControlError as e:
            raise SystemExit(f"bummerl play: --tc: {e}") from None
    if args.server:
        async with AsyncClient(args.server) as client:
            try:
                await client.wait_ready(5)
            except TimeoutError:
                raise SystemExit(f"bummerl play: cannot reach the server at {args.server} (no connection in 5 s)") from None
            admin = args.admin_token or Settings.from_env().admin_token
            summary = await play(client, args.variant, bots, args.seed, options, args.json, args.web,
                                 admin_token=admin, **create)
        return play_exit_code(summary)
    logging.basicConfig(level=logging.ERROR)
    settings = Settings.from_env(port=0, http_port=0, metrics_port=0, reaper_poll_ms=10)
    async with Runtime(settings) as rt:
        async with AsyncClient(rt.target) as client:
            summary = await play(client, args.variant, bots, args.seed, options, args.json,
                                 admin_token=settings.admin_token, **create)
    return play_exit_code(summary)


def play_exit_code(summary: dict[str, Any]) -> int:
    """``bummerl play``'s exit code: 0 when no bot faulted, else that of ``bummerl_client join`` for
    the first fault (3 timeout, 4 an illegal or unparsable answer, 5 a crash), also when the
    match went on after it (timeout policy ``default-move`` / ``forfeit-deal``)."""
    faults = summary.get("faults") or []
    return EXIT_CODES.get(faults[0]["kind"], 5) if faults else 0

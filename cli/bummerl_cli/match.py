"""``bummerl match show``: a readable transcript of a match record (:mod:`.transcript`): hands,
tricks, marriages, closing, scores, result and times; or the record itself (``--format json``), or
one JSON object per transcript line (``--format jsonl``). The record comes from a server
(``--server`` and a match id) or a file (``--file``).

    bummerl match show ID --server HOST:PORT [--admin-token T] [--format text|json|jsonl]
    bummerl match show --file RECORD.json

``bummerl match analyse``: where each seat lost its points in a finished match (GetMatchAnalysis,
issue 39): a table per seat (valued decisions, mean and total loss in game points, inaccuracies /
mistakes / blunders by phase) and the worst decisions; or the ``MatchAnalysis`` itself (``--json``).
The server computes it once, in the background: ``--wait S`` asks again (as its retry hint says)
for up to S seconds while it is pending. Exit status 0 when done, 75 while still pending.

    bummerl match analyse ID --server HOST:PORT [--json] [--wait S] [--worst N] [--token T]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from bummerl_client import Client

from . import transcript
from .common import SafeTable, out_console, safe

PENDING_EXIT = 75
"""Exit status of ``match analyse`` while the analysis is still pending (EX_TEMPFAIL)."""


def add_parser(sub: Any) -> None:
    ms = sub.add_parser("match", help="show a match").add_subparsers(dest="match_cmd", required=True)
    show = ms.add_parser("show", help="a readable transcript of a match record: hands, tricks, marriages, "
                                      "closing, scores, result and times",
                         description="Prints a match's record as a transcript (text), as the record itself (json) "
                                     "or one JSON object per transcript line (jsonl). Hands and laid-away cards "
                                     "appear once the record is revealed (docs/ACCESS.md).")
    show.add_argument("match_id", nargs="?", default=None, help="match id (with --server)")
    show.add_argument("--server", default=None, help="HOST:PORT of the server (default: BUMMERL_SERVER)")
    show.add_argument("--file", default=None, help="read the record from this JSON file instead (- = stdin)")
    show.add_argument("--admin-token", default=None,
                      help="admin token: the full record at any time (default: BUMMERL_ADMIN_TOKEN)")
    show.add_argument("--format", choices=["text", "json", "jsonl"], default="text", help="output (default text)")
    an = ms.add_parser("analyse", aliases=["analyze"], help="where each seat lost its points in a finished match",
                       description="The server's post-game analysis of a finished match: each decision valued from "
                                   "what the deciding seat knew (expected game points of every legal action), the "
                                   "loss of the action taken, a summary per seat. Computed once by the server in "
                                   "the background; while it runs the answer is pending (exit status 75).")
    an.add_argument("match_id", help="match id")
    an.add_argument("--server", default=None, help="HOST:PORT of the server (default: BUMMERL_SERVER)")
    an.add_argument("--token", default=None, help="a watch, seat or admin token where the match asks for one "
                                                  "(default: BUMMERL_ADMIN_TOKEN)")
    an.add_argument("--json", action="store_true", help="print the MatchAnalysis JSON")
    an.add_argument("--wait", type=float, default=0.0, metavar="S",
                    help="while pending, ask again for up to S seconds (default 0: ask once)")
    an.add_argument("--worst", type=int, default=10, metavar="N", help="worst decisions listed (default 10)")


def run(args: argparse.Namespace) -> int:
    if args.match_cmd in ("analyse", "analyze"):
        return analyse(args)
    if args.file:
        rec = json.loads(sys.stdin.read() if args.file == "-" else Path(args.file).read_text(encoding="utf-8"))
        rec = rec["record"] if isinstance(rec.get("record"), dict) and "match_id" not in rec else rec
    else:
        server = args.server or os.environ.get("BUMMERL_SERVER")
        if not (server and args.match_id):
            raise ValueError("give a match id and --server HOST:PORT (or --file RECORD.json)")
        with Client(server) as c:
            rec = c.match_record(args.match_id, token=args.admin_token or os.environ.get("BUMMERL_ADMIN_TOKEN"))
    if args.format == "json":
        print(json.dumps(rec, indent=2))
    elif args.format == "jsonl":
        for e in transcript.entries(rec):
            print(json.dumps(e))
    else:
        sys.stdout.write(safe(transcript.text(rec), keep_newlines=True))
    return 0


def fetch_analysis(c: Client, match_id: str, token: str | None, wait_s: float) -> dict[str, Any]:
    """The analysis, asked again after each pending answer's ``retry_after_ms`` until done or
    ``wait_s`` seconds have passed."""
    end = time.monotonic() + max(0.0, wait_s)
    while True:
        got: dict[str, Any] = dict(c.analysis(match_id, token))
        left = end - time.monotonic()
        if got["state"] != "pending" or left <= 0:
            return got
        time.sleep(min(left, max(0.05, int(got.get("retry_after_ms") or 1000) / 1000)))


def analysis_text(a: dict[str, Any], worst: int = 10) -> None:
    """Print the per-seat summary and the ``worst`` decisions of a done analysis (rich tables)."""
    console = out_console()
    seats = a.get("seats") or []
    names = {int(s["seat"]): s.get("name") or f"seat {s['seat']}" for s in seats}
    st = a.get("settings") or {}
    t = SafeTable(title=f"Analysis of match {a['match_id']} (game points lost per decision)",
                  caption=f"{st.get('samples')} worlds per decision, at most {float(st.get('budget_ms') or 0):g} ms each; "
                          f"inaccuracy >= {st.get('inaccuracy')}, mistake >= {st.get('mistake')}, blunder >= "
                          f"{st.get('blunder')}; CPU {float(a.get('cpu_ms') or 0) / 1000:.1f} s")
    for col in ("seat", "name", "decisions", "mean loss", "total loss", "talon open", "talon closed", "endgame"):
        t.add_column(col, justify="left" if col == "name" else "right")
    for s in seats:
        phases = {p["phase"]: f"{p['inaccuracies']}/{p['mistakes']}/{p['blunders']}" for p in s.get("phases") or []}
        t.add_row(str(s["seat"]), s.get("name", ""), str(s["decisions"]), f"{float(s['mean_loss']):.3f}",
                  f"{float(s['total_loss']):.2f}", phases.get("talon_open", ""), phases.get("talon_closed", ""),
                  phases.get("endgame", ""))
    console.print(t)
    console.print("(inaccuracies/mistakes/blunders per phase)")
    bad = sorted((d for d in a.get("decisions") or [] if d.get("valued")), key=lambda d: -float(d["loss"]))[:worst]
    w = SafeTable(title=f"Worst {len(bad)} decisions")
    for col in ("version", "seat", "phase", "played", "best", "loss", "kind"):
        w.add_column(col, justify="right" if col in ("version", "loss") else "left")
    for d in bad:
        best: dict[str, Any] = next((v for v in d.get("values") or [] if v["action_id"] == d["best_action_id"]), {})
        w.add_row(str(d["version"]), names.get(int(d["seat"]), str(d["seat"])), d["phase"], d["action_text"],
                  best.get("action_text", ""), f"{float(d['loss']):.3f}", d.get("kind", ""))
    console.print(w)


def analyse(args: argparse.Namespace) -> int:
    server = args.server or os.environ.get("BUMMERL_SERVER")
    if not server:
        raise ValueError("give --server HOST:PORT (or set BUMMERL_SERVER)")
    with Client(server) as c:
        got = fetch_analysis(c, args.match_id, args.token or os.environ.get("BUMMERL_ADMIN_TOKEN"), args.wait)
    if args.json:
        print(json.dumps(got, indent=1))
    elif got["state"] == "pending":
        print(f"the analysis of match {safe(args.match_id)} is being computed: ask again in "
              f"{int(got['retry_after_ms']) / 1000:g} s (or pass --wait S)")
    else:
        analysis_text(got, args.worst)
    return PENDING_EXIT if got["state"] == "pending" else 0

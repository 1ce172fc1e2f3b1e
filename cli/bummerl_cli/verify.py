"""``bummerl verify``: check finished match records against their deck commitments. Each record's
decks are recomputed from its revealed seed, the commitment published at creation checked, every
action replayed and the deal and match results compared (:func:`bummerl.core.verify.verify_record`).
Exits 1 at the first mismatch, naming it.

    bummerl verify RECORD.json [...] | --server HOST:PORT --match ID   (exit 1 at the first mismatch)
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from bummerl.core.verify import VerificationError, verify_record
from bummerl_client import Client


def add_parser(sub: Any) -> None:
    v = sub.add_parser("verify", help="check finished match records against their deck commitments",
                       description="Recompute each record's decks from its revealed seed, check the deck "
                                   "commitment published at creation, replay every action and compare the deal "
                                   "and match results. Exits 1 at the first mismatch, naming it.")
    v.add_argument("records", nargs="*", metavar="RECORD.json",
                   help="a MatchRecord as JSON, or JSON Lines of records (ladder export); - = standard input")
    v.add_argument("--server", default=None, help="HOST:PORT: fetch the records of --match from this server")
    v.add_argument("--match", action="append", default=[], metavar="ID", help="match id to fetch (repeatable)")
    v.add_argument("--json", action="store_true", help="one JSON object per verified record")


def records(args: argparse.Namespace) -> list[dict[str, Any]]:
    """The records named on the command line: files (one JSON object, or JSON Lines) and, with
    ``--server``, each ``--match`` fetched by GetMatchRecord."""
    out: list[dict[str, Any]] = []
    for name in args.records:
        text = sys.stdin.read() if name == "-" else Path(name).read_text(encoding="utf-8")
        text = text.strip()
        try:
            got = json.loads(text)
            items = got if isinstance(got, list) else [got]
        except json.JSONDecodeError:
            items = [json.loads(line) for line in text.splitlines() if line.strip()]
        # a line of `bummerl ladder export` wraps the record: {"ladder_id", "game", ..., "record": {...}}
        out.extend(x["record"] if isinstance(x.get("record"), dict) and "match_id" not in x else x for x in items)
    if args.match:
        if not args.server:
            raise ValueError("--match needs --server HOST:PORT")
        with Client(args.server) as c:
            out.extend(dict(c.match_record(m)) for m in args.match)
    if not out:
        raise ValueError("no record given (RECORD.json, -, or --server HOST:PORT --match ID)")
    return out


def run(args: argparse.Namespace) -> int:
    for rec in records(args):
        try:
            ok = verify_record(rec)
        except VerificationError as e:
            print(f"bummerl verify: FAILED: {e}", file=sys.stderr)
            return 1
        if args.json:
            print(json.dumps({"ok": True, **ok}))
        else:
            print(f"ok {ok['match_id']}: commitment, {ok['deals']} deck(s), {ok['actions']} actions and the "
                  f"result (winner {ok['winner']}) check out")
    return 0

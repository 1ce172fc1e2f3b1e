"""``bummerl verify``: check finished match records against their deck commitments. Each record's
decks are recomputed from its revealed seed, the commitment published at creation checked, every
action replayed and the deal and match results compared (:func:`bummerl.core.verify.verify_record`).
Exits 1 at the first mismatch, naming it. Each record's deck commitment is printed: the commitment
does not hash the match id, so compare it with the one the match published at creation (or pass
that one as ``--commitment``); a record fetched with ``--match ID`` must be of match ID.

    bummerl verify RECORD.json [...] | --server HOST:PORT --match ID   (exit 1 at the first mismatch)
    bummerl verify RECORD.json --commitment HEX        (the commitment published at the match's creation)
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from bummerl.core.verify import VerificationError, verify_record
from bummerl_client import Client

from .common import safe


def add_parser(sub: Any) -> None:
    v = sub.add_parser("verify", help="check finished match records against their deck commitments",
                       description="Recompute each record's decks from its revealed seed, check the deck "
                                   "commitment published at creation, replay every action and compare the deal "
                                   "and match results. Exits 1 at the first mismatch, naming it.")
    v.add_argument("records", nargs="*", metavar="RECORD.json",
                   help="a MatchRecord as JSON, or JSON Lines of records (ladder export); - = standard input")
    v.add_argument("--server", default=None, help="HOST:PORT: fetch the records of --match from this server")
    v.add_argument("--match", action="append", default=[], metavar="ID", help="match id to fetch (repeatable)")
    v.add_argument("--commitment", default=None, metavar="HEX",
                   help="the deck commitment the match published at creation (one record only): the record must "
                        "hash to it (the commitment does not include the match id, so this is what ties a record "
                        "to its match)")
    v.add_argument("--json", action="store_true", help="one JSON object per verified record")


def records(args: argparse.Namespace) -> list[tuple[dict[str, Any], str | None]]:
    """The records named on the command line, each with the match id it must be of (None for a
    file): files (one JSON object, or JSON Lines) and, with ``--server``, each ``--match`` fetched
    by GetMatchRecord."""
    out: list[tuple[dict[str, Any], str | None]] = []
    for name in args.records:
        text = sys.stdin.read() if name == "-" else Path(name).read_text(encoding="utf-8")
        text = text.strip()
        try:
            got = json.loads(text)
            items = got if isinstance(got, list) else [got]
        except json.JSONDecodeError:
            items = [json.loads(line) for line in text.splitlines() if line.strip()]
        # a line of `bummerl ladder export` wraps the record: {"ladder_id", "game", ..., "record": {...}}
        out.extend((x["record"] if isinstance(x.get("record"), dict) and "match_id" not in x else x, None)
                   for x in items)
    if args.match:
        if not args.server:
            raise ValueError("--match needs --server HOST:PORT")
        with Client(args.server) as c:
            out.extend((dict(c.match_record(m)), m) for m in args.match)
    if not out:
        raise ValueError("no record given (RECORD.json, -, or --server HOST:PORT --match ID)")
    if args.commitment and len(out) != 1:
        raise ValueError(f"--commitment checks one record, got {len(out)}")
    return out


def run(args: argparse.Namespace) -> int:
    for rec, mid in records(args):
        try:
            ok = verify_record(rec, match_id=mid, commitment=args.commitment)
        except VerificationError as e:
            if args.json:
                print(json.dumps({"ok": False, "match_id": mid or rec.get("match_id"), "error": str(e),
                                  "commitment": rec.get("deck_commitment", "")}))
            print(f"bummerl verify: FAILED: {safe(e)}", file=sys.stderr)
            return 1
        if args.json:
            print(json.dumps({"ok": True, **ok, "commitment_checked": bool(args.commitment)}))
        else:
            against = "the published one given" if args.commitment else "compare it with the one published at creation"
            print(safe(f"ok {ok['match_id']}: commitment, {ok['deals']} deck(s), {ok['actions']} actions and the "
                       f"result (winner {ok['winner']}) check out"))
            print(safe(f"   commitment {ok['commitment']} ({against})"))
    return 0

"""``bummerl match show``: a readable transcript of a match record (:mod:`.transcript`): hands,
tricks, marriages, closing, scores, result and times; or the record itself (``--format json``), or
one JSON object per transcript line (``--format jsonl``). The record comes from a server
(``--server`` and a match id) or a file (``--file``).

    bummerl match show ID --server HOST:PORT [--admin-token T] [--format text|json|jsonl]
    bummerl match show --file RECORD.json
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from bummerl_client import Client

from . import transcript
from .common import safe


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


def run(args: argparse.Namespace) -> int:
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

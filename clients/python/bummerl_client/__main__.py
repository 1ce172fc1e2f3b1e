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
import importlib
import importlib.util
import json
import os
import shutil
import sys
from typing import Any

import grpc

from .bot import Bot, BotFault
from .bots import make_bot, split_bot_specs
from .client import AsyncClient, BummerlError
from .runner import FAULT_REASONS, play_seat
from .stdio import StdioBot

EXIT_CODES = {"timeout": 3, "illegal": 4, "unparsable": 4, "crash": 5}


def bot_from_spec(spec: str, seed: int | None = None, decision_timeout_s: float = 60.0,
                  process_model: str | None = None) -> Bot:
    """``random`` / ``greedy`` / ``strong:budget_ms=50,...`` / ``exec:COMMAND ARGS`` /
    ``py:FILE.py:CLASS`` (:func:`python_bot`) -> a Bot.
    ``process_model`` of an ``exec:`` bot: ``match`` or ``reuse`` (:data:`~bummerl_client.stdio.PROCESS_MODELS`;
    default ``BUMMERL_BOT_PROCESS_MODEL`` or ``match``). Raises ValueError (one line) for an
    unknown bot, a bad option, or an executable that is not found (on PATH or as a path)."""
    if spec.startswith("py:"):
        return python_bot(spec[3:], seed)
    if spec.startswith("exec:"):
        model = process_model or os.environ.get("BUMMERL_BOT_PROCESS_MODEL") or "match"
        bot = StdioBot(spec[5:], seed, decision_timeout_s=decision_timeout_s, process_model=model)
        program = bot.argv[0]
        if shutil.which(program) is None:
            raise ValueError(f"exec: executable not found: {program}"
                             + ("" if os.sep in program else " (not on PATH; give a path such as ./" + program + ")"))
        return bot
    return make_bot(spec, seed)


_PY_MODULES: dict[str, Any] = {}


def python_bot(target: str, seed: int | None = None) -> Bot:
    """A :class:`~bummerl_client.bot.Bot` subclass written in Python, from ``FILE.py:CLASS`` (a
    path) or ``MODULE:CLASS`` (importable), constructed with ``seed`` when its ``__init__`` takes
    one. Its name is the class's ``name`` if it sets one, else ``py:CLASS``. A file is loaded once
    per process. Raises ValueError (one line) for a missing file or class, a module that fails to
    import, or a class that is no Bot."""
    where, sep, class_name = target.rpartition(":")
    if not sep or not where or not class_name:
        raise ValueError(f"py: expected FILE.py:CLASS or MODULE:CLASS, got {target!r}")
    module = _PY_MODULES.get(where)
    if module is None:
        try:
            if where.endswith(".py"):
                path = os.path.abspath(where)
                if not os.path.isfile(path):
                    raise ValueError(f"py: no such file: {where}")
                loader_spec = importlib.util.spec_from_file_location(f"bummerl_py_bot_{len(_PY_MODULES)}", path)
                if loader_spec is None or loader_spec.loader is None:
                    raise ValueError(f"py: cannot load {where}")
                module = importlib.util.module_from_spec(loader_spec)
                loader_spec.loader.exec_module(module)
            else:
                module = importlib.import_module(where)
        except ValueError:
            raise
        except Exception as e:  # noqa: BLE001 - the bot author's module: one line, not a traceback
            raise ValueError(f"py: cannot import {where}: {type(e).__name__}: {e}") from None
        _PY_MODULES[where] = module
    cls = getattr(module, class_name, None)
    if not (isinstance(cls, type) and issubclass(cls, Bot)):
        raise ValueError(f"py: {where} has no Bot subclass named {class_name!r}")
    try:
        bot = cls(seed)
    except TypeError:  # an __init__ without a seed
        bot = cls()
    if type(bot).name == Bot.name:  # the class kept the base's "bot"
        bot.name = f"py:{class_name}"
    return bot


def bot_specs(text: str, prog: str, count: int | None = None) -> list[str]:
    """Split a ``--bots`` list (``strong:budget_ms=50,samples=8,greedy`` -> two specs, see
    :func:`~bummerl_client.bots.split_bot_specs`) and build every bot once to check its name and
    options: a bad one exits with one line ``PROG: ...`` (SystemExit)."""
    specs = split_bot_specs(text)
    if count is not None and len(specs) != count:
        example = ",".join(("greedy", "random")[i % 2] for i in range(count))
        raise SystemExit(f"{prog}: --bots takes {count} bots, one per seat, e.g. {example}"
                         + (" or strong:budget_ms=50,greedy" if count == 2 else ""))
    for spec in specs:
        try:
            bot_from_spec(spec)
        except ValueError as e:
            raise SystemExit(f"{prog}: {e}") from None
    return specs


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

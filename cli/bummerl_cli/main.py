"""The ``bummerl`` command line: the parser built from each command module's ``add_parser``, the
dispatch to its ``run`` (:data:`COMMANDS`) and the one-line error of a failed command (exit 2;
``BUMMERL_DEBUG=1`` shows the traceback)."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from collections.abc import Callable
from types import ModuleType

from bummerl_client import BummerlError

from . import bench, bot, ladder, loadtest, match, migrate, play, serve, verify

MODULES: tuple[ModuleType, ...] = (serve, migrate, play, verify, match, ladder, bot, loadtest, bench)
"""The command modules, in the order ``bummerl --help`` lists them; each is named after its command
and has ``add_parser(subparsers)`` and ``run(args) -> exit code``. A new command is one more module
here."""

COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {m.__name__.rpartition(".")[2]: m.run for m in MODULES}
"""Each command's ``run``: its parsed arguments -> its exit code."""


def build_parser() -> argparse.ArgumentParser:
    """The ``bummerl`` command line (every flag with its help and default)."""
    p = argparse.ArgumentParser(prog="bummerl", description="Bummerl game server for the Schnapsen family")
    sub = p.add_subparsers(dest="cmd", required=True)
    for module in MODULES:
        module.add_parser(sub)
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return COMMANDS[args.cmd](args)
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # noqa: BLE001 - the CLI's errors are one line, never a traceback
        print(f"bummerl {args.cmd}: {_one_line(exc)}", file=sys.stderr)
        if os.environ.get("BUMMERL_DEBUG"):
            raise
        return 2


def _one_line(exc: BaseException) -> str:
    """The message of a CLI failure: the gRPC status of a server error, the text otherwise."""
    if isinstance(exc, BummerlError):
        if exc.code.name == "UNAVAILABLE":
            return f"cannot reach the server: {exc.details}"
        return f"{exc.code.name}: {exc.details}"
    if isinstance(exc, (TimeoutError, asyncio.TimeoutError)):
        return "timed out (is the server reachable?)"
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return text if isinstance(exc, (ValueError, OSError)) else f"{type(exc).__name__}: {text}"


if __name__ == "__main__":
    sys.exit(main())

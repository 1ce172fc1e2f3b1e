"""The ``bummerl`` command line: the parser built from each command module's ``add_parser``, the
dispatch to its ``run`` and the one-line error of a failed command (exit 2; ``BUMMERL_DEBUG=1``
shows the traceback).

A command module is loaded when its command runs (``bummerl bench engine`` loads ``bench`` alone,
as pip and git load their commands), so that a command's process holds what that command needs:
the engine benchmark measured 5% fewer deals/s in a process that had loaded every command. Only
``bummerl --help`` (no command named) loads them all.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import os
import sys
from collections.abc import Sequence
from types import ModuleType

from bummerl_client import BummerlError

from .common import safe

COMMANDS: tuple[str, ...] = ("serve", "migrate", "play", "verify", "match", "ladder", "bot", "loadtest", "bench", "mcp")
"""The commands, in the order ``bummerl --help`` lists them. Each is the module of its name in this
package, with ``add_parser(subparsers)`` and ``run(args) -> exit code``; a new command is one more
module and its name here."""


def command(name: str) -> ModuleType:
    """The module of command ``name`` (one of :data:`COMMANDS`), loaded on first use."""
    return importlib.import_module(f"{__package__}.{name}")


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The ``bummerl`` command line (every flag with its help and default); with ``only`` (a
    command), that command's parser alone besides the top level."""
    p = argparse.ArgumentParser(prog="bummerl", description="Bummerl game server for the Schnapsen family")
    sub = p.add_subparsers(dest="cmd", required=True)
    for name in (only,) if only in COMMANDS else COMMANDS:
        command(name).add_parser(sub)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    named = next((a for a in argv if not a.startswith("-")), None)
    args = build_parser(named if named in COMMANDS else None).parse_args(argv)
    try:
        code: int = command(args.cmd).run(args)
        return code
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # noqa: BLE001 - the CLI's errors are one line, never a traceback
        print(f"bummerl {args.cmd}: {safe(_one_line(exc))}", file=sys.stderr)
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

"""What several ``bummerl`` commands share: argparse types (ports, positive integers, table
options, time controls, SPRT bounds), where the server is, the output console and the tables of
a leaderboard and its pairs."""

from __future__ import annotations

import argparse
import math
import os
from collections.abc import Mapping
from typing import Any

from rich.console import Console
from rich.table import Table

from bummerl.core.clocks import TimeControl, TimeControlError

MIN_PAIRS_FOR_ELO = 10
"""Fewer units (duplicate pairs, sets or games) than this: the Elo column says ``n/a (needs N
pairs)`` instead of a number no one should read."""

FORMATS = {"round_robin": "LADDER_FORMAT_ROUND_ROBIN", "gauntlet": "LADDER_FORMAT_GAUNTLET",
           "sprt": "LADDER_FORMAT_SPRT"}
"""``--format`` of ``ladder create`` and ``ladder run`` -> the ``LadderFormat`` enum name (ladder.proto)."""

PIPE_WIDTH = 250
"""Columns of the CLI's tables when stdout is no terminal and ``COLUMNS`` is unset (rich would
use 80 and wrap narrow cells one letter a line)."""

WHOLE_COLUMNS = frozenset({"id", "name", "bot", "bots", "match", "a", "b"})
"""Table columns never wrapped or cut (ids and names are copied from them); the others give way
on a narrow terminal."""


# ---------------------------------------------------------------- argparse types and flags
def port_number(text: str) -> int:
    """argparse type of a TCP port: an int in 0..65535."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {text}") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"port {value} is outside 0..65535")
    return value


def positive_int(text: str) -> int:
    """argparse type: an integer >= 1 (``--deals 0`` is not "whole matches", ``--concurrency 0``
    not "the default")."""
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {n}")
    return n


def table_options(pairs: list[str]) -> dict[str, str]:
    """``--option name=value`` (repeated) as a dict; SystemExit for an item without ``=``."""
    out = {}
    for p in pairs:
        name, sep, value = p.partition("=")
        if not sep:
            raise SystemExit(f"--option expects name=value, got {p!r}")
        out[name.strip()] = value.strip()
    return out


def time_control_fields(text: str, prog: str) -> dict[str, Any]:
    """A ``--tc`` text (seconds, e.g. ``5+0.1`` or ``move=2``: :meth:`TimeControl.parse`) as the
    ``time_control`` of a CreateLadder request (milliseconds, the scope as its proto enum name).
    SystemExit naming ``prog`` and the flag for a bad one."""
    try:
        tc = TimeControl.parse(text).to_dict()
    except TimeControlError as e:
        raise SystemExit(f"{prog}: --tc: {e}") from None
    return {**tc, "scope": "TIME_CONTROL_SCOPE_" + str(tc["scope"]).upper()}


def sprt_fields(text: str | None) -> dict[str, float]:
    """``--sprt elo0=0,elo1=10,alpha=0.05,beta=0.05`` (each optional; these defaults) as a dict;
    SystemExit for an unknown key or a value that is no number."""
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


def server_flags(p: argparse.ArgumentParser, admin: bool = False) -> None:
    """``--server`` and ``--json`` (and with ``admin`` ``--admin-token``) of a command against a
    running server."""
    p.add_argument("--server", default=None, help="HOST:PORT (default: BUMMERL_SERVER or localhost:50051)")
    if admin:
        p.add_argument("--admin-token", default=None, help="the server's admin token (default: BUMMERL_ADMIN_TOKEN)")
    p.add_argument("--json", action="store_true", help="machine output: JSON on stdout")


def server_of(args: argparse.Namespace) -> str:
    """``--server``, else ``BUMMERL_SERVER``, else ``localhost:50051``."""
    return str(args.server or os.environ.get("BUMMERL_SERVER") or "localhost:50051")


def admin_of(args: argparse.Namespace) -> str | None:
    """``--admin-token``, else ``BUMMERL_ADMIN_TOKEN``, else None."""
    return getattr(args, "admin_token", None) or os.environ.get("BUMMERL_ADMIN_TOKEN") or None


# ---------------------------------------------------------------- output
def page_link(web: str | None, kind: str, ident: str) -> str:
    """The web page of a match or ladder (``kind`` "match" / "ladder") on the pages at ``web``
    (the REST gateway's base URL, e.g. ``http://localhost:8080``); "" without one."""
    return f"{web.rstrip('/')}/#/{kind}/{ident}" if web else ""


def counted(n: int, word: str, plural: str | None = None) -> str:
    """``n`` and ``word`` in the number it needs: ``counted(1, "deal")`` = "1 deal",
    ``counted(2, "match", "matches")`` = "2 matches"."""
    return f"{n} {word if n == 1 else plural or word + 's'}"


def out_console() -> Console:
    """The console of a command's output: the terminal's width, or :data:`PIPE_WIDTH` when piped."""
    console = Console()
    if not console.is_terminal and "COLUMNS" not in os.environ:
        console = Console(width=PIPE_WIDTH)
    return console


def add_columns(t: Table, cols: tuple[str, ...]) -> None:
    """Columns of a listing: :data:`WHOLE_COLUMNS` never wrap, the others fold."""
    for col in cols:
        t.add_column(col, no_wrap=col in WHOLE_COLUMNS, overflow="fold")


def finite(x: Any) -> float | None:
    """A proto double from JSON (``"Infinity"`` arrives as a string) as a float; None if infinite."""
    v = float(x)
    return v if math.isfinite(v) else None


def fmt(x: Any, spec: str = ".1f") -> str:
    """A proto double formatted with ``spec``; ``inf`` when infinite."""
    v = finite(x)
    return "inf" if v is None else format(v, spec)


def elo_cell(p: dict[str, Any]) -> str:
    """The Elo of a pair row: ``+35.2 +/- 20.1``; ``n/a (needs N pairs)`` when it rests on fewer
    than :data:`MIN_PAIRS_FOR_ELO` units; ``n/a (unbounded so far)`` when it is not finite (one
    bot scored everything). The ladder web page shows it the same way (``web/ladder.js``)."""
    units = int(p.get("deal_pairs") or 0) or int(p.get("games") or 0)
    elo, ci = float(p.get("elo", "nan")), float(p.get("elo_ci95", "nan"))
    unit = "pairs" if int(p.get("deal_pairs") or 0) or not p.get("games") else "games"
    if units < MIN_PAIRS_FOR_ELO:
        return f"n/a (needs {MIN_PAIRS_FOR_ELO} {unit})"
    if not (math.isfinite(elo) and math.isfinite(ci)):
        return "n/a (unbounded so far)"
    return f"{elo:+.1f} +/- {ci:.1f}"


def leaderboard_table(board: Mapping[str, Any], names: dict[str, str], seats: int = 2) -> Table:
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
        score = [fmt(e.get("score", 0.0), ".1f")] if seats > 2 else []
        t.add_row(str(e["rank"]), e["name"], fmt(e["ordinal"], ".2f"), fmt(e["mu"], ".2f"), fmt(e["sigma"], ".2f"),
                  str(e.get("games", 0)), *score, str(e.get("wins", 0)), str(e.get("losses", 0)),
                  str(e.get("draws", 0)), f"{e.get('deals_won', 0)}/{e.get('deals_won', 0) + e.get('deals_lost', 0)}")
    return t

"""What several ``bummerl`` commands share: argparse types (ports, positive integers, table
options, time controls, SPRT bounds), where the server is, the output console and the tables of
a leaderboard and its pairs."""

from __future__ import annotations

import argparse
import math
import os
import unicodedata
from collections.abc import Mapping
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from bummerl.core.clocks import TimeControl, TimeControlError

MIN_PAIRS_FOR_ELO = 10
"""Fewer units (duplicate pairs, sets or games) than this: the Elo column says ``n/a (needs N
pairs)`` (``sets`` at 3-4 seats) instead of a number no one should read."""

FORMATS = {"round_robin": "LADDER_FORMAT_ROUND_ROBIN", "gauntlet": "LADDER_FORMAT_GAUNTLET",
           "sprt": "LADDER_FORMAT_SPRT", "swiss": "LADDER_FORMAT_SWISS", "knockout": "LADDER_FORMAT_KNOCKOUT",
           "arena": "LADDER_FORMAT_ARENA"}
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
def _escaped(ch: str) -> str:
    """One character as the CLI shows it: a control or direction-override character as its
    ``repr``-style escape (``\\x1b``, ``\\n``, ``\\u202e``), any other as itself."""
    if unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp") and ch != "\u200d":  # ZWJ joins emoji
        return ch.encode("unicode_escape").decode("ascii")
    return ch


def safe(text: Any, keep_newlines: bool = False) -> str:
    """Stored or recorded text (a bot or ladder name, a client string, an action text, a reason) as
    the CLI prints it: every control character (ESC, CR, BEL, backspace, newline...) and every
    invisible format character (direction overrides) shown as its escape, ``\\x1b[2J`` instead of a
    cleared screen. With ``keep_newlines`` the lines of a multi-line text stay lines. The one place
    where the CLI makes data from a server or a file harmless for the terminal."""
    s = str(text)
    if keep_newlines:
        return "\n".join(safe(line) for line in s.split("\n"))
    if s.isprintable():
        return s
    return "".join(_escaped(ch) for ch in s)


def cell(x: Any) -> Any:
    """A table cell: text made :func:`safe` and never read as rich markup (``[red]`` stays as it
    is); a rich renderable (a nested table, a Text) as it is."""
    return Text(safe(x)) if isinstance(x, str) else x


class SafeTable(Table):
    """A rich Table whose string cells and column headers are :func:`cell`: the CLI's tables of
    stored data (bot, ladder and client names come from whoever registered them)."""

    def add_row(self, *renderables: Any, **kwargs: Any) -> None:
        super().add_row(*(cell(r) for r in renderables), **kwargs)

    def add_column(self, header: Any = "", *args: Any, **kwargs: Any) -> None:
        super().add_column(cell(header), *args, **kwargs)


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


def set_word(seats: int = 2) -> str:
    """What a duplicate unit is called in every CLI table and message: ``pairs`` (two seats: a
    deal and its mirror) or ``sets`` (3-4 seats: every rotation of the seats over one deck)."""
    return "pairs" if seats <= 2 else "sets"


def elo_cell(p: Mapping[str, Any], seats: int = 2, sign: int = 1) -> str:
    """The Elo of a pair row (from b's side with ``sign`` -1): ``+35.2 +/- 20.1``; ``n/a (needs N
    pairs)`` (``sets`` with 3-4 ``seats``, ``games`` without duplicate deals) when it rests on
    fewer than :data:`MIN_PAIRS_FOR_ELO` units; ``n/a (unbounded so far)`` when it is not finite
    (one bot scored everything). The ladder web page shows it the same way (``web/ladder.js``)."""
    units = int(p.get("deal_pairs") or 0) or int(p.get("games") or 0)
    elo, ci = sign * float(p.get("elo", "nan")), float(p.get("elo_ci95", "nan"))
    unit = set_word(seats) if int(p.get("deal_pairs") or 0) or not p.get("games") else "games"
    if units < MIN_PAIRS_FOR_ELO:
        return f"n/a (needs {MIN_PAIRS_FOR_ELO} {unit})"
    if not (math.isfinite(elo) and math.isfinite(ci)):
        return "n/a (unbounded so far)"
    return f"{elo:+.1f} +/- {ci:.1f}"


def elo_vs_leader(board: Mapping[str, Any], entry: Mapping[str, Any], seats: int = 2) -> str:
    """A bot's Elo against the leader (the first entry), from the pair of the two in the
    leaderboard's ``pairs``, as the ladder web page's "Elo vs leader" column computes it
    (``web/ladder.js``): ``-`` for the leader, "" when the two have no game together yet."""
    entries = list(board.get("entries") or ())
    if not entries or entry.get("bot_id") == entries[0].get("bot_id"):
        return "-"
    lead, me = entries[0].get("bot_id"), entry.get("bot_id")
    p = next((q for q in board.get("pairs") or () if {q.get("a"), q.get("b")} == {lead, me}), None)
    if p is None or not int(p.get("games") or 0):
        return ""
    return elo_cell(p, seats, 1 if p.get("a") == me else -1)


def later_leg_cell(e: Mapping[str, Any]) -> str:
    """A bot's later-leg advantage (``LeaderboardEntry.later_leg``): ``+0.12 (-0.05..+0.29) over 30``
    (mean score difference, 95% interval, complete duplicate sets), ending ``FLAGGED`` when the
    interval is above 0 (README "Ladders": a sign of a bot that remembers deals); "" without sets."""
    ll = e.get("later_leg") or {}
    sets = int(ll.get("sets") or 0)
    if not sets:
        return ""
    if sets < 2:
        return f"{float(ll.get('mean') or 0):+.2f} over 1"
    cell = (f"{float(ll.get('mean') or 0):+.2f} ({float(ll.get('ci95_low') or 0):+.2f}.."
            f"{float(ll.get('ci95_high') or 0):+.2f}) over {sets}")
    return cell + (" FLAGGED" if ll.get("flagged") else "")


def leaderboard_table(board: Mapping[str, Any], names: dict[str, str], seats: int = 2) -> Table:
    """The leaderboard, with each bot's Elo against the leader (:func:`elo_vs_leader`); with 3 or 4
    ``seats`` also each bot's score (the sum of its game scores:
    the share of the other teams placed behind it, shared places half), W = alone (with the
    partner) in first place, D = first place shared."""
    title = "Leaderboard (openskill: ordinal = mu - 3 sigma)"
    if seats > 2:
        title = f"Leaderboard, {seats} seats (openskill by placements, ordinal = mu - 3 sigma)"
    t = SafeTable(title=title, caption="deals won: of the deals played to their end (a game lost to a bot's fault or "
                                   "timeout may end before its first deal does)")
    later = any(int((e.get("later_leg") or {}).get("sets") or 0) for e in board.get("entries", []))
    cols = ["#", "bot", "ordinal", "mu", "sigma", "Elo vs leader (95% CI)", "games", *(["score"] if seats > 2 else []),
            "W", "L", "D", "deals won", *(["later-leg advantage (95% CI)"] if later else [])]
    for col in cols:
        t.add_column(col, justify="right" if col not in ("bot",) else "left")
    for e in board.get("entries", []):
        score = [fmt(e.get("score", 0.0), ".1f")] if seats > 2 else []
        t.add_row(str(e["rank"]), e["name"], fmt(e["ordinal"], ".2f"), fmt(e["mu"], ".2f"), fmt(e["sigma"], ".2f"),
                  elo_vs_leader(board, e, seats),
                  str(e.get("games", 0)), *score, str(e.get("wins", 0)), str(e.get("losses", 0)),
                  str(e.get("draws", 0)), f"{e.get('deals_won', 0)}/{e.get('deals_won', 0) + e.get('deals_lost', 0)}",
                  *([later_leg_cell(e)] if later else []))
    return t

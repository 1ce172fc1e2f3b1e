"""``bummerl ladder pairings`` and ``bummerl ladder bracket`` (issue 37): a Swiss ladder's
standings with tiebreaks and each round's pairings, and a knockout's bracket, drawn from
``GetPairings`` (:meth:`bummerl_client.AsyncClient.pairings`)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from rich.table import Table

from .common import SafeTable, add_columns, fmt, positive_int

STAGED = ("swiss", "knockout", "arena")
"""Formats planned as they go (round by round from the standings, or on demand): they have
pairings to show."""


def plan_fields(fmt_name: str, per_meeting: int, rounds: int, seeding: str, num_bots: int, cmd: str,
                minutes: float = 0) -> dict[str, Any]:
    """The CreateLadderRequest fields that say how many games a format plans: ``rounds`` (round
    robin, gauntlet: ``per_meeting`` duplicate pairs a pairing; SPRT: at most that many pairs), and
    for Swiss ``rounds`` (default ``ceil(log2(bots))``, at least 1) and ``pairs_per_meeting``, for a
    knockout ``pairs_per_meeting`` and ``seeding``, for an arena ``arena_minutes`` (single games:
    no duplicate deals, bots come and go). SystemExit for ``--rounds``, ``--seeding`` or
    ``--minutes`` with a format that does not take it."""
    if fmt_name != "swiss" and rounds:
        raise SystemExit(f"{cmd}: --rounds is the number of Swiss rounds (--format swiss); other formats take "
                         f"--deals N or --matches N per pairing")
    if fmt_name != "knockout" and seeding != "listed":
        raise SystemExit(f"{cmd}: --seeding is for --format knockout")
    if fmt_name != "arena" and minutes:
        raise SystemExit(f"{cmd}: --minutes is for --format arena")
    if fmt_name == "arena":
        return {"rounds": 1, "arena_minutes": math.ceil(minutes), "duplicate_deals": False}
    if fmt_name == "swiss":
        return {"rounds": rounds or max(1, math.ceil(math.log2(max(num_bots, 2)))), "pairs_per_meeting": per_meeting}
    if fmt_name == "knockout":
        return {"rounds": 1, "pairs_per_meeting": per_meeting, "seeding": seeding}
    return {"rounds": per_meeting}


def _num(x: Any) -> str:
    v = float(x or 0)
    return f"{v:g}"


def standings_table(p: Mapping[str, Any]) -> Table:
    """The Swiss standings, best first, with their tiebreaks."""
    t = SafeTable(title="Swiss standings (points; tiebreaks: Buchholz, Sonneborn-Berger, direct encounter)")
    add_columns(t, ("#", "bot", "points", "Buchholz", "S-B", "direct", "byes", "played"))
    for r in p.get("standings") or ():
        t.add_row(str(r.get("rank", 0)), r.get("name") or r.get("bot_id", ""), _num(r.get("points")),
                  _num(r.get("buchholz")), _num(r.get("sonneborn_berger")), _num(r.get("direct_encounter")),
                  str(r.get("byes", 0)), str(r.get("played", 0)))
    return t


def round_table(rnd: Mapping[str, Any]) -> Table:
    """One Swiss round: each pairing (table) with its bots' total scores and points, and the byes."""
    byes = ", ".join(rnd.get("bye_names") or rnd.get("byes") or ()) or "none"
    t = SafeTable(title=f"{rnd.get('label') or 'round'} (byes: {byes})")
    add_columns(t, ("meeting", "bots", "total scores", "points", "games"))
    for m in rnd.get("meetings") or ():
        names = list(m.get("names") or m.get("bots") or ())
        pts = m.get("points") or ()
        t.add_row(m.get("key", ""), " - ".join(names), " - ".join(_num(x) for x in m.get("totals") or ()),
                  " - ".join(_num(x) for x in pts) if pts else "playing",
                  f"{m.get('games', 0)}/{m.get('expected', 0)}")
    return t


def _side(m: Mapping[str, Any], i: int) -> str:
    names, seeds = list(m.get("names") or ()), list(m.get("seeds") or ())
    name = names[i] if i < len(names) else ""
    seed = int(seeds[i]) if i < len(seeds) else 0
    if not name:
        return "(bye)" if m.get("decided_by") == "bye" else "?"
    return f"({seed}) {name}" if seed else name


def bracket_table(p: Mapping[str, Any]) -> Table:
    """A knockout bracket: every tie of every round with the score, pairs played and the winner."""
    t = SafeTable(title="Knockout bracket (score: total game score over the tie; GP: game points)")
    add_columns(t, ("round", "tie", "a", "b", "score", "GP", "pairs", "winner", "by"))
    for rnd in p.get("rounds") or ():
        for m in rnd.get("meetings") or ():
            score, gp = list(m.get("score") or (0, 0)), list(m.get("game_points") or (0, 0))
            bots, names = list(m.get("bots") or ()), list(m.get("names") or ())
            winner = names[bots.index(m["winner"])] if m.get("winner") in bots else ""
            played = m.get("decided_by") != "bye"
            t.add_row(rnd.get("label", ""), m.get("key", ""), _side(m, 0), _side(m, 1),
                      f"{fmt(score[0], 'g')}-{fmt(score[1], 'g')}" if played else "",
                      f"{gp[0]}-{gp[1]}" if played else "", str(m.get("pairs", 0)) if played else "",
                      winner or "-", m.get("decided_by") or "")
    return t


def arena_table(p: Mapping[str, Any]) -> Table:
    """An arena's points table (win 2, draw 1, a win after two in a row 4)."""
    t = SafeTable(title="Arena (points: win 2, draw 1, a win after two wins in a row 4)")
    add_columns(t, ("#", "bot", "points", "games", "W", "D", "L", "streak", "connected"))
    for r in p.get("arena") or ():
        t.add_row(str(r.get("rank", 0)), r.get("name") or r.get("bot_id", ""), str(r.get("points", 0)),
                  str(r.get("games", 0)), str(r.get("wins", 0)), str(r.get("draws", 0)), str(r.get("losses", 0)),
                  str(r.get("streak", 0)), "yes" if r.get("connected") else "no")
    return t


def pairings_tables(p: Mapping[str, Any], round_no: int = 0) -> Table:
    """``ladder pairings``: Swiss standings and rounds (only round ``round_no``, 1-based, when
    given), a knockout's bracket, or a line saying the format has none."""
    outer = SafeTable.grid()
    form = str(p.get("format") or "").removeprefix("LADDER_FORMAT_").lower()
    if form == "knockout":
        outer.add_row(bracket_table(p))
        return outer
    if form == "arena":
        outer.add_row(arena_table(p))
        return outer
    if form != "swiss":
        outer.add_row(f"a {form or 'ladder'} ladder plans all its games at creation: no pairings by round "
                      f"(bummerl ladder games ID lists them)")
        return outer
    outer.add_row(standings_table(p))
    rounds = list(p.get("rounds") or ())
    if round_no:
        rounds = [r for r in rounds if int(r.get("stage", 0)) == round_no - 1]
        if not rounds:
            outer.add_row(f"round {round_no} is not planned yet")
    for rnd in rounds:
        outer.add_row(round_table(rnd))
    return outer

def staged_flags(p: Any) -> None:
    """``--rounds`` and ``--seeding`` of ``ladder create`` and ``ladder run`` (Swiss, knockout)."""
    p.add_argument("--rounds", type=positive_int, default=0,
                   help="--format swiss: rounds (default ceil(log2(bots))); each pairing plays --deals N pairs "
                        "(or --matches N)")
    p.add_argument("--minutes", type=float, default=0.0,
                   help="--format arena: minutes it pairs connected idle bots (default: until stopped; "
                        "ladder run needs it)")
    p.add_argument("--seeding", choices=["listed", "rating"], default="listed",
                   help="--format knockout: seed 1 = the first bot listed (default), or by pooled rating")

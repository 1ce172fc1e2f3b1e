"""The arena (issue 37): a continuous ladder. Its bots join by connecting their assignment stream
and leave by closing it; whenever bots are idle (connected, in no planned or running game of the
arena), any server process pairs them at once (docs/DESIGN.md §5).

Pairing (:func:`pair_idle`), one pass over the idle bots:

* bots with few games first (the most uncertain rating: openskill's sigma, largest first), each
  taking the idle bot(s) closest to it in the arena's ranking (openskill ordinal), looking
  :data:`WINDOW` places either way;
* never the opponent of its previous game again, unless it is the only idle bot left (then the
  bot waits for the next pass);
* three or four seats: the bot and its ``seats - 1`` nearest idle bots form a table.

A pass over 1,000 idle bots takes a few milliseconds (``bummerl bench arena`` prints it).

The arena runs for ``minutes`` (``CreateLadderRequest.arena_minutes``; 0 = until StopLadder): no
game starts after that, and the ladder finishes when its last games are recorded.

Points (:func:`points_table`), as lichess's arenas count them: a win 2, a draw 1, a loss 0; after
two wins in a row every further win in the streak counts double (4), until a game that is not a
win. Three or four seats: first place alone is a win, first place shared a draw. The ratings
(openskill, Elo against the field) are the leaderboard's as for every ladder.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from bummerl.core.errors import InvalidArgumentError

from .formats import DemandContext, Meeting, Stage, StageContext

WINDOW = 8
"""How many places either way in the ranking a bot looks for its opponents."""

MAX_MINUTES = 7 * 24 * 60
"""Longest arena (a week)."""


def pair_idle(ctx: DemandContext) -> list[list[str]]:
    """Tables of ``ctx.seats`` idle bots (see the module's docstring), in pairing order."""
    default_sigma = 25 / 3
    rank = sorted(ctx.idle, key=lambda b: (-ctx.ordinal.get(b, 0.0), b))
    pos = {b: i for i, b in enumerate(rank)}
    free = list(range(len(rank)))  # positions still idle, sorted
    order = sorted(ctx.idle, key=lambda b: (-ctx.sigma.get(b, default_sigma), pos[b]))
    tables: list[list[str]] = []
    taken: set[str] = set()
    for b in order:
        if b in taken or len(free) < ctx.seats:
            continue
        i = bisect.bisect_left(free, pos[b])
        near = [free[j] for j in range(max(0, i - WINDOW), min(len(free), i + WINDOW + 1)) if free[j] != pos[b]]
        near.sort(key=lambda p: (abs(p - pos[b]), p))
        avoid = set(ctx.last.get(b, ()))
        mates = [rank[p] for p in near if rank[p] not in avoid][:ctx.seats - 1]
        if len(mates) < ctx.seats - 1:
            continue  # only its last opponents are near: it waits a pass
        table = [b, *mates]
        tables.append(table)
        for x in table:
            taken.add(x)
            free.pop(bisect.bisect_left(free, pos[x]))
    return tables


def points_table(bots: Sequence[str], results: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Arena points per bot over ``results`` in order (see the module's docstring), best first:
    ``{"bot_id", "rank", "points", "games", "wins", "draws", "losses", "streak"}`` (``streak``:
    wins in a row now)."""
    tally: dict[str, dict[str, int]] = {}

    def row(bot: str) -> dict[str, int]:
        return tally.setdefault(bot, {"points": 0, "games": 0, "wins": 0, "draws": 0, "losses": 0, "streak": 0})

    for b in bots:
        row(b)
    for r in results:
        scores = [float(s) for s in r["scores"]]
        if "placements" in r:  # 3-4 seats: first alone = win, first shared = draw
            firsts = [i for i, p in enumerate(r["placements"]) if p == 1]
            teams = {r["teams"][i] for i in firsts}
            outcome = ["win" if i in firsts and len(teams) == 1 else "draw" if i in firsts else "loss"
                       for i in range(len(scores))]
        else:
            outcome = ["win" if s > 0.5 else "draw" if s == 0.5 else "loss" for s in scores]
        for bot, o in zip(r["bots"], outcome, strict=True):
            t = row(bot)
            t["games"] += 1
            if o == "win":
                t["points"] += 4 if t["streak"] >= 2 else 2
                t["wins"] += 1
                t["streak"] += 1
            else:
                t["points"] += 1 if o == "draw" else 0
                t["draws" if o == "draw" else "losses"] += 1
                t["streak"] = 0
    order = sorted(tally, key=lambda b: (-tally[b]["points"], -tally[b]["wins"], b))
    return [{"bot_id": b, "rank": i + 1, **tally[b]} for i, b in enumerate(order)]


def last_opponents(results: Sequence[Mapping[str, Any]]) -> dict[str, list[str]]:
    """Per bot, the other bots of its latest game in ``results``."""
    last: dict[str, list[str]] = {}
    for r in results:
        for b in r["bots"]:
            last[b] = [x for x in r["bots"] if x != b]
    return last


class Arena:
    """A continuous ladder (see the module's docstring): ``rounds`` is not used; games are paired
    on demand (:meth:`on_demand`) while the arena runs."""

    name: ClassVar[str] = "arena"
    stops_early: ClassVar[bool] = False
    staged: ClassVar[bool] = False
    continuous: ClassVar[bool] = True

    def validate(self, bots: Sequence[str], seats: int, rounds: int) -> None:
        if len(bots) < seats:
            raise InvalidArgumentError(f"an arena of a {seats}-seat variant needs at least {seats} bots")

    def max_games(self, num_bots: int, seats: int, rounds: int, per_meeting: int, duplicate: bool) -> int:
        return 0  # paired as bots come: no plan to cap

    def stage(self, ctx: StageContext) -> Stage | None:
        return Stage([]) if ctx.stage == 0 else None

    def on_demand(self, ctx: DemandContext) -> list[Meeting]:
        return [Meeting(t, 0, "") for t in pair_idle(ctx)]

    def decided(self, pairs: Sequence[dict[str, Any]]) -> bool:
        return False

    def view(self, ctx: StageContext) -> dict[str, Any]:
        return {"standings": [], "rounds": [], "arena": points_table(ctx.bots, ctx.results)}


def minutes_left(created_ms: int, minutes: int, now_ms: int) -> float:
    """Minutes until an arena of ``minutes`` created at ``created_ms`` stops pairing (inf when
    ``minutes`` is 0: until stopped)."""
    if not minutes:
        return math.inf
    return (created_ms + minutes * 60_000 - now_ms) / 60_000

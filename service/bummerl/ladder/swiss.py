"""The Swiss format (issue 37): each round pairs bots of equal or close score who have not met,
planned from the standings once the previous round is over (docs/DESIGN.md §5).

Scoring. A round's *meeting* (the pairing of two bots, or a table of three or four) plays
``pairs_per_meeting`` duplicate pairs (sets; games without duplicate deals). A bot's **points**
for a meeting: 1 when its total game score over the meeting's games (``LadderResult.scores``) is
the highest at the table, 1/2 when it shares the highest, 0 otherwise (two seats: won, drawn or
lost the mini-match). A **bye** scores 1 point (a win, by convention, as in chess Swiss events)
and has no opponent.

Standings, best first, by:

1. points;
2. **Buchholz**: the sum of the points of every opponent the bot met (byes add nothing);
3. **Sonneborn-Berger**: over every meeting and every opponent at it, the opponent's points times
   the bot's result against that opponent (1 ahead, 1/2 level, 0 behind: the points of the
   opponents it beat plus half of those it drew with);
4. **direct encounter**: among the bots still level on 1-3, the results of their meetings with
   each other;
5. the order the bots were listed in.

Pairing (two seats). The bye (an odd number of bots) goes to the lowest-ranked bot that has not
had one (when all have, the lowest-ranked of those with the fewest); when that would force a
rematch, to the next such bot that does not (up to :data:`BYE_CANDIDATES` tried). The other bots are paired
by a maximum-weight perfect matching (networkx ``max_weight_matching``, Edmonds' blossom
algorithm) whose weight punishes a rematch by far more than any score difference and a score
difference by its square, with a small seeded random term: so no rematch while one is avoidable,
then pairs as close in score as possible, and among equal choices a draw from the ladder's seed
(the same in every process). Why networkx rather than a FIDE Dutch pairing library: the rules of
the Dutch system (colour preferences, floats) are chess's; what this game needs is "close score,
no rematch", which the matching states exactly, and networkx is a well-kept library. Three or four
seats: the bots in rank order (byes as above for the remainder) sit at tables of neighbouring
scores; rematches are not avoided there.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import networkx as nx

from bummerl.core.errors import InvalidArgumentError

from .formats import DemandContext, Meeting, Stage, StageContext, StageRecord, legs_per_set

BYE_POINTS = 1.0
"""Points of a bye."""

BYE_CANDIDATES = 8
"""When the bot in line for the bye leaves the others no pairing without a rematch, this many
bots in line (with as few byes) are tried instead."""

MAX_ROUNDS = 100
"""Most Swiss rounds a ladder may have."""


@dataclass
class MeetingResult:
    """One meeting of a stage as played so far: ``totals`` per bot (its game scores summed),
    ``games`` recorded of ``expected``, ``points`` per bot once complete."""

    stage: int
    key: str
    bots: list[str]
    expected: int
    totals: dict[str, float] = field(default_factory=dict)
    games: int = 0

    @property
    def complete(self) -> bool:
        return self.games >= self.expected

    def points(self) -> dict[str, float]:
        """1 to the single top total, 1/2 to each of a shared top, 0 to the rest."""
        best = max(self.totals.get(b, 0.0) for b in self.bots)
        top = [b for b in self.bots if math.isclose(self.totals.get(b, 0.0), best)]
        return {b: (1.0 if len(top) == 1 else 0.5) if b in top else 0.0 for b in self.bots}

    def result(self, bot: str, other: str) -> float:
        """``bot``'s result against ``other`` at this meeting: 1 ahead, 1/2 level, 0 behind."""
        a, b = self.totals.get(bot, 0.0), self.totals.get(other, 0.0)
        return 0.5 if math.isclose(a, b) else 1.0 if a > b else 0.0


def meetings_played(history: Sequence[StageRecord], results: Sequence[Mapping[str, Any]], expected: int
                    ) -> list[MeetingResult]:
    """Every meeting of the stages in ``history`` with its totals from ``results`` (``expected``:
    games per complete meeting)."""
    out: dict[tuple[int, str], MeetingResult] = {}
    for rec in history:
        for m in rec["meetings"]:
            out[(rec["stage"], m["key"])] = MeetingResult(rec["stage"], m["key"], list(m["bots"]), expected)
    for r in results:
        got = out.get((int(r.get("stage", -1)), str(r.get("meeting", ""))))
        if got is None:
            continue
        got.games += 1
        for bot, score in zip(r["bots"], r["scores"], strict=True):
            got.totals[bot] = got.totals.get(bot, 0.0) + float(score)
    return list(out.values())


def standings(bots: Sequence[str], history: Sequence[StageRecord], results: Sequence[Mapping[str, Any]],
              expected: int) -> list[dict[str, Any]]:
    """The Swiss standings over complete meetings, best first: per bot ``{"bot_id", "rank",
    "points", "buchholz", "sonneborn_berger", "direct_encounter", "byes", "played", "opponents"}``
    (see the module's docstring for each; ``played``: complete meetings; ``opponents``: bot ids
    met, with repeats)."""
    done = [m for m in meetings_played(history, results, expected) if m.complete]
    points = {b: 0.0 for b in bots}
    byes = {b: 0 for b in bots}
    for rec in history:
        for b in rec["byes"]:
            byes[b] = byes.get(b, 0) + 1
            points[b] = points.get(b, 0.0) + BYE_POINTS
    for m in done:
        for b, p in m.points().items():
            points[b] = points.get(b, 0.0) + p
    opponents: dict[str, list[str]] = {b: [] for b in bots}
    buchholz = {b: 0.0 for b in bots}
    sb = {b: 0.0 for b in bots}
    for m in done:
        for b in m.bots:
            for o in m.bots:
                if o != b:
                    opponents.setdefault(b, []).append(o)
                    buchholz[b] = buchholz.get(b, 0.0) + points[o]
                    sb[b] = sb.get(b, 0.0) + points[o] * m.result(b, o)
    listed = {b: i for i, b in enumerate(bots)}

    def level(b: str) -> tuple[float, float, float]:
        return round(points[b], 6), round(buchholz[b], 6), round(sb[b], 6)

    groups: dict[tuple[float, float, float], set[str]] = {}
    for b in bots:
        groups.setdefault(level(b), set()).add(b)
    direct = {b: 0.0 for b in bots}
    for m in done:
        for b in m.bots:
            for o in m.bots:
                if o != b and o in groups[level(b)]:
                    direct[b] += m.result(b, o)
    order = sorted(bots, key=lambda b: (-points[b], -buchholz[b], -sb[b], -direct[b], listed[b]))
    return [{"bot_id": b, "rank": i + 1, "points": points[b], "buchholz": buchholz[b], "sonneborn_berger": sb[b],
             "direct_encounter": direct[b], "byes": byes[b], "played": len([m for m in done if b in m.bots]),
             "opponents": opponents[b]} for i, b in enumerate(order)]


def pick_byes(ranked: Sequence[str], count: int, byes: Mapping[str, int]) -> list[str]:
    """``count`` bots to sit out, lowest-ranked first among those with the fewest byes so far."""
    low_first = list(reversed(ranked))
    return sorted(low_first, key=lambda b: (byes.get(b, 0), low_first.index(b)))[:count]


def pair(ranked: Sequence[str], points: Mapping[str, float], met: Mapping[frozenset[str], int],
         noise: Sequence[int]) -> list[list[str]]:
    """Pairs of ``ranked`` (an even number of bots, best first) by a maximum-weight perfect
    matching: a rematch costs 10^6 per earlier meeting, a score difference of d points
    ``100 (2d)^2``, and ``noise`` (one small integer per pair of indexes, in
    ``itertools.combinations`` order) breaks ties. Each pair best-ranked first, pairs in order of
    their better bot."""
    g = nx.Graph()
    g.add_nodes_from(ranked)
    k = 0
    for i, a in enumerate(ranked):
        for b in ranked[i + 1:]:
            d = 2 * abs(points.get(a, 0.0) - points.get(b, 0.0))
            g.add_edge(a, b, weight=10**9 - 10**6 * met.get(frozenset((a, b)), 0) - int(100 * d * d) + noise[k])
            k += 1
    matching = nx.max_weight_matching(g, maxcardinality=True)
    pos = {b: i for i, b in enumerate(ranked)}
    pairs = [sorted(p, key=pos.__getitem__) for p in matching]
    return sorted(pairs, key=lambda p: pos[p[0]])


class Swiss:
    """``rounds`` Swiss rounds (see the module's docstring); each pairing (table) plays
    ``pairs_per_meeting`` duplicate pairs (sets) a round."""

    name: ClassVar[str] = "swiss"
    stops_early: ClassVar[bool] = False
    staged: ClassVar[bool] = True
    continuous: ClassVar[bool] = False

    def validate(self, bots: Sequence[str], seats: int, rounds: int) -> None:
        if not 1 <= rounds <= MAX_ROUNDS:
            raise InvalidArgumentError(f"rounds: a Swiss ladder plays 1..{MAX_ROUNDS} rounds, not {rounds}")
        if len(bots) < 2:
            raise InvalidArgumentError("a Swiss ladder needs at least two bots")

    def max_games(self, num_bots: int, seats: int, rounds: int, per_meeting: int, duplicate: bool) -> int:
        return rounds * (num_bots // seats) * per_meeting * legs_per_set(seats, duplicate)

    def stage(self, ctx: StageContext) -> Stage | None:
        if ctx.stage >= ctx.rounds:
            return None
        expected = ctx.per_meeting * legs_per_set(ctx.seats, ctx.duplicate)
        rows = standings(ctx.bots, ctx.history, ctx.results, expected)
        ranked = [r["bot_id"] for r in rows]
        byes = {r["bot_id"]: int(r["byes"]) for r in rows}
        points = {r["bot_id"]: float(r["points"]) for r in rows}
        out = pick_byes(ranked, len(ranked) % ctx.seats, byes)
        playing = [b for b in ranked if b not in out]
        if ctx.seats == 2:
            met: dict[frozenset[str], int] = {}
            for r in rows:
                for o in r["opponents"]:
                    key = frozenset((r["bot_id"], o))
                    met[key] = met.get(key, 0) + 1
            met = {k: v // 2 for k, v in met.items()}  # each meeting was counted from both sides
            n = len(ranked) - len(out)
            noise = [ctx.rng.randrange(10) for _ in range(n * (n - 1) // 2)]
            tables = pair(playing, points, met, noise)
            if out and any(frozenset(t) in met for t in tables):
                # another bye (next in line, as few byes so far) may leave a pairing without a rematch
                fewest = byes.get(out[0], 0)
                for other in pick_byes(ranked, BYE_CANDIDATES, byes)[1:]:
                    if byes.get(other, 0) != fewest:
                        break
                    rest = [b for b in ranked if b != other]
                    alt = pair(rest, points, met, noise)
                    if not any(frozenset(t) in met for t in alt):
                        out, tables = [other], alt
                        break
        else:
            tables = [playing[i:i + ctx.seats] for i in range(0, len(playing), ctx.seats)]
        number = ctx.stage + 1
        meetings = [Meeting(t, k, f"r{number}m{i + 1}") for k in range(ctx.per_meeting) for i, t in enumerate(tables)]
        return Stage(meetings, out, f"round {number}")

    def on_demand(self, ctx: DemandContext) -> list[Meeting]:
        return []

    def decided(self, pairs: Sequence[dict[str, Any]]) -> bool:
        return False

    def view(self, ctx: StageContext) -> dict[str, Any]:
        expected = ctx.per_meeting * legs_per_set(ctx.seats, ctx.duplicate)
        return {"standings": standings(ctx.bots, ctx.history, ctx.results, expected),
                "rounds": rounds_view(ctx.history, ctx.results, expected)}


def rounds_view(history: Sequence[StageRecord], results: Sequence[Mapping[str, Any]], expected: int
                ) -> list[dict[str, Any]]:
    """Each stage's meetings as played: ``{"stage", "label", "byes", "meetings": [{"key", "bots",
    "totals" (per bot, index as bots), "points" (per bot, once complete, else empty), "games",
    "expected", "complete"}]}``."""
    played = {(m.stage, m.key): m for m in meetings_played(history, results, expected)}
    out = []
    for rec in history:
        rows = []
        for m in rec["meetings"]:
            mr = played[(rec["stage"], m["key"])]
            pts = mr.points() if mr.complete else {}
            rows.append({"key": mr.key, "bots": mr.bots, "totals": [mr.totals.get(b, 0.0) for b in mr.bots],
                         "points": [pts[b] for b in mr.bots] if pts else [], "games": mr.games,
                         "expected": mr.expected, "complete": mr.complete})
        out.append({"stage": rec["stage"], "label": rec["label"], "byes": list(rec["byes"]), "meetings": rows})
    return out

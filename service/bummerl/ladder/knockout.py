"""The knockout format (issue 37): a single-elimination bracket of two-player ties, planned a round
at a time once the previous round is decided (docs/DESIGN.md §5).

* **Seeding**: the bots in the order the ladder lists them (seed 1 first), or by rating
  (``seeding = rating``: the pooled openskill ordinal of the variant's rating pool, best first,
  unrated bots after in listed order; decided at creation). The bracket has ``P`` slots, the
  next power of two; seeds are placed as in tennis and chess knockouts (1 and 2 can meet only in
  the final, 1-4 only in the semi-finals...), so a field that is not a power of two gives byes to
  the top ``P - n`` seeds in the first round.
* **A tie** is a mini-match of ``pairs_per_meeting`` duplicate pairs; the bot with the higher
  total game score over the tie's games goes through. Level after them, the tie goes on one
  duplicate pair at a time, at most :data:`EXTRA_PAIRS` more; still level, the higher total of
  game points over the tie's games decides, then the better seed.
* Three- and four-seat variants are refused: a bracket of tables would need a rule for how many
  of a table go through, which no source of these games gives; use Swiss or round robin.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from bummerl.core.errors import InvalidArgumentError

from .formats import DemandContext, Meeting, Stage, StageContext, StageRecord, legs_per_set

EXTRA_PAIRS = 4
"""Most duplicate pairs a tie level after its planned pairs plays, one at a time."""

MAX_BOTS = 1024
"""Most bots in a knockout."""


def seed_positions(size: int) -> list[int]:
    """Seeds (1-based) in bracket order for ``size`` slots (a power of two): consecutive slots
    meet in the first round, seeds 1 and 2 only in the final.

    >>> seed_positions(8)
    [1, 8, 4, 5, 2, 7, 3, 6]
    """
    order = [1]
    while len(order) < size:
        n = 2 * len(order) + 1
        order = [x for s in order for x in (s, n - s)]
    return order


@dataclass
class Tie:
    """One tie of the bracket: ``round`` (1 = first), ``index`` in its round, ``seeds`` and
    ``bots`` (None for a bye or a place not yet decided), the tie's ``score`` and ``game_points``
    per side over its recorded games, ``pairs`` complete duplicate pairs, ``games`` recorded,
    ``winner`` and ``decided_by`` (``score``, ``game_points``, ``seed``, ``bye``; "" while open)."""

    round: int
    index: int
    seeds: list[int | None]
    bots: list[str | None]
    score: list[float] = field(default_factory=lambda: [0.0, 0.0])
    game_points: list[int] = field(default_factory=lambda: [0, 0])
    pairs: int = 0
    games: int = 0
    winner: str | None = None
    decided_by: str = ""

    @property
    def key(self) -> str:
        return f"r{self.round}t{self.index + 1}"

    def to_dict(self) -> dict[str, Any]:
        return {"key": self.key, "round": self.round, "seeds": [s or 0 for s in self.seeds],
                "bots": [b or "" for b in self.bots], "score": list(self.score), "game_points": list(self.game_points),
                "pairs": self.pairs, "games": self.games, "winner": self.winner or "", "decided_by": self.decided_by}


def _decide(tie: Tie, known: tuple[bool, bool], per_meeting: int, legs: int, planned: int) -> None:
    """Decide ``tie`` from its recorded games once every planned game of it is in. ``known``: per
    side, whether its place is settled (a bot, or empty for a bye); a side still waiting for an
    earlier tie leaves the tie open."""
    a, b = tie.bots
    if not all(known):
        return
    if a is None or b is None:
        if a is not None or b is not None:
            tie.winner, tie.decided_by = a or b, "bye"
        return
    if tie.games < planned or tie.pairs < per_meeting:
        return
    if not math.isclose(tie.score[0], tie.score[1]):
        tie.winner, tie.decided_by = (a if tie.score[0] > tie.score[1] else b), "score"
    elif tie.pairs < per_meeting + EXTRA_PAIRS:
        return  # one more pair
    elif tie.game_points[0] != tie.game_points[1]:
        tie.winner, tie.decided_by = (a if tie.game_points[0] > tie.game_points[1] else b), "game_points"
    else:
        sa, sb = tie.seeds
        tie.winner, tie.decided_by = (a if (sa or 0) < (sb or 0) else b), "seed"


def bracket(bots: Sequence[str], history: Sequence[StageRecord], results: Sequence[Mapping[str, Any]],
            per_meeting: int, duplicate: bool = True) -> list[list[Tie]]:
    """The bracket as played so far: a list of rounds, each a list of :class:`Tie` (``bots`` in
    seed order; ``per_meeting``: pairs a tie plays before any tie-break pair)."""
    n = len(bots)
    size = 1 << max(1, (n - 1).bit_length())
    legs = legs_per_set(2, duplicate)
    planned: dict[str, int] = {}
    for rec in history:
        for m in rec["meetings"]:
            planned[m["key"]] = planned.get(m["key"], 0) + int(m.get("sets", 1)) * legs
    by_tie: dict[str, list[Mapping[str, Any]]] = {}
    for res in results:
        by_tie.setdefault(str(res.get("meeting", "")), []).append(res)
    # (seed, bot, known): an empty known place is a bye; an unknown one waits for an earlier tie
    entrants: list[tuple[int | None, str | None, bool]] = [
        (s, bots[s - 1], True) if s <= n else (None, None, True) for s in seed_positions(size)]
    rounds: list[list[Tie]] = []
    r = 1
    while len(entrants) > 1:
        ties = []
        nxt: list[tuple[int | None, str | None, bool]] = []
        for i in range(0, len(entrants), 2):
            (sa, a, ka), (sb, b, kb) = entrants[i], entrants[i + 1]
            tie = Tie(r, i // 2, [sa, sb], [a, b])
            games = by_tie.get(tie.key, [])
            sets: dict[Any, int] = {}
            for g in games:
                sets[g["pair"]] = sets.get(g["pair"], 0) + 1
                for side, bot in enumerate((a, b)):
                    if bot in g["bots"]:
                        seat = g["bots"].index(bot)
                        tie.score[side] += float(g["scores"][seat])
                        tie.game_points[side] += int(g["game_points"][seat])
            tie.games, tie.pairs = len(games), sum(1 for c in sets.values() if c >= legs)
            _decide(tie, (ka, kb), per_meeting, legs, planned.get(tie.key, 0))
            ties.append(tie)
            if tie.winner:
                nxt.append((tie.seeds[tie.bots.index(tie.winner)], tie.winner, True))
            else:
                nxt.append((None, None, ka and kb and a is None and b is None))
        rounds.append(ties)
        entrants = nxt
        r += 1
    return rounds


def round_name(r: int, total: int) -> str:
    """``final``, ``semi-final``, ``quarter-final``, else ``round R``."""
    left = total - r
    return {0: "final", 1: "semi-final", 2: "quarter-final"}.get(left, f"round {r}")


class Knockout:
    """A single-elimination bracket (see the module's docstring); ``rounds`` is not used (the
    bracket's size decides), ``pairs_per_meeting`` is the pairs of each tie."""

    name: ClassVar[str] = "knockout"
    stops_early: ClassVar[bool] = False
    staged: ClassVar[bool] = True
    continuous: ClassVar[bool] = False

    def validate(self, bots: Sequence[str], seats: int, rounds: int) -> None:
        if seats != 2:
            raise InvalidArgumentError(f"a knockout is played in two-player variants; this variant seats {seats} "
                                       f"(a bracket of tables has no rule for who goes through: use swiss or "
                                       f"round_robin)")
        if not 2 <= len(bots) <= MAX_BOTS:
            raise InvalidArgumentError(f"a knockout takes 2..{MAX_BOTS} bots, got {len(bots)}")

    def max_games(self, num_bots: int, seats: int, rounds: int, per_meeting: int, duplicate: bool) -> int:
        return (num_bots - 1) * (per_meeting + EXTRA_PAIRS) * legs_per_set(seats, duplicate)

    def stage(self, ctx: StageContext) -> Stage | None:
        rounds = bracket(ctx.bots, ctx.history, ctx.results, ctx.per_meeting, ctx.duplicate)
        for ties in rounds:
            open_ties = [t for t in ties if t.winner is None and None not in t.bots]
            if not open_ties:
                if any(t.winner is None for t in ties):
                    return None  # not expected: a place that nobody fills
                continue
            meetings: list[Meeting] = []
            extra = 0
            for t in open_ties:
                a, b = t.bots
                assert a is not None and b is not None
                want = ctx.per_meeting - t.pairs if t.pairs < ctx.per_meeting else 1
                extra = max(extra, t.pairs - ctx.per_meeting + 1 if t.pairs >= ctx.per_meeting else 0)
                meetings += [Meeting([a, b], t.pairs + k, t.key) for k in range(want)]
            name = round_name(ties[0].round, len(rounds))
            byes = [t.winner for t in ties if t.decided_by == "bye" and t.winner] if ties[0].round == 1 else []
            label = f"{name}, tie-break pair {extra}" if extra else name
            return Stage(sorted(meetings, key=lambda m: m.round), [b for b in byes if b], label)
        return None

    def on_demand(self, ctx: DemandContext) -> list[Meeting]:
        return []

    def decided(self, pairs: Sequence[dict[str, Any]]) -> bool:
        return False

    def view(self, ctx: StageContext) -> dict[str, Any]:
        rounds = bracket(ctx.bots, ctx.history, ctx.results, ctx.per_meeting, ctx.duplicate)
        return {"standings": [], "rounds": [{"stage": i, "label": round_name(i + 1, len(rounds)), "byes": [],
                                             "meetings": [t.to_dict() for t in ties]}
                                            for i, ties in enumerate(rounds)]}

"""The later-leg advantage of each bot of a ladder (issue 38): how much better a bot scores in the
later legs of its duplicate sets than in the earlier ones.

In a duplicate pair a bot's hand in one leg is its opponent's hand in the other, with the suits
relabelled, so a bot that remembers the hands it saw knows its opponent's hand in the later leg.
The server cannot reset a remote bot between the legs; it runs the legs of a set one at a time
and in a random order among other games (:func:`bummerl.ladder.formats.spread_legs`), and it
measures what is left: per complete set, the bot's mean score (``LadderResult.scores``) over the
later half of the set's legs minus its mean over the earlier half, in the order the legs were
recorded (two seats: later leg minus earlier leg, each in -1..1). Because which leg comes first is
random, the expectation is 0 for a bot without memory; a bot that plays better once it has seen
the set's deal scores above 0. Pure: no Redis.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, TypedDict

MIN_SETS_TO_FLAG = 10
"""A bot is flagged only over at least this many complete duplicate sets."""

_T975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145,
         2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048,
         2.045, 2.042)
"""Student's t, two-sided 95% (0.975 quantile), for 1..30 degrees of freedom."""


def t975(df: int) -> float:
    """The 0.975 quantile of Student's t with ``df`` >= 1 degrees of freedom (1.96 beyond 120,
    linear in 1/df between 30 and 120)."""
    if df <= 30:
        return _T975[df - 1]
    if df >= 120:
        return 1.96
    return 1.96 + (2.042 - 1.96) * (1 / df - 1 / 120) / (1 / 30 - 1 / 120)


class LaterLegView(TypedDict):
    """One bot's later-leg advantage (``LeaderboardEntry.later_leg``): ``sets`` complete duplicate
    sets measured, ``mean`` the mean difference (score units, -1..1), ``ci95_low`` /
    ``ci95_high`` its 95% interval (Student's t; both 0 with fewer than two sets), ``flagged``
    when ``ci95_low`` > 0 over at least :data:`MIN_SETS_TO_FLAG` sets."""

    sets: int
    mean: float
    ci95_low: float
    ci95_high: float
    flagged: bool


def later_leg_view(diffs: Sequence[float]) -> LaterLegView:
    """The :class:`LaterLegView` of one bot's per-set differences."""
    n = len(diffs)
    if n == 0:
        return {"sets": 0, "mean": 0.0, "ci95_low": 0.0, "ci95_high": 0.0, "flagged": False}
    mean = sum(diffs) / n
    if n < 2:
        return {"sets": 1, "mean": mean, "ci95_low": 0.0, "ci95_high": 0.0, "flagged": False}
    sd = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (n - 1))
    half = t975(n - 1) * sd / math.sqrt(n)
    low, high = mean - half, mean + half
    return {"sets": n, "mean": mean, "ci95_low": low, "ci95_high": high,
            "flagged": n >= MIN_SETS_TO_FLAG and low > 0}


class LaterLeg:
    """Folds a ladder's results (in result order) into each bot's per-set differences; a set
    counts once all its legs are in (2 with two seats, ``seats!`` with three or four). Results of
    games without duplicate deals never complete a set and count nothing."""

    def __init__(self) -> None:
        self.open: dict[Any, list[dict[str, Any]]] = {}
        self.diffs: dict[str, list[float]] = {}

    def add(self, r: dict[str, Any]) -> None:
        """Fold one result (``pair``, ``bots``, ``scores``)."""
        legs = self.open.setdefault(r["pair"], [])
        legs.append(r)
        if len(legs) < math.factorial(len(r["bots"])):
            return
        del self.open[r["pair"]]
        half = len(legs) // 2
        for bot in set(r["bots"]):
            own = [float(g["scores"][g["bots"].index(bot)]) for g in legs]
            self.diffs.setdefault(bot, []).append(sum(own[-half:]) / half - sum(own[:half]) / half)

    def view(self, bot: str) -> LaterLegView:
        """The bot's :class:`LaterLegView` so far."""
        return later_leg_view(self.diffs.get(bot, ()))

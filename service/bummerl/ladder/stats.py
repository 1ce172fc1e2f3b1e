"""Statistics of bot-vs-bot results: Elo difference with a 95% confidence interval, likelihood of
superiority (LOS) and the sequential probability ratio test (SPRT), from single games
(trinomial: loss, draw, win) or duplicate pairs (pentanomial: a pair's two games scored together).

Formulas (the ones fastchess and fishtest publish):

* Score to Elo (logistic): ``elo(s) = -400 * log10(1 / s - 1)``; Elo to score:
  ``s(e) = 1 / (1 + 10 ** (-e / 400))``.
* Pentanomial: a duplicate pair (the same deck played twice with the seats swapped) scores
  ``x`` in ``{0, 1/4, 1/2, 3/4, 1}`` (its two game scores averaged). Over ``N`` pairs with
  frequencies ``p_i``: mean ``m = sum p_i x_i``, per-pair variance ``var = sum p_i (x_i - m)^2``,
  standard error ``se = sqrt(var / N)``. The 95% interval of the score is ``m -/+ 1.959964 se``,
  mapped through ``elo()``: ``elo_low..elo_high``, which is not symmetric around ``elo``
  (-inf / +inf where the score bound leaves (0, 1)); ``elo_ci95`` is half its width (fastchess
  ``elo.cpp``, ``EloPentanomial``). Trinomial: the same with game scores ``{0, 1/2, 1}`` and ``N`` games.
  Pairs cancel the luck of the deal, so their ``var`` is smaller than two independent games'.
* LOS: ``Phi((m - 1/2) / se)`` (fastchess ``los``; Phi the normal CDF).
* SPRT, normal approximation of the generalised SPRT (Michel Van den Bergh; fishtest
  ``LLRcalc.py``, ``LLR_alt2``, times the number of units; not ``LLR_logistic``, which solves for
  the exact maximum-likelihood distributions): with ``s0 = s(elo0)``, ``s1 = s(elo1)``,
  ``LLR = N * (s1 - s0) * (2 m - s0 - s1) / (2 var)``; bounds ``A = ln(beta / (1 - alpha))``,
  ``B = ln((1 - beta) / alpha)``: accept H1 (``elo >= elo1``) when ``LLR >= B``, H0 when
  ``LLR <= A``, else continue. Elo bounds are logistic Elo. ``N``, ``m`` and ``var`` are
  *regularised* as fishtest's ``results_to_pdf`` and fastchess's ``SPRT::getLLR`` do, by a small
  count in every cell of the pentanomial (pairs: 0, 1/4, 1/2, 3/4, 1) or trinomial (games: 0,
  1/2, 1) table. They add 1e-3 to an empty cell, which is enough for their exact LLR but not for
  this approximation: after two pairs of 3/4 the variance is ~5e-4 and the LLR ~15, far past
  ``B``. Here every cell gets ``Sprt.prior`` = 1/2 (the Jeffreys prior of a multinomial), so a
  handful of equal units no longer decides the test; after a few hundred units the prior no
  longer matters. ``bummerl bench sprt`` (:mod:`bummerl.ladder.sprt_sim`) measures the error
  rates this gives.
* A stream without spread (every unit the same score, e.g. a bot that wins every pair): the
  approximation has no variance but the prior's to go on, and its LLR grows with ``N ** 2``: it
  decided after 15 equal units for [0, 10] (6-7 for [0, 50]). There the LLR is computed exactly,
  as fishtest's ``LLR_logistic`` (the generalised SPRT: ``N * sum p_i log(q1_i / q0_i)``, ``q0``
  and ``q1`` the maximum-likelihood distributions on the cells with mean ``s0`` and ``s1``,
  :func:`exact_llr`), with fishtest's regularisation (``results_to_pdf``: 1e-3 in an empty cell).
  Such a stream then decides where the exact GSPRT does: 101 units of 0 or 104 of 1 for [0, 10],
  20 / 23 for [0, 50]. Streams with any spread keep the approximation above (a stream with a
  single different unit still decides sooner than the exact test: 26 units instead of 106).

Scores are from the first bot's side: 1 = it won, 1/2 = drawn, 0 = it lost.

Games of three or four seats (:func:`placement_scores`) score each seat by the share of the other
teams (each seat its own team without teams) it placed ahead of, a shared place counting half:
1 = alone in first place, 0 = behind every other team; with two teams (2 seats, or 4 seats in two
partnerships) that is the same 1 / 1/2 / 0. Head-to-head statistics of two bots in such games
(:func:`head_to_head`) use the same rule for the two of them alone.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

Z95 = 1.959963984540054
"""Two-sided 95% quantile of the standard normal distribution."""

def elo_from_score(s: float) -> float:
    """Logistic Elo difference of an expected score ``s`` in (0, 1); +-inf at the ends.

    >>> round(elo_from_score(0.75), 2)
    190.85
    """
    if s <= 0:
        return -math.inf
    if s >= 1:
        return math.inf
    return -400.0 * math.log10(1.0 / s - 1.0)


def score_from_elo(elo: float) -> float:
    """Expected score of a logistic Elo difference.

    >>> round(score_from_elo(100), 4)
    0.6401
    """
    return float(1.0 / (1.0 + 10.0 ** (-elo / 400.0)))


def _phi(x: float) -> float:
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


@dataclass(frozen=True)
class Estimate:
    """``elo`` (a - b), ``elo_ci95`` (half width of the 95% interval; inf when unknown), ``los``
    (0..1), ``score`` (mean per game), ``var`` (per unit: pair or game), ``n`` (units),
    ``elo_low`` / ``elo_high`` (the 95% interval of the Elo difference, logistic Elo; -inf / +inf
    when unbounded or unknown). The interval is that of the score mapped through
    :func:`elo_from_score`, so ``elo - elo_ci95`` is *not* its lower end unless ``score`` is 1/2."""

    elo: float
    elo_ci95: float
    los: float
    score: float
    var: float
    n: int
    elo_low: float = -math.inf
    elo_high: float = math.inf


def estimate(values: Sequence[float]) -> Estimate:
    """Elo, interval and LOS from per-unit scores in [0, 1]: pair scores (pentanomial, each the
    mean of a pair's two games) or single game scores (trinomial). With fewer than two units
    the spread is unknown: the interval is infinite and LOS 0.5 (not "+/- 0, LOS 1" from a
    variance of one value); with units that all scored the same the interval is infinite too.
    An end of the score interval outside (0, 1) makes that end of the Elo interval infinite
    (and ``elo_ci95`` inf), not a figure of a clamped score."""
    n = len(values)
    if n == 0:
        return Estimate(0.0, math.inf, 0.5, 0.5, 0.0, 0)
    m = sum(values) / n
    if n == 1:
        return Estimate(elo_from_score(m), math.inf, 0.5, m, 0.0, 1)
    var = sum((x - m) ** 2 for x in values) / n
    se = math.sqrt(var / n)
    los = (1.0 if m > 0.5 else 0.0 if m < 0.5 else 0.5) if se == 0 else _phi((m - 0.5) / se)
    if m in (0.0, 1.0) or var == 0:  # every unit lost, won or scored alike: the interval is unknown
        return Estimate(elo_from_score(m), math.inf, los, m, var, n)
    elo_low, elo_high = elo_from_score(m - Z95 * se), elo_from_score(m + Z95 * se)
    return Estimate(elo_from_score(m), (elo_high - elo_low) / 2, los, m, var, n, elo_low, elo_high)


def placement_scores(placements: Sequence[int], team_of: Sequence[int]) -> list[float]:
    """Score per seat in [0, 1] of a finished game from its placements (place per seat, 1 =
    first, teammates share a place) and the team of each seat: the share of the other teams
    that placed behind the seat's team, a team on the same place counting half.

    >>> placement_scores([2, 1, 2, 1], [0, 1, 0, 1])  # two teams: the winners 1, the losers 0
    [0.0, 1.0, 0.0, 1.0]
    >>> placement_scores([1, 2, 2], [0, 1, 2])  # each for himself: first alone, two share second
    [1.0, 0.25, 0.25]
    >>> placement_scores([1, 1, 1], [0, 1, 2])  # abandoned: everybody first
    [0.5, 0.5, 0.5]

    Raises ValueError when the lengths differ or there is only one team.
    """
    if len(placements) != len(team_of):
        raise ValueError("placements and team_of need one entry per seat")
    place_of_team = {t: placements[s] for s, t in enumerate(team_of)}
    if len(place_of_team) < 2:
        raise ValueError("placement_scores needs at least two teams")
    out = []
    for s, t in enumerate(team_of):
        others = [p for u, p in place_of_team.items() if u != t]
        out.append(sum(_beats(placements[s], p) for p in others) / len(others))
    return out


def _beats(mine: int, theirs: int) -> float:
    return 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0


def head_to_head(placements: Sequence[int], team_of: Sequence[int], i: int, j: int) -> float | None:
    """Score of seat ``i`` against seat ``j`` of one game: 1 placed ahead, 1/2 same place, 0
    behind; None when they are partners (one team: a shared result says nothing of the two).

    >>> head_to_head([1, 2, 3], [0, 1, 2], 2, 1), head_to_head([2, 1, 2, 1], [0, 1, 0, 1], 0, 2)
    (0.0, None)
    """
    if team_of[i] == team_of[j]:
        return None
    return _beats(placements[i], placements[j])


def pentanomial(pair_scores: Sequence[float]) -> list[int]:
    """Counts of pair scores ``[0, 1/4, 1/2, 3/4, 1]`` (each a pair's mean game score)."""
    counts = [0] * 5
    for x in pair_scores:
        counts[min(4, max(0, round(x * 4)))] += 1
    return counts


PENTANOMIAL = (0.0, 0.25, 0.5, 0.75, 1.0)
"""Scores of a duplicate pair (its two games averaged): the cells of the pentanomial table."""
TRINOMIAL = (0.0, 0.5, 1.0)
"""Scores of a single game (loss, draw, win): the cells of the trinomial table."""


def cells_of(values: Sequence[float]) -> tuple[float, ...]:
    """The table the unit scores ``values`` belong to: :data:`TRINOMIAL` when every value is 0,
    1/2 or 1 (games; also duplicate pairs that had no drawn game so far), else
    :data:`PENTANOMIAL`."""
    return TRINOMIAL if all(x in TRINOMIAL for x in values) else PENTANOMIAL


MAX_SPRT_ELO = 1000.0
"""Largest Elo difference an SPRT's hypotheses may name (a 1000-point edge wins ~99.7% of games)."""


@dataclass(frozen=True)
class Sprt:
    """SPRT settings: H0 ``elo <= elo0``, H1 ``elo >= elo1`` (logistic Elo), error rates
    ``alpha`` (accepting H1 at ``elo0``) and ``beta`` (accepting H0 at ``elo1``), and ``prior``,
    the count added to every cell of the result table before the LLR is taken (see the module
    docstring). Raises ValueError on ``elo1 <= elo0``, an Elo outside +/-:data:`MAX_SPRT_ELO` (or not
    finite), rates outside (0, 0.5) or ``prior <= 0``."""

    elo0: float = 0.0
    elo1: float = 10.0
    alpha: float = 0.05
    beta: float = 0.05
    prior: float = 0.5

    def __post_init__(self) -> None:
        if not all(math.isfinite(x) and -MAX_SPRT_ELO <= x <= MAX_SPRT_ELO for x in (self.elo0, self.elo1)):
            raise ValueError(f"sprt elo0 and elo1 must be in -{MAX_SPRT_ELO:g}..{MAX_SPRT_ELO:g}, got {self.elo0:g}, {self.elo1:g}")
        if not self.elo1 > self.elo0:
            raise ValueError("sprt needs elo1 > elo0")
        if not (0 < self.alpha < 0.5 and 0 < self.beta < 0.5):
            raise ValueError("sprt alpha and beta must be in (0, 0.5)")
        if not self.prior > 0:
            raise ValueError("sprt prior must be > 0")

    @property
    def bounds(self) -> tuple[float, float]:
        """``(A, B)``: accept H0 at ``LLR <= A``, H1 at ``LLR >= B``."""
        return math.log(self.beta / (1 - self.alpha)), math.log((1 - self.beta) / self.alpha)

    def llr(self, values: Sequence[float], cells: Sequence[float] | None = None) -> float:
        """Log-likelihood ratio of H1 against H0 from per-unit scores (pairs or games), each cell
        of ``cells`` (:data:`PENTANOMIAL` or :data:`TRINOMIAL`; default :func:`cells_of`
        ``values``) counted ``prior`` more times. 0.0 without units.

        >>> round(Sprt().llr([0.75, 0.75]), 3)  # two pairs of 3/4 no longer accept H1 (B = 2.944)
        0.057
        """
        if not values:
            return 0.0
        return self.llr_from_sums(len(values), sum(values), sum(x * x for x in values),
                                  cells_of(values) if cells is None else cells)

    def llr_from_sums(self, n: int, total: float, total_sq: float, cells: Sequence[float]) -> float:
        """:meth:`llr` from ``n`` units, the sum of their scores and the sum of their squares
        (so a sequential run updates three numbers per unit instead of re-reading its units).
        Units without spread (``n * total_sq == total ** 2``: all the same score) get the exact
        LLR (:func:`exact_llr`, see the module docstring)."""
        if n <= 0:
            return 0.0
        s0, s1 = score_from_elo(self.elo0), score_from_elo(self.elo1)
        if abs(n * total_sq - total * total) <= 1e-9 * max(1.0, total * total):
            value = total / n
            counts = [float(n) if abs(x - value) < 1e-9 else 0.0 for x in cells]
            if any(counts):
                return exact_llr(counts, cells, s0, s1)
        c = self.prior
        big_n = n + c * len(cells)
        m = (total + c * sum(cells)) / big_n
        var = (total_sq + c * sum(x * x for x in cells)) / big_n - m * m
        return big_n * (s1 - s0) * (2 * m - s0 - s1) / (2 * var)

    def verdict(self, values: Sequence[float], cells: Sequence[float] | None = None) -> str:
        """``"H1"``, ``"H0"`` or ``""`` (undecided)."""
        a, b = self.bounds
        llr = self.llr(values, cells)
        return "H1" if llr >= b else "H0" if llr <= a else ""


FISHTEST_EPSILON = 1e-3
"""What fishtest's ``results_to_pdf`` puts in an empty cell of the result table."""


def _mle(cells: Sequence[float], probs: Sequence[float], s: float) -> list[float]:
    """The distribution on ``cells`` of mean ``s`` nearest (maximum likelihood) to ``probs``:
    ``q_i = p_i / (1 + t (x_i - s))`` with ``t`` the root of ``sum p_i (x_i - s) / (1 + t (x_i -
    s)) = 0`` (decreasing in ``t``; bisection on the interval that keeps every ``q_i`` positive)."""
    lo, hi = -1.0 / (max(cells) - s), 1.0 / (s - min(cells))
    for _ in range(200):
        t = (lo + hi) / 2
        if t in (lo, hi):
            break
        f = sum(p * (x - s) / (1 + t * (x - s)) for x, p in zip(cells, probs, strict=True))
        if f > 0:
            lo = t
        else:
            hi = t
    t = (lo + hi) / 2
    return [p / (1 + t * (x - s)) for x, p in zip(cells, probs, strict=True)]


def exact_llr(counts: Sequence[float], cells: Sequence[float], s0: float, s1: float) -> float:
    """The generalised SPRT's log-likelihood ratio of the result table ``counts`` (per cell of
    ``cells``), as fishtest's ``LLR_logistic``: empty cells get :data:`FISHTEST_EPSILON`, then
    ``N * sum p_i log(q1_i / q0_i)`` with ``q0``, ``q1`` the maximum-likelihood distributions of
    mean ``s0``, ``s1`` (:func:`_mle`). 0.0 without units.

    >>> round(exact_llr([0, 0, 0, 0, 101], PENTANOMIAL, 0.5, score_from_elo(10)), 3)
    2.865
    """
    if not any(counts):
        return 0.0
    regular = [k if k > 0 else FISHTEST_EPSILON for k in counts]
    big_n = sum(regular)
    probs = [k / big_n for k in regular]
    q0, q1 = _mle(cells, probs, s0), _mle(cells, probs, s1)
    return big_n * sum(p * math.log(b / a) for p, a, b in zip(probs, q0, q1, strict=True))

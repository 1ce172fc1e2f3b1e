"""Seeded simulation of the ladder's SPRT (:class:`bummerl.ladder.stats.Sprt`): how often it
accepts the wrong hypothesis (``bummerl bench sprt``; a small version runs in the tests).

Each run draws unit scores (duplicate pairs or single games) from a fixed distribution whose mean
is the expected score of a true Elo difference, one unit at a time, and asks the SPRT after every
unit, as the ladder does after every result, until it accepts H0 or H1. At true ``elo0`` the share
of runs accepting H1 is the false-positive rate (nominal ``alpha``); at true ``elo1`` the share
accepting H0 is the false-negative rate (nominal ``beta``). A rate is measured with a standard
error of ``sqrt(rate (1 - rate) / runs)``, ~0.005 for 0.05 and 2,000 runs; the benchmark calls a
rate within nominal when it is at most nominal + :func:`tolerance` (3 such errors: 0.015 there).

The distributions (:data:`SHAPES`) are the pentanomial of random vs random duplicate pairs
measured with ``bummerl bench strong --bot random --opponent random --pairs 300 --variant
schnapsen-at`` ([48, 0, 195, 0, 57]: one-deal games have no draws), a drawish pentanomial and
decisive single games; :func:`tilt` moves a shape to the mean of a given Elo the way fishtest's
``LLRcalc.MLE_expected`` does (``p_i / (1 + x (a_i - s))``, the distribution of that mean
closest to the shape).
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Sequence
from typing import Any

from .stats import PENTANOMIAL, TRINOMIAL, Sprt, score_from_elo


def tolerance(nominal: float, runs: int) -> float:
    """How far over a ``nominal`` error rate the share of ``runs`` simulated runs may be and still
    count as within it: 3 standard errors, ``3 sqrt(nominal (1 - nominal) / runs)`` (0.0146 for
    0.05 and 2,000 runs)."""
    return 3 * math.sqrt(nominal * (1 - nominal) / runs)

SHAPES: dict[str, tuple[tuple[float, ...], tuple[float, ...]]] = {
    "pairs, random vs random": (PENTANOMIAL, (48, 0, 195, 0, 57)),
    "pairs, drawish": (PENTANOMIAL, (5, 20, 50, 20, 5)),
    "games, no draws": (TRINOMIAL, (1, 0, 1)),
}
"""Name -> (cells, relative frequencies at Elo 0 or near it) of the simulated unit scores."""


def tilt(weights: Sequence[float], cells: Sequence[float], score: float) -> list[float]:
    """Probabilities over ``cells`` with mean ``score`` (0 < score < 1), closest to ``weights``
    (made positive: every cell gets at least 1e-6 of the mass): ``p_i = w_i / (1 + x (a_i - s))``
    with ``x`` solved by bisection (fishtest ``MLE_expected``). Raises ValueError for a score
    outside the cells' range."""
    if not min(cells) < score < max(cells):
        raise ValueError(f"score {score} outside the cells {list(cells)}")
    total = sum(weights)
    w = [max(x / total, 1e-6) for x in weights]
    lo, hi = -1 / (max(cells) - score), -1 / (min(cells) - score)
    for _ in range(200):
        x = (lo + hi) / 2
        if sum(p * (a - score) / (1 + x * (a - score)) for a, p in zip(cells, w, strict=True)) > 0:
            lo = x
        else:
            hi = x
    p = [q / (1 + x * (a - score)) for a, q in zip(cells, w, strict=True)]
    return [q / sum(p) for q in p]


def run_once(sprt: Sprt, cells: Sequence[float], probs: Sequence[float], rng: random.Random,
             max_units: int = 1_000_000) -> tuple[str, int]:
    """One SPRT run: units drawn from ``probs`` over ``cells`` until a verdict. Returns
    ``(verdict, units)``, verdict ``"H1"``, ``"H0"`` or ``""`` after ``max_units``."""
    a, b = sprt.bounds
    n, total, total_sq = 0, 0.0, 0.0
    while n < max_units:
        for x in rng.choices(cells, probs, k=256):
            n += 1
            total += x
            total_sq += x * x
            llr = sprt.llr_from_sums(n, total, total_sq, cells)
            if llr >= b:
                return "H1", n
            if llr <= a:
                return "H0", n
    return "", n


def error_rates(sprt: Sprt, runs: int = 2000, seed: int = 1, shapes: Sequence[str] | None = None) -> list[dict[str, Any]]:
    """Per shape of :data:`SHAPES` (default all): ``runs`` seeded runs at true ``elo0`` and as many
    at true ``elo1``. Returns one dict per shape: ``shape``, ``runs``, ``false_positive`` (share
    of runs at ``elo0`` that accepted H1), ``false_negative`` (share at ``elo1`` that accepted
    H0), ``mean_units_elo0`` / ``mean_units_elo1`` (units a run took), ``within`` (both rates
    at most nominal + :func:`tolerance`)."""
    out = []
    for name in shapes or list(SHAPES):
        cells, weights = SHAPES[name]
        row: dict[str, Any] = {"shape": name, "runs": runs, "elo0": sprt.elo0, "elo1": sprt.elo1,
                               "alpha": sprt.alpha, "beta": sprt.beta, "prior": sprt.prior}
        for key, elo, wrong in (("elo0", sprt.elo0, "H1"), ("elo1", sprt.elo1, "H0")):
            probs = tilt(weights, cells, score_from_elo(elo))
            rng = random.Random(f"bummerl/sprt-sim/{seed}/{name}/{elo}")
            results = [run_once(sprt, cells, probs, rng) for _ in range(runs)]
            row["false_positive" if key == "elo0" else "false_negative"] = sum(v == wrong for v, _ in results) / runs
            row[f"mean_units_{key}"] = round(sum(u for _, u in results) / runs, 1)
        row["within"] = (row["false_positive"] <= sprt.alpha + tolerance(sprt.alpha, runs)
                         and row["false_negative"] <= sprt.beta + tolerance(sprt.beta, runs))
        out.append(row)
    return out


def print_bench(runs: int = 2000, seed: int = 1, as_json: bool = False, sprt: Sprt | None = None) -> int:
    """``bummerl bench sprt``: print :func:`error_rates` of the ladder's default SPRT (or
    ``sprt``), one line per shape, "OVER" where a rate is past its tolerance. Returns 0."""
    sprt = sprt or Sprt()
    rows = error_rates(sprt, runs, seed)
    for r in rows:
        if as_json:
            print(json.dumps(r), flush=True)
            continue
        print(f"sprt [{sprt.elo0:g}, {sprt.elo1:g}] alpha {sprt.alpha:g} beta {sprt.beta:g} prior {sprt.prior:g}, "
              f"{r['shape']}: {runs} runs each; accepted H1 at Elo {sprt.elo0:g}: {r['false_positive']:.4f} "
              f"(mean {r['mean_units_elo0']:.0f} units), accepted H0 at Elo {sprt.elo1:g}: {r['false_negative']:.4f} "
              f"(mean {r['mean_units_elo1']:.0f} units); {'within' if r['within'] else 'OVER'} nominal + "
              f"{tolerance(sprt.alpha, runs):.4f} (3 standard errors)", flush=True)
    return 0

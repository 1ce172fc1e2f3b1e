"""Ladder statistics against hand-computed values (formulas of fastchess and fishtest, see
service/bummerl/ladder/stats.py)."""

from __future__ import annotations

import math

import pytest

from bummerl.ladder.sprt_sim import error_rates, tilt, tolerance
from bummerl.ladder.stats import (
    PENTANOMIAL,
    TRINOMIAL,
    Sprt,
    cells_of,
    elo_from_score,
    estimate,
    exact_llr,
    head_to_head,
    pentanomial,
    placement_scores,
    score_from_elo,
)


def test_elo_score_round_trip_and_known_points() -> None:
    assert elo_from_score(0.5) == 0
    assert elo_from_score(0.75) == pytest.approx(400 * math.log10(3))  # 190.849
    assert score_from_elo(100) == pytest.approx(0.640065, abs=1e-6)
    for e in (-350.0, -20.0, 0.0, 5.0, 240.0):
        assert elo_from_score(score_from_elo(e)) == pytest.approx(e)
    assert elo_from_score(1.0) == math.inf and elo_from_score(0.0) == -math.inf


def test_pentanomial_symmetric_pairs_hand_computed() -> None:
    # counts [1, 2, 4, 2, 1] of pair scores 0, 1/4, 1/2, 3/4, 1: mean 1/2, var 0.075 per pair
    pairs = [0.0] + [0.25] * 2 + [0.5] * 4 + [0.75] * 2 + [1.0]
    assert pentanomial(pairs) == [1, 2, 4, 2, 1]
    est = estimate(pairs)
    assert est.score == 0.5 and est.elo == 0 and est.los == pytest.approx(0.5)
    assert est.var == pytest.approx(0.075)
    se = math.sqrt(0.075 / 10)  # 0.0866
    hi = -400 * math.log10(1 / (0.5 + 1.959964 * se) - 1)  # elo of the upper score bound, 122.8
    assert hi == pytest.approx(122.8, abs=0.1)
    assert est.elo_ci95 == pytest.approx(hi, abs=1e-3)  # symmetric around 0


def test_winning_pairs_give_positive_elo_with_interval_and_high_los() -> None:
    pairs = [0.75] * 30 + [0.5] * 60 + [0.25] * 10  # mean 0.55
    est = estimate(pairs)
    assert est.score == pytest.approx(0.55)
    assert est.elo == pytest.approx(-400 * math.log10(1 / 0.55 - 1))  # 34.86
    var = (30 * 0.2 ** 2 + 60 * 0.05 ** 2 + 10 * 0.3 ** 2) / 100  # 0.0225
    assert est.var == pytest.approx(var)
    se = math.sqrt(var / 100)
    assert est.los == pytest.approx(0.5 * (1 + math.erf((0.05 / se) / math.sqrt(2))))  # 0.9996
    lo, hi = 0.55 - 1.959964 * se, 0.55 + 1.959964 * se
    half = (-400 * math.log10(1 / hi - 1) + 400 * math.log10(1 / lo - 1)) / 2
    assert est.elo_ci95 == pytest.approx(half, rel=1e-5)
    assert est.elo - est.elo_ci95 > 0


def test_trinomial_games_and_empty_input() -> None:
    games = [1.0] * 6 + [0.5] * 2 + [0.0] * 2  # 7/10
    est = estimate(games)
    assert est.score == pytest.approx(0.7) and est.elo == pytest.approx(147.19, abs=0.01)
    assert estimate([]).elo_ci95 == math.inf


def test_one_unit_or_no_spread_gives_an_unknown_interval() -> None:
    """One pair (or game) has no measurable spread: the interval is unknown (infinite) and LOS
    0.5, not "+/- 0.0, LOS 1.000"; units that all scored alike also leave the interval unknown."""
    one = estimate([0.75])
    assert one.elo == pytest.approx(190.85, abs=0.01) and one.elo_ci95 == math.inf and one.los == 0.5 and one.n == 1
    same = estimate([0.75, 0.75, 0.75])
    assert same.elo_ci95 == math.inf and same.los == 1.0
    assert math.isfinite(estimate([0.75, 0.5]).elo_ci95)
    assert estimate([1.0, 1.0]).los == 1.0
    assert estimate([1.0, 1.0]).elo == math.inf and estimate([1.0, 1.0]).elo_ci95 == math.inf
    assert estimate([0.0, 0.0]).elo == -math.inf


def test_sprt_llr_hand_computed_and_verdicts() -> None:
    """LLR_alt2 times N on the table with 1/2 added to every pentanomial cell."""
    sprt = Sprt(elo0=0, elo1=10, alpha=0.05, beta=0.05)
    a, b = sprt.bounds
    assert a == pytest.approx(math.log(0.05 / 0.95)) and b == pytest.approx(math.log(0.95 / 0.05))  # -+2.944
    pairs = [0.75] * 30 + [0.5] * 60 + [0.25] * 10  # counts [0, 10, 60, 30, 0]
    # regularised counts [0.5, 10.5, 60.5, 30.5, 0.5]: N 102.5, sum 56.25, sum of squares 33.4375
    n, m = 102.5, 56.25 / 102.5  # m 0.548780
    var = 33.4375 / 102.5 - m * m  # 0.025061
    s1 = 1 / (1 + 10 ** (-10 / 400))  # 0.514387
    expected = n * (s1 - 0.5) * (2 * m - 0.5 - s1) / (2 * var)
    assert sprt.llr(pairs) == pytest.approx(expected)  # 2.447
    assert sprt.llr_from_sums(100, sum(pairs), sum(x * x for x in pairs), PENTANOMIAL) == pytest.approx(expected)
    assert sprt.verdict(pairs) == ""
    assert sprt.verdict(pairs * 2) == "H1"  # N 200
    losing = [0.25] * 30 + [0.5] * 60 + [0.75] * 10
    assert sprt.llr(losing) < a and sprt.verdict(losing) == "H0"
    assert sprt.llr([]) == 0.0
    with pytest.raises(ValueError, match="elo1 > elo0"):
        Sprt(elo0=5, elo1=5)
    with pytest.raises(ValueError, match="prior"):
        Sprt(prior=0)


def test_sprt_a_few_equal_pairs_do_not_decide() -> None:
    """Two pairs of 3/4 (or five of 1/2) have no measurable spread: the LLR stays far inside the
    bounds instead of dividing by a made-up variance of 1e-3 (which accepted H1 after two pairs)."""
    sprt = Sprt(elo0=0, elo1=10)
    a, b = sprt.bounds
    for units in ([0.75, 0.75], [0.75] * 3, [0.5] * 5, [1.0, 1.0], [0.25, 0.25]):
        assert a < sprt.llr(units) < b and sprt.verdict(units) == "", units
    # two pairs of 3/4 and one of 1/2, regularised [0.5, 0.5, 1.5, 2.5, 0.5]: N 5.5, m 3.25 / 5.5,
    # E[x^2] 2.3125 / 5.5
    m = 3.25 / 5.5
    var = 2.3125 / 5.5 - m * m
    s1 = score_from_elo(10)
    assert sprt.llr([0.75, 0.75, 0.5]) == pytest.approx(5.5 * (s1 - 0.5) * (2 * m - 0.5 - s1) / (2 * var))  # 0.066
    # units without spread (issue 38): the exact GSPRT, not the approximation's 0.079
    assert sprt.llr([0.75, 0.75]) == pytest.approx(exact_llr([0, 0, 0, 2, 0], PENTANOMIAL, 0.5, s1))  # 0.057


def test_sprt_of_games_regularises_the_trinomial() -> None:
    """Single games (0, 1/2, 1) get 1/2 in each of the three trinomial cells, as pairs get it in
    the five pentanomial ones; pairs without a drawn game so far are read as the trinomial too."""
    sprt = Sprt(elo0=0, elo1=10)
    games = [1.0] * 7 + [0.0] * 3
    assert cells_of(games) == TRINOMIAL and cells_of([0.75, 0.5]) == PENTANOMIAL
    # regularised counts [3.5, 0.5, 7.5] of 0, 1/2, 1: N 11.5, sum 7.75, sum of squares 7.625
    m = 7.75 / 11.5
    var = 7.625 / 11.5 - m * m
    s1 = score_from_elo(10)
    expected = 11.5 * (s1 - 0.5) * (2 * m - 0.5 - s1) / (2 * var)
    assert sprt.llr(games) == pytest.approx(expected)
    assert sprt.llr(games, PENTANOMIAL) != pytest.approx(expected)  # the table decides the prior
    assert sprt.verdict([1.0] * 3) == ""  # three won games


def test_sprt_error_rates_of_a_seeded_simulation() -> None:
    """A small version of ``bummerl bench sprt``: 300 runs at true elo0 and 300 at true elo1 (a
    wider [0, 40] so that runs are short) keep both error rates near the nominal 5%: at most
    5% + 3 standard errors of 300 runs (0.038). The 1e-3 variance of before gave ~0.11 / ~0.15
    on these shapes."""
    sprt = Sprt(elo0=0, elo1=40, alpha=0.05, beta=0.05)
    limit = 0.05 + tolerance(0.05, 300)
    rows = error_rates(sprt, runs=300, seed=7, shapes=["pairs, random vs random", "games, no draws"])
    for r in rows:
        assert r["false_positive"] <= limit and r["false_negative"] <= limit, r
        assert r["mean_units_elo0"] > 20 and r["mean_units_elo1"] > 20 and r["within"], r


def test_tilt_moves_a_shape_to_the_score_of_an_elo() -> None:
    p = tilt([48, 0, 195, 0, 57], PENTANOMIAL, score_from_elo(10))
    assert sum(p) == pytest.approx(1) and min(p) > 0
    assert sum(a * q for a, q in zip(PENTANOMIAL, p, strict=True)) == pytest.approx(score_from_elo(10))
    with pytest.raises(ValueError, match="outside"):
        tilt([1, 1, 1], TRINOMIAL, 1.0)


def test_interval_is_the_elo_of_the_score_interval_not_a_symmetric_half_width() -> None:
    """The 95% interval of the Elo difference is elo() of the score interval, which is lopsided
    away from a score of 1/2; an end of the score interval at or past 1 is unbounded."""
    pairs = [0.75] * 30 + [0.5] * 60 + [0.25] * 10  # mean 0.55, var 0.0225
    est = estimate(pairs)
    se = math.sqrt(0.0225 / 100)
    assert est.elo_low == pytest.approx(-400 * math.log10(1 / (0.55 - 1.959964 * se) - 1), rel=1e-5)  # 14.3
    assert est.elo_high == pytest.approx(-400 * math.log10(1 / (0.55 + 1.959964 * se) - 1), rel=1e-5)  # 55.6
    assert est.elo_low < est.elo < est.elo_high
    assert est.elo_ci95 == pytest.approx((est.elo_high - est.elo_low) / 2)
    assert est.elo_high - est.elo != pytest.approx(est.elo - est.elo_low, rel=1e-3)  # not symmetric
    near_top = estimate([1.0] * 11 + [0.5])  # mean 0.958: the upper end of the score interval passes 1
    assert near_top.elo_high == math.inf and near_top.elo_ci95 == math.inf
    assert 0 < near_top.elo_low < near_top.elo


def test_bench_strong_prints_the_interval_of_ladder_stats() -> None:
    """``bummerl bench strong`` reports elo_low / elo_high of :func:`estimate` on its own pairs
    (rebuilt from its pentanomial), not ``elo -/+ elo_ci95``."""
    from bummerl_bench.benches import bench_strong

    [r] = bench_strong(pairs=12, variant="schnapsen-at", bot="greedy", opponent="random")
    pairs = [cell / 4 for cell, count in enumerate(r["pentanomial"]) for _ in range(count)]
    est = estimate(pairs)

    def fin(x: float) -> float | None:
        return round(x, 1) if math.isfinite(x) else None

    assert r["pairs"] == len(pairs) == 12 and r["score"] == pytest.approx(est.score, abs=1e-4)
    assert (r["elo"], r["elo_low"], r["elo_high"]) == (fin(est.elo), fin(est.elo_low), fin(est.elo_high))
    assert r["elo_low"] is not None and r["elo_low"] > 0  # greedy beats random; elo - half width was -482


def test_placement_scores_of_teams_and_free_for_all() -> None:
    assert placement_scores([2, 1, 2, 1], [0, 1, 0, 1]) == [0.0, 1.0, 0.0, 1.0]
    assert placement_scores([1, 1, 1, 1], [0, 1, 0, 1]) == [0.5] * 4  # abandoned: shared first place
    assert placement_scores([1, 2], [0, 1]) == [1.0, 0.0]  # two seats: the two-player 1 / 0
    assert placement_scores([1, 2, 2], [0, 1, 2]) == [1.0, 0.25, 0.25]
    assert placement_scores([1, 1, 3], [0, 1, 2]) == [0.75, 0.75, 0.0]
    assert placement_scores([3, 1, 2], [0, 1, 2]) == [0.0, 1.0, 0.5]
    assert head_to_head([3, 1, 2], [0, 1, 2], 2, 0) == 1.0 and head_to_head([1, 1, 3], [0, 1, 2], 0, 1) == 0.5
    assert head_to_head([1, 2, 1, 2], [0, 1, 0, 1], 1, 3) is None  # partners
    with pytest.raises(ValueError, match="two teams"):
        placement_scores([1, 1], [0, 0])
    with pytest.raises(ValueError, match="one entry per seat"):
        placement_scores([1, 2, 3], [0, 1])


def test_bench_strong_whole_matches_and_a_time_control() -> None:
    """``bench strong --deals 0`` plays whole matches to the target (AT-MATCH-1: several deals a
    game, every game decided by the match, none by a deal limit); ``--tc`` charges each bot's
    thinking to its clock (SRV-5): a bot slower than its move time loses every game on time."""
    import time as _time

    from bummerl.bots import BOTS, make_bot
    from bummerl_bench.benches import bench_strong

    [r] = bench_strong(pairs=3, variant="schnapsen-at", bot="greedy", opponent="random", deals=0)
    assert r["unit"] == "pair of whole matches" and r["deals_per_game"] == 0
    assert r["deals"] > 2 * 3 * 2  # a match to 7 takes more than two deals
    assert r["timeouts"] == r["opponent_timeouts"] == 0 and r["tc"] is None

    class Slow:
        def __init__(self, seed: int | None = None) -> None:
            self.inner = make_bot("greedy", seed)

        def choose(self, info: object) -> int | str:
            _time.sleep(0.03)
            return self.inner.choose(info)

    BOTS["slow-test"] = Slow
    try:
        [t] = bench_strong(pairs=2, variant="schnapsen-at", bot="slow-test", opponent="random", tc="move=0.01")
    finally:
        del BOTS["slow-test"]
    assert t["timeouts"] == 4 and t["opponent_timeouts"] == 0 and t["score"] == 0.0 and t["tc"] == "move=0.01"
    with pytest.raises(ValueError, match="two seats"):
        bench_strong(pairs=1, variant="stockschnapsen", bot="greedy", opponent="random", deals=0)


def _decides_after(sprt: Sprt, unit: float, cells: tuple[float, ...]) -> int:
    """How many equal units ``unit`` it takes for ``sprt`` to decide (first N with a verdict)."""
    return next(n for n in range(1, 1000) if sprt.verdict([unit] * n, cells))


@pytest.mark.parametrize(("elo1", "unit", "exact"), [
    (10, 0.0, 101), (10, 1.0, 104), (10, 0.75, 104), (10, 0.25, 101),
    (50, 0.0, 20), (50, 1.0, 23), (50, 0.75, 23), (50, 0.25, 20),
])
def test_sprt_a_stream_of_equal_units_decides_where_the_exact_gsprt_does(elo1: int, unit: float, exact: int) -> None:
    """Issue 38: a stream without spread (every pair the same result) decided after 15 pairs for
    [0, 10] and 6-7 for [0, 50] (the approximation's variance is the prior's alone). It now
    decides where the exact GSPRT does (fishtest's LLR_logistic with its 1e-3 regularisation:
    101 losing pairs for [0, 10], the figure fishtest gives; ``exact`` here, within 2 units), as
    pairs or as games."""
    sprt = Sprt(elo0=0, elo1=elo1)
    for cells in (PENTANOMIAL, cells_of([unit])):
        assert abs(_decides_after(sprt, unit, cells) - exact) <= 2, (unit, cells)
    # and never before: at 15 (or 5) equal pairs the test goes on
    assert sprt.verdict([unit] * (15 if elo1 == 10 else 5), PENTANOMIAL) == ""
    assert sprt.verdict([unit] * (exact + 2), PENTANOMIAL) == ("H1" if unit > 0.5 else "H0")


def test_exact_llr_of_equal_units_is_n_times_the_log_ratio_of_the_scores() -> None:
    """All N units won: the maximum-likelihood distribution of mean s puts s on a win (the rest on
    the farthest cell), so the exact LLR is about N log(s1 / s0); the sums path gives the same."""
    s1 = score_from_elo(10)
    assert exact_llr([0, 0, 0, 0, 100], PENTANOMIAL, 0.5, s1) == pytest.approx(100 * math.log(s1 / 0.5), rel=1e-3)
    sprt = Sprt(elo0=0, elo1=10)
    assert sprt.llr([1.0] * 100, PENTANOMIAL) == pytest.approx(exact_llr([0, 0, 0, 0, 100], PENTANOMIAL, 0.5, s1))
    assert sprt.llr_from_sums(100, 100.0, 100.0, PENTANOMIAL) == pytest.approx(sprt.llr([1.0] * 100, PENTANOMIAL))
    assert exact_llr([0, 0, 0], TRINOMIAL, 0.5, s1) == 0.0

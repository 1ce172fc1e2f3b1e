"""Ladder statistics against hand-computed values (formulas of fastchess and fishtest, see
service/bummerl/ladder/stats.py)."""

from __future__ import annotations

import math

import pytest

from bummerl.ladder.stats import (
    Sprt,
    elo_from_score,
    estimate,
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
    sprt = Sprt(elo0=0, elo1=10, alpha=0.05, beta=0.05)
    a, b = sprt.bounds
    assert a == pytest.approx(math.log(0.05 / 0.95)) and b == pytest.approx(math.log(0.95 / 0.05))  # -+2.944
    pairs = [0.75] * 30 + [0.5] * 60 + [0.25] * 10  # m 0.55, var 0.0225, N 100
    s1 = 1 / (1 + 10 ** (-10 / 400))  # 0.514387
    expected = 100 * (s1 - 0.5) * (2 * 0.55 - 0.5 - s1) / (2 * 0.0225)
    assert sprt.llr(pairs) == pytest.approx(expected)  # 2.7373
    assert sprt.verdict(pairs) == ""
    assert sprt.verdict(pairs * 2) == "H1"  # N 200: 5.47 >= 2.944
    losing = [0.25] * 30 + [0.5] * 60 + [0.75] * 10
    assert sprt.llr(losing) < a and sprt.verdict(losing) == "H0"
    with pytest.raises(ValueError, match="elo1 > elo0"):
        Sprt(elo0=5, elo1=5)


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

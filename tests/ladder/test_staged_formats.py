"""Swiss and knockout, planned stage by stage from the results (issue 37): pairing properties
(no rematch while avoidable, byes rotate, deterministic from the seed), the tiebreaks, and
brackets of 2 to 17 bots with their byes and tie-breaks. Pure: the results are made up here."""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable
from typing import Any

import networkx as nx
import pytest

from bummerl.core.errors import InvalidArgumentError
from bummerl.ladder.formats import StageContext, StageRecord, plan_meetings, stage_record
from bummerl.ladder.knockout import EXTRA_PAIRS, Knockout, bracket, seed_positions
from bummerl.ladder.swiss import Swiss, standings

Outcome = Callable[[list[str], int], list[float]]
"""(bots by seat, leg) -> scores by seat."""


def stronger_listed_first(order: list[str]) -> Outcome:
    rank = {b: i for i, b in enumerate(order)}
    return lambda bots, leg: [1.0 if rank[b] == min(rank[x] for x in bots) else 0.0 for b in bots]


def run(fmt: Any, bots: list[str], seats: int, rounds: int, outcome: Outcome, per_meeting: int = 1,
        seed: int = 1, max_stages: int = 200) -> tuple[list[StageRecord], list[dict[str, Any]]]:
    """Plan every stage of ``fmt`` and 'play' it with ``outcome``; returns the stages and results."""
    history: list[StageRecord] = []
    results: list[dict[str, Any]] = []
    games = pairs = 0
    for number in range(max_stages):
        rng = random.Random(f"{seed}:{number}")
        st = fmt.stage(StageContext(bots, seats, rounds, per_meeting, True, number, list(history), list(results), rng))
        if st is None:
            return history, results
        history.append(stage_record(number, st))
        planned = plan_meetings(st.meetings, seats, True, rng, (), lambda n: f"m{n}", games, pairs, number)
        games += len(planned)
        pairs += len(st.meetings)
        for g in planned:
            scores = outcome(g["bots"], g["leg"])
            results.append({**g, "scores": scores, "game_points": [int(3 * s) for s in scores]})
    raise AssertionError("the format never finished")


def test_swiss_pairs_without_rematches_while_avoidable_and_rotates_byes() -> None:
    for n, seed in itertools.product((6, 7, 8, 9, 12), range(4)):
        bots = [f"b{i}" for i in range(n)]
        rng = random.Random(seed)
        strength = {b: rng.random() for b in bots}
        history, _ = run(Swiss(), bots, 2, 5, stronger_listed_first(sorted(bots, key=lambda b, s=strength: -s[b])),
                         seed=seed)
        assert len(history) == 5
        met: set[frozenset[str]] = set()
        byes: list[str] = []
        for rec in history:
            seen = [b for m in rec["meetings"] for b in m["bots"]] + rec["byes"]
            assert sorted(seen) == sorted(bots)  # every bot plays once or has the bye
            assert len(rec["byes"]) == n % 2
            byes += rec["byes"]
            pairs = [frozenset(m["bots"]) for m in rec["meetings"]]
            rematches = [p for p in pairs if p in met]
            if rematches:  # only when no pairing of the playing bots avoided every rematch
                playing = [b for b in bots if b not in rec["byes"]]
                fresh = nx.Graph([(a, b) for a, b in itertools.combinations(playing, 2) if frozenset((a, b)) not in met])
                assert len(nx.max_weight_matching(fresh, maxcardinality=True)) < len(playing) // 2
            met.update(pairs)
        assert len(byes) == len(set(byes))  # a different bot each time


def test_swiss_first_rounds_pair_equal_scores() -> None:
    bots = [f"b{i}" for i in range(8)]
    history, results = run(Swiss(), bots, 2, 3, stronger_listed_first(bots))
    rows = standings(bots, history[:1], [r for r in results if r["stage"] == 0], 2)
    winners = {r["bot_id"] for r in rows if r["points"] == 1}
    assert len(winners) == 4
    second = [set(m["bots"]) for m in history[1]["meetings"]]
    assert all(p <= winners or not p & winners for p in second)  # winners meet winners in round 2
    final = standings(bots, history, results, 2)
    assert final[0]["bot_id"] == "b0" and final[0]["points"] == 3.0


def test_swiss_is_deterministic_from_the_seed() -> None:
    bots = [f"b{i}" for i in range(10)]
    def draw(bs: list[str], leg: int) -> list[float]:
        return [0.5] * len(bs)  # everybody level: the seed decides the pairings

    one = run(Swiss(), bots, 2, 4, draw, seed=3)[0]
    assert run(Swiss(), bots, 2, 4, draw, seed=3)[0] == one
    assert run(Swiss(), bots, 2, 4, draw, seed=4)[0] != one


def test_swiss_tiebreaks_buchholz_sonneborn_berger_and_direct_encounter() -> None:
    """Four bots, two rounds by hand: a beat b, c drew d; then a drew c, b beat d."""
    bots = ["a", "b", "c", "d"]
    history: list[StageRecord] = [
        {"stage": 0, "label": "round 1", "byes": [], "meetings": [{"key": "r1m1", "bots": ["a", "b"], "sets": 1},
                                                                 {"key": "r1m2", "bots": ["c", "d"], "sets": 1}]},
        {"stage": 1, "label": "round 2", "byes": [], "meetings": [{"key": "r2m1", "bots": ["a", "c"], "sets": 1},
                                                                 {"key": "r2m2", "bots": ["b", "d"], "sets": 1}]}]

    def res(stage: int, key: str, bots: list[str], scores: list[float]) -> list[dict[str, Any]]:
        return [{"stage": stage, "meeting": key, "bots": bots, "scores": scores},
                {"stage": stage, "meeting": key, "bots": bots[::-1], "scores": scores[::-1]}]

    results = (res(0, "r1m1", ["a", "b"], [1, 0]) + res(0, "r1m2", ["c", "d"], [0.5, 0.5])
               + res(1, "r2m1", ["a", "c"], [0.5, 0.5]) + res(1, "r2m2", ["b", "d"], [1, 0]))
    rows = {r["bot_id"]: r for r in standings(bots, history, results, 2)}
    assert [rows[b]["points"] for b in bots] == [1.5, 1.0, 1.0, 0.5]
    assert rows["a"]["buchholz"] == 2.0 and rows["b"]["buchholz"] == 2.0  # a: b 1 + c 1; b: a 1.5 + d 0.5
    assert rows["c"]["buchholz"] == 2.0 and rows["d"]["buchholz"] == 2.0
    assert rows["a"]["sonneborn_berger"] == 1.5  # beat b (1) + half of c (1)
    assert rows["b"]["sonneborn_berger"] == 0.5 and rows["c"]["sonneborn_berger"] == 1.0  # d 0.5; half a + half d
    order = [r["bot_id"] for r in standings(bots, history, results, 2)]
    assert order == ["a", "c", "b", "d"]  # b and c level on points and Buchholz: c's Sonneborn-Berger


def test_swiss_three_seats_sits_neighbouring_scores_together() -> None:
    bots = [f"b{i}" for i in range(7)]
    history, _ = run(Swiss(), bots, 3, 3, stronger_listed_first(bots))
    for rec in history:
        assert len(rec["byes"]) == 1 and all(len(m["bots"]) == 3 for m in rec["meetings"])
    assert len({b for rec in history for b in rec["byes"]}) == 3


def test_seed_positions_keep_the_top_seeds_apart() -> None:
    assert seed_positions(2) == [1, 2] and seed_positions(4) == [1, 4, 2, 3]
    p16 = seed_positions(16)
    assert sorted(p16) == list(range(1, 17)) and p16.index(2) >= 8 and p16[:2] == [1, 16]


@pytest.mark.parametrize("n", range(2, 18))
def test_knockout_of_2_to_17_bots(n: int) -> None:
    bots = [f"s{i}" for i in range(1, n + 1)]
    history, results = run(Knockout(), bots, 2, 1, stronger_listed_first(bots), per_meeting=2)
    rounds = bracket(bots, history, results, 2)
    size = 1 << max(1, (n - 1).bit_length())
    assert len(rounds) == size.bit_length() - 1
    assert rounds[-1][0].winner == "s1" and rounds[-1][0].decided_by in ("score", "bye")
    byes = [t for t in rounds[0] if t.decided_by == "bye"]
    assert sorted(t.winner for t in byes) == sorted(bots[:size - n], key=bots.index) or len(byes) == size - n
    assert {t.winner for t in byes} == set(bots[:size - n])  # the top seeds get the byes
    played = [t for ties in rounds for t in ties if t.decided_by != "bye"]
    assert len(played) == n - 1 and all(t.pairs == 2 for t in played)
    assert len(results) == (n - 1) * 2 * 2


def test_a_level_knockout_tie_goes_on_pair_by_pair_then_game_points_then_seed() -> None:
    bots = ["a", "b"]
    history, results = run(Knockout(), bots, 2, 1, lambda bs, leg: [0.5, 0.5], per_meeting=2)
    (tie,) = bracket(bots, history, results, 2)[0]
    assert tie.pairs == 2 + EXTRA_PAIRS and tie.decided_by == "seed" and tie.winner == "a"
    assert [rec["label"] for rec in history][:2] == ["final", "final, tie-break pair 1"]

    def b_more_points(bs: list[str], leg: int) -> list[float]:
        return [0.5, 0.5]

    history, results = run(Knockout(), bots, 2, 1, b_more_points, per_meeting=1)
    for r in results:  # level on score, b more game points
        r["game_points"] = [2 if x == "b" else 1 for x in r["bots"]]
    (tie,) = bracket(bots, history, results, 1)[0]
    assert tie.decided_by == "game_points" and tie.winner == "b"


def test_knockout_refuses_three_and_four_seats() -> None:
    with pytest.raises(InvalidArgumentError, match="two-player"):
        Knockout().validate(["a", "b", "c"], 3, 1)

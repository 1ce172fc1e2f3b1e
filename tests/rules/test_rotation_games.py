"""``stockschnapsen`` (docs/RULES.md §7) and ``snapszer-hu-3p-rotation`` (§8): two of three seats
play each deal under the two-player rules of their parent variant; the third sits out."""

from __future__ import annotations

import random

import pytest

from bummerl.rules import DealState, IllegalActionError, MatchState, find_variant, information_set, new_match
from bummerl.rules.match.state import deal_deck

STK = "stockschnapsen"
HU3R = "snapszer-hu-3p-rotation"


def finish_deal(m: MatchState, rng: random.Random) -> None:
    n = m.deal_number
    while not m.over and m.deal_number == n:
        m.apply(rng.choice(m.legal_actions()))


def play_until_over(m: MatchState, seed: int = 0) -> MatchState:
    rng = random.Random(seed)
    while not m.over:
        m.apply(rng.choice(m.legal_actions()))
    return m


# ------------------------------------------------------------------------------ stockschnapsen
def test_STK_INH_1_each_deal_is_a_schnapsen_at_deal() -> None:
    """STK-INH-1: the deal of a pair is dealt and played exactly as the schnapsen-at deal of the
    same deck (same hands, trump card, talon, legal actions) with the pair's seats."""
    m = new_match(STK, seed=5, first_dealer=0)
    at = find_variant("schnapsen-at").configure()
    twin = DealState.new(at, deal_deck(5, 0, at.deck), 0)
    d = m.deal
    assert d.hands == twin.hands and d.talon == twin.talon and d.trump == twin.trump
    assert m.legal_actions() == twin.legal_actions()
    assert find_variant(STK).configure().talon == at.talon


def test_STK_SEAT_1_two_play_one_watches() -> None:
    """STK-SEAT-1: three seats; each deal has two players; the watcher holds no cards and is never
    to act; one deal per pairing."""
    m = new_match(STK, seed=8, first_dealer=0)
    assert m.num_seats == 3 and m.deal.seats == (0, 1)
    info = information_set(m, 2)
    assert info["deal"]["hand"] == [] and info["legal_actions"] == []
    assert info["deal"]["hand_sizes"] == [5, 5, 0]
    rng = random.Random(1)
    for _ in range(40):
        assert m.to_act in m.deal.seats
        m.apply(rng.choice(m.legal_actions()))
        if m.over:
            break


def test_STK_ROT_1_pairings_rotate_clockwise() -> None:
    """STK-ROT-1: deal 1 players 1 & 2, deal 2 players 2 & 3, deal 3 players 3 & 1, deal 4 1 & 2."""
    m = new_match(STK, {"match_target": 30}, seed=2, first_dealer=0)
    rng = random.Random(2)
    seen = []
    while len(seen) < 4:
        seen.append(m.deal.seats)
        finish_deal(m, rng)
    assert seen == [(0, 1), (1, 2), (2, 0), (0, 1)]


def test_STK_ROT_2_OPEN_STK_1_first_listed_deals_the_other_leads() -> None:
    """STK-ROT-2 / OPEN-STK-1: in the pairing X & Y, X deals and Y leads; seat 1 is the first
    dealer drawn by the server (SRV-4). ``alternate_per_pair`` swaps the dealer when the pair
    meets again."""
    m = new_match(STK, {"match_target": 30}, seed=4, first_dealer=1)
    assert (m.dealer, m.to_act) == (1, 2)
    rng = random.Random(4)
    finish_deal(m, rng)
    assert (m.dealer, m.to_act) == (2, 0)
    m = new_match(STK, {"match_target": 30, "pair_dealer": "alternate_per_pair"}, seed=4, first_dealer=0)
    order = []
    while len(order) < 4:
        order.append((m.dealer, m.to_act))
        finish_deal(m, rng)
    assert order == [(0, 1), (1, 2), (2, 0), (1, 0)]


def test_STK_SCORE_1_winner_and_watcher_are_credited() -> None:
    """STK-SCORE-1: the game points of a deal go to its winner and to the watcher."""
    for seed in range(20):
        m = new_match(STK, {"match_target": 30}, seed=seed)
        seats = m.deal.seats
        finish_deal(m, random.Random(seed))
        r = m.results[0]
        watcher = ({0, 1, 2} - set(seats)).pop()
        assert r.seats == seats
        assert r.winner in seats
        loser = (set(seats) - {r.winner}).pop()
        assert r.game_points[r.winner] == r.game_points[watcher] > 0 and r.game_points[loser] == 0
        assert m.game_points == list(r.game_points)


def test_STK_MATCH_1_first_to_7_is_first() -> None:
    """STK-MATCH-1: the game ends as soon as a seat reaches 7; that seat is first."""
    for seed in range(30):
        m = play_until_over(new_match(STK, seed=seed), seed)
        assert max(m.game_points) >= 7
        top = max(m.game_points)
        if m.game_points.count(top) == 1:
            assert m.placements[m.game_points.index(top)] == 1 and m.winner == m.game_points.index(top)
        assert m.end_reason == "target_reached"


def _seed_with_playoff(place: int) -> MatchState:
    for seed in range(2000):
        m = play_until_over(new_match(STK, seed=seed), seed)
        po = [r for r in m.results if r.playoff]
        if po:
            tied = [s for s in range(3) if m.game_points[s] == m.game_points[po[0].seats[0]]]
            top = max(m.game_points)
            if (m.game_points[po[0].seats[0]] == top) == (place == 1) and len(tied) == 2:
                return m
    raise AssertionError("no play-off found")


def test_STK_MATCH_2_OPEN_STK_2_equal_totals_at_7_play_off() -> None:
    """STK-MATCH-2 / OPEN-STK-2: the deal winner and the watcher reaching 7 with equal totals play
    one schnapsen-at deal; its winner is first, the other second."""
    m = _seed_with_playoff(1)
    po = next(r for r in m.results if r.playoff)
    a, b = po.seats
    assert m.game_points[a] == m.game_points[b] == max(m.game_points) >= 7
    assert m.placements[po.winner] == 1 and m.placements[a if po.winner == b else b] == 2
    assert m.winner == po.winner


def test_STK_MATCH_3_equal_others_play_for_second_place() -> None:
    """STK-MATCH-3: when the two others have equal scores, one deal decides second place."""
    m = _seed_with_playoff(2)
    po = next(r for r in m.results if r.playoff)
    a, b = po.seats
    assert m.game_points[a] == m.game_points[b] < max(m.game_points)
    loser = a if po.winner == b else b
    assert m.placements[po.winner] == 2 and m.placements[loser] == 3


def test_STK_MATCH_4_OPEN_STK_3_play_off_scores_nothing() -> None:
    """STK-MATCH-4 / OPEN-STK-3: play-off deals rank only: no game points are added; the match's
    totals are those of the regular deals."""
    m = _seed_with_playoff(2)
    regular = [r for r in m.results if not r.playoff]
    assert m.game_points == [sum(r.game_points[s] for r in regular) for s in range(3)]
    assert all(sum(r.game_points) == 0 for r in m.results if r.playoff)
    assert MatchState.from_dict(m.to_dict()) == m


# ------------------------------------------------------------------------------ rotation (HU)
def test_HU3R_INH_1_each_deal_is_a_snapszer_hu_2p_deal() -> None:
    """HU3R-INH-1: a deal is dealt and played as the snapszer-hu-2p deal of the same deck."""
    m = new_match(HU3R, seed=9, first_dealer=2)
    hu2 = find_variant("snapszer-hu-2p").configure()
    twin = DealState.new(hu2, deal_deck(9, 0, hu2.deck), 0)
    assert m.deal.hands == twin.hands and m.deal.talon == twin.talon
    assert m.legal_actions() == twin.legal_actions()
    assert m.deal.seats == (2, 0)


def test_HU3R_ROT_1_OPEN_HU3R_1_who_sits_out() -> None:
    """HU3R-ROT-1 / OPEN-HU3R-1: ``cyclic`` pairs 1 & 2, 2 & 3, 3 & 1; ``loser_sits_out`` sends
    the deal's loser out and the seat that sat out deals to the winner."""
    rng = random.Random(3)
    m = new_match(HU3R, {"match_target": 40}, seed=3, first_dealer=0)
    seen = []
    while len(seen) < 3:
        seen.append(m.deal.seats)
        finish_deal(m, rng)
    assert seen == [(0, 1), (1, 2), (2, 0)]
    m = new_match(HU3R, {"match_target": 40, "rotation": "loser_sits_out"}, seed=3, first_dealer=0)
    for _ in range(4):
        before = m.deal.seats
        finish_deal(m, rng)
        w = m.results[-1].winner
        sitter = ({0, 1, 2} - set(before)).pop()
        assert m.deal.seats == (sitter, w)


def test_HU3R_SCORE_1_only_the_deal_winner_scores() -> None:
    """HU3R-SCORE-1: only the game points a player wins in his own deals count; the one sitting
    out receives nothing."""
    for seed in range(20):
        m = new_match(HU3R, {"match_target": 40}, seed=seed)
        finish_deal(m, random.Random(seed))
        r = m.results[0]
        assert [s for s in range(3) if r.game_points[s]] == [r.winner]


def test_HU3R_MATCH_1_OPEN_HU3R_2_first_to_limit_places_by_score() -> None:
    """HU3R-MATCH-1 / OPEN-HU3R-2: first to 7 wins; places 2 and 3 by score, equal scores share
    the place; no play-off deals."""
    for seed in range(40):
        m = play_until_over(new_match(HU3R, seed=seed), seed)
        assert m.rules.set_goal == 7
        assert not any(r.playoff for r in m.results)
        first = m.placements.index(1)
        assert m.game_points[first] >= 7 and m.winner == first
        others = [s for s in range(3) if s != first]
        a, b = others
        if m.game_points[a] == m.game_points[b]:
            assert m.placements[a] == m.placements[b] == 2
        else:
            assert sorted(m.placements) == [1, 2, 3]


def test_rotation_games_reject_a_sitting_out_seat_and_bad_options() -> None:
    """The seat that sits out never acts; unknown option values fail at configure time."""
    m = new_match(STK, seed=1, first_dealer=0)
    assert m.to_act != 2
    with pytest.raises(ValueError):
        new_match(HU3R, {"rotation": "random"})
    with pytest.raises(IllegalActionError):
        m.apply(88)  # mordkontra: not an action of this variant, never legal

"""``snapszer-hu-4p`` (docs/RULES.md §12) at deal level. Standard table: dealer 3, so the hívó is
seat 0, his partner seat 2 (team 0), the fogadó players seats 1 and 3 (team 1); each hand lists
its three first-round cards first. Every HU4-* and OPEN-HU4-* rule id has a test named after it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from bummerl.rules.deals.contract_hu import HuContractDeal
from bummerl.rules.variants.snapszer_hu3s import SPEC as SOPRON
from bummerl.rules.variants.snapszer_hu4 import SPEC

from .helpers import match_verdict, next_dealer_after_one_deal
from .test_snapszer_hu3s import act, awards, bids, hand, legal, no_leak, random_playouts
from .test_snapszer_hu3s import make as make_any

# Q: the hívó's team is strong (the partner holds AC TC over the hívó's KC).
Q_HANDS = [
    ["AH", "TH", "KH", "KC", "JC"],
    ["AS", "TS", "KS", "QS", "JS"],
    ["QH", "JH", "QC", "AC", "TC"],
    ["AD", "TD", "KD", "QD", "JD"],
]
# R: the fogadó team is strong.
R_HANDS = [
    ["JC", "QC", "JS", "QS", "JD"],
    ["AH", "TH", "KH", "AC", "TC"],
    ["KC", "KS", "QD", "KD", "JH"],
    ["AS", "TS", "AD", "TD", "QH"],
]
# M: the hívó holds the trump marriage.
M_HANDS = [
    ["KH", "QH", "AH", "AC", "TC"],
    ["AS", "TS", "KS", "QS", "JS"],
    ["TH", "JH", "KC", "QC", "JC"],
    ["AD", "TD", "KD", "QD", "JD"],
]
# J: the hívó's partner holds the four alsó.
J_HANDS = [
    ["AH", "TH", "KH", "AC", "TC"],
    ["AS", "TS", "KS", "QS", "KC"],
    ["JH", "JC", "JS", "JD", "QC"],
    ["AD", "TD", "KD", "QD", "QH"],
]


def make(hands: Sequence[Sequence[str]], dealer: int = 3, options: dict[str, Any] | None = None) -> HuContractDeal:
    return make_any(hands, dealer, options, SPEC)


def bid_round(hands: Sequence[Sequence[str]], *calls: str, **options: Any) -> HuContractDeal:
    d = make(hands, options=options)
    act(d, *calls)
    return d


def test_HU4_SEAT_1_teams_zero_two_against_one_three() -> None:
    assert SPEC.teams == (0, 1, 0, 1)
    d = bid_round(Q_HANDS, "bid mehet", "pass", "pass", "pass")
    assert d.side == [0, 1, 0, 1]
    assert d.view(0)["auction"]["contract"]["partners"] == [2]


@pytest.mark.parametrize("dealer", [0, 1, 2, 3])
def test_HU4_SEAT_2_hivo_left_of_dealer(dealer: int) -> None:
    hands = [Q_HANDS[(s - dealer - 1) % 4] for s in range(4)]
    d = make(hands, dealer=dealer)
    assert d.hivo == (dealer + 1) % 4 == d.to_act
    assert next_dealer_after_one_deal(SPEC.id, dealer) == (dealer + 1) % 4


def test_OPEN_HU4_2_hivo_rotates_clockwise() -> None:
    assert [next_dealer_after_one_deal(SPEC.id, d) for d in range(4)] == [1, 2, 3, 0]
    d = make([Q_HANDS[(s - 1) % 4] for s in range(4)], dealer=0)
    assert d.to_act == 1 and legal(d) == bids("mehet", "snapszer", "kilences", "paraszt")


def test_HU4_DEAL_1_three_then_two() -> None:
    d = make(Q_HANDS)
    assert [hand(d, s) for s in range(4)] == [set(h) for h in Q_HANDS]
    d = make(Q_HANDS, options={"trump_always_hearts": False})
    assert [len(hand(d, s)) for s in range(4)] == [3, 3, 3, 3]
    assert hand(d, 0) == {"AH", "TH", "KH"}


def test_HU4_DEAL_2_trump_hearts_or_named_after_three_cards() -> None:
    d = make(Q_HANDS)
    assert d.trump == 2 and d.phase == "bidding" and "trump H" not in legal(d)
    d = make(Q_HANDS, options={"trump_always_hearts": False})
    assert legal(d) == {"trump C", "trump S", "trump H", "trump D"}
    act(d, "trump C")
    assert d.trump == 0 and [len(hand(d, s)) for s in range(4)] == [5, 5, 5, 5] and d.to_act == 0


def test_OPEN_HU4_1_trump_always_hearts_default() -> None:
    assert SPEC.configure().options["trump_always_hearts"] is True
    d = make(Q_HANDS, options={"trump_always_hearts": False, "trump_must_be_held": True})
    assert legal(d) == {"trump H"}


def test_HU4_INH_1_announcements_as_sopron() -> None:
    d = make(Q_HANDS)
    assert legal(d) == bids("mehet", "snapszer", "kilences", "paraszt")
    act(d, "bid snapszer")
    assert d.to_act == 1 and legal(d) == {"pass", "kontra"} | bids("kilences", "ellensnapszer", "ellenparaszt")
    act(d, "pass")
    assert d.to_act == 2 and legal(d) == {"pass"}  # the hívó's partner: pass (or 4 alsó)
    act(d, "pass", "pass")
    assert d.phase == "lead" and d.contract == "snapszer"
    assert SOPRON.action_kinds - SPEC.action_kinds == {"discard"}


def test_HU4_PLAY_1_strict_even_against_partner() -> None:
    d = bid_round(Q_HANDS, "bid mehet", "pass", "pass", "pass")
    act(d, "KC", "AS")
    assert legal(d) == {"play AC", "play TC"}  # must head the partner's KC
    d = bid_round(Q_HANDS, "bid mehet", "pass", "pass", "pass", must_head_over_partner=False)
    act(d, "KC", "AS")
    assert legal(d) == {"play AC", "play TC", "play QC"}


def test_HU4_LEAD_1_hivo_leads_also_fogado_contracts() -> None:
    d = bid_round(R_HANDS, "bid mehet", "bid ellensnapszer", "pass", "pass", "pass", "pass")
    assert d.phase == "lead" and d.to_act == 0
    d = bid_round(R_HANDS, "bid mehet", "bid ellensnapszer", "pass", "pass", "pass", "pass",
                  defender_contract_first_lead="announcer")
    assert d.to_act == 1


def test_HU4_END_1_base_game_last_trick() -> None:
    d = bid_round(Q_HANDS, "bid mehet", "pass", "pass", "pass")
    act(d, "AH", "JS", "JH", "JD", "TH", "QS", "QH", "QD", "KH", "KS", "QC", "KD",
        "KC", "TS", "AC", "TD", "TC", "AD", "JC", "AS")
    assert d.over and d.outcome is not None and d.outcome.reason == "last_trick"
    assert awards(d) == [3, 0, 3, 0] and d.outcome.winner == 0


def test_HU4_CON_1_mehet_team_scale() -> None:
    d = bid_round(M_HANDS, "bid mehet", "pass", "pass", "pass")
    act(d, "marriage KH", "JS", "TH", "JD")  # partner's TH heads the KH: 18 + 40 counted
    assert d.side_points(0) == 58
    act(d, "KC", "QD", "AC", "QS")  # 79
    assert d.to_act == 0
    act(d, "declare")
    assert awards(d) == [3, 0, 3, 0] and d.outcome is not None and d.outcome.reason == "declared"


def test_HU4_MAR_1_marriage_counts_for_team_after_a_trick_elég_by_teammate() -> None:
    d = bid_round(M_HANDS, "bid mehet", "pass", "pass", "pass")
    assert "marriage KH" in legal(d) and "declare" not in legal(d)
    act(d, "marriage KH")
    assert d.side_points(0) == 0  # pending
    act(d, "JS", "TH", "JD")
    assert d.to_act == 2 and "declare" in legal(d)
    act(d, "declare")  # 58: a false elég by the partner, the other team +3
    assert awards(d) == [0, 3, 0, 3] and d.outcome is not None and d.outcome.reason == "false_declaration"


def test_HU4_CON_2_snapszer_team() -> None:
    d = bid_round(Q_HANDS, "bid snapszer", "pass", "pass", "pass")
    act(d, "AH", "JS", "JH", "JD", "TH", "QS", "QH", "QD", "KH", "KS", "QC", "KD", "KC", "TS", "AC", "TD")
    assert d.over and awards(d) == [6, 0, 6, 0] and d.trick_no == 4  # 86 after four tricks
    d = bid_round(R_HANDS, "bid snapszer", "pass", "pass", "pass")
    act(d, "JC", "AC", "KC", "QH")
    assert d.over and awards(d) == [0, 6, 0, 6] and d.outcome is not None and d.outcome.winner == 1


def test_HU4_CON_3_kilences_partner_tricks_do_not_defeat() -> None:
    seq = ["AH", "JS", "JH", "JD", "TH", "QS", "QH", "QD", "KH", "KS", "QC", "KD",
           "KC", "TS", "AC", "TD", "TC", "AD", "JC", "AS"]
    d = bid_round(Q_HANDS, "bid kilences", "pass", "pass", "pass")
    assert d.trump == -1
    act(d, *seq)
    assert awards(d) == [9, 0, 9, 0] and d.tricks_won == [3, 0, 2, 0]


def test_OPEN_HU4_3_kilences_partner_tricks_option() -> None:
    d = bid_round(Q_HANDS, "bid kilences", "pass", "pass", "pass", kilences_partner_tricks_allowed=False)
    act(d, "AH", "JS", "JH", "JD", "TH", "QS", "QH", "QD", "KH", "KS", "QC", "KD", "KC", "TS", "AC", "TD")
    assert d.over and awards(d) == [0, 9, 0, 9]


def test_HU4_CON_4_paraszt_partner_may_not_take_a_trick() -> None:
    d = bid_round(Q_HANDS, "bid paraszt", "pass", "pass", "pass")
    act(d, "AH", "JS", "JH", "JD", "TH", "QS", "QH", "QD", "KH", "KS", "QC", "KD", "KC", "TS", "AC", "TD")
    assert d.over and awards(d) == [0, 12, 0, 12] and d.outcome is not None and d.outcome.reason == "contract_defeated"


def test_HU4_CON_5_four_also_team_gains_13() -> None:
    d = make(J_HANDS)
    act(d, "bid mehet", "kontra")
    assert d.to_act == 2 and legal(d) == {"pass", "bid negyalso"}
    act(d, "bid negyalso")
    assert d.over and awards(d) == [13, 0, 13, 0] and d.outcome is not None and d.outcome.winner == 0


def test_HU4_CON_6_ellensnapszer_team() -> None:
    d = bid_round(R_HANDS, "bid mehet", "bid ellensnapszer", "pass", "pass")
    assert d.phase == "kontra" and d.to_act == 2 and legal(d) == {"pass", "kontra"}  # hívó's team first
    act(d, "pass", "pass")
    act(d, "JC", "AC", "KC", "QH")  # s3 must over-trump his partner's AC
    act(d, "AS", "QS", "TH", "KS", "AH", "JH", "TS", "JS")
    assert d.over and awards(d) == [0, 12, 0, 12] and d.outcome is not None and d.outcome.reason == "contract_made"
    d = bid_round(Q_HANDS, "bid mehet", "bid ellensnapszer", "pass", "pass", "pass", "pass")
    act(d, "AH", "JS", "JH", "JD")
    assert d.over and awards(d) == [12, 0, 12, 0]


def test_HU4_CON_7_ellenparaszt_partner_trick_defeats() -> None:
    d = bid_round(R_HANDS, "bid mehet", "bid ellenparaszt", "pass", "pass", "pass", "pass")
    act(d, "JC", "AC", "KC", "QH")
    assert d.over and awards(d) == [24, 0, 24, 0]


def test_HU4_CON_8_fogado_kilences() -> None:
    d = bid_round(R_HANDS, "bid mehet", "bid kilences", "pass", "pass", "pass", "pass")
    assert d.declarer == 1 and d.trump == -1
    act(d, "JC", "AC", "KC", "AS")  # no trump: s3's card of another suit does not win
    assert d.tricks_won == [0, 1, 0, 0]
    act(d, "AH", "JH", "QH", "QS", "TH", "KD", "TS", "JS", "KH", "QD", "AD", "JD", "TC", "KS", "TD", "QC")
    assert d.over and awards(d) == [0, 9, 0, 9]


def test_HU4_CON_9_credit_to_both_team_members() -> None:
    d = bid_round(R_HANDS, "bid snapszer", "kontra", "pass", "pass", "rekontra", "pass", "subkontra")
    assert d.phase == "kontra" and d.to_act == 2 and legal(d) == {"pass", "mordkontra"}
    act(d, "pass", "pass")
    act(d, "JC", "AC", "KC", "QH")
    assert awards(d) == [0, 48, 0, 48] and d.outcome is not None and d.outcome.game_points == 48


def test_HU4_KON_1_plain_kontra_ladder() -> None:
    d = make(Q_HANDS)
    act(d, "bid mehet", "kontra")
    assert d.level == 1 and [len(hand(d, s)) for s in range(4)] == [5, 5, 5, 5]  # nothing taken up
    assert d.to_act == 2 and legal(d) == {"pass"}
    act(d, "pass")
    assert d.to_act == 3 and "kontra" not in legal(d)
    act(d, "pass")
    # the hívó's team: clockwise from the kontra caller's left: seat 2, then seat 0
    assert d.phase == "kontra" and d.to_act == 2 and legal(d) == {"pass", "rekontra"}
    act(d, "pass", "rekontra")
    assert d.to_act == 1 and legal(d) == {"pass", "subkontra"}
    act(d, "subkontra", "mordkontra")
    assert d.phase == "lead" and d.multiplier == 16
    # against a fogadó contract the hívó's team says the first kontra
    d = bid_round(R_HANDS, "bid mehet", "bid kilences", "pass", "pass")
    assert d.to_act == 2 and legal(d) == {"pass", "kontra"}


def test_HU4_MATCH_1_first_team_to_33() -> None:
    assert SPEC.configure().options["match_target"] == 33
    assert match_verdict(SPEC.id, [30, 34, 30, 34]) == (True, 1, ())
    assert match_verdict(SPEC.id, [30, 31, 30, 31]) == (False, -1, ())


def test_random_playouts_end_consistently_4p() -> None:
    random_playouts(SPEC, 3000)


def test_no_leak_hidden_cards_give_identical_views_4p() -> None:
    no_leak(SPEC, 500)


def test_HU4_INH_1_options_are_sopron_unless_changed() -> None:
    """HU4-INH-1: the four-player game keeps every soproni option with its default and values
    (citing both sections' rule ids), except that hearts are always trump (OPEN-HU4-1), nothing is
    laid away (so ``talon_discards_count_for`` does not exist), and the partner-trick rule of the
    kilences is its own option (OPEN-HU4-3)."""
    sopron = {o.name: o for o in SOPRON.options}
    mine = {o.name: o for o in SPEC.options}
    assert set(mine) == (set(sopron) - {"talon_discards_count_for"}) | {"kilences_partner_tricks_allowed"}
    for name in set(sopron) & set(mine) - {"trump_always_hearts"}:
        assert (mine[name].default, mine[name].allowed) == (sopron[name].default, sopron[name].allowed), name
        assert set(sopron[name].rule_ids) <= set(mine[name].rule_ids), name
    assert mine["trump_always_hearts"].default is True and sopron["trump_always_hearts"].default is False
    assert mine["kilences_partner_tricks_allowed"].default is True

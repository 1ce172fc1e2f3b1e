"""Talonschnapsen (docs/RULES.md §10): deal-level scenarios with explicit hands and talon, one
test (at least) per rule id TS-* and OPEN-TS-*. Seats 0..2 clockwise; the dealer is seat 2 unless
said, so seat 0 is Vorhand. Hands list a seat's first batch (3 cards) first."""

from __future__ import annotations

import pytest

from bummerl.rules.base.errors import IllegalActionError
from bummerl.rules.deals.contract_at import RUFER, TalonschnapsenDeal

from .at_helpers import BS, TS, act, deal, hand, ids, legal
from .helpers import match_verdict, next_dealer_after_one_deal

# TH1: Vorhand holds AH TH KH QH AC TC (trump H); seat 1 all spades + JH; talon QD JD.
TH1 = [["AH", "TH", "KH", "QH", "AC", "TC"], ["JH", "AS", "TS", "KS", "QS", "JS"], ["KC", "QC", "JC", "AD", "TD", "KD"]]
TAL1 = ["QD", "JD"]
# TH2: weak Vorhand (four jacks, QD KD), strong defenders; talon QH QS.
TH2 = [["JH", "JC", "JS", "JD", "QD", "KD"], ["AH", "TH", "AS", "TS", "AD", "KS"], ["AC", "TC", "KC", "QC", "TD", "KH"]]
TAL2 = ["QH", "QS"]


def awards(d) -> list[int]:
    assert d.over and d.outcome is not None
    return list(d.outcome.awards)


def test_TS_INH_1_bauernschnapsen_rules_without_fixed_teams():
    assert TS.num_players == 3 and TS.teams == () and BS.teams == (0, 1, 0, 1)
    assert {o.name for o in TS.options} == {o.name for o in BS.options} | {"talon_discards_count_for"}
    for name in ("must_head_over_partner", "void_must_trump", "max_kontra_level", "auction_pass_is_final",
                 "enable_bettler", "enable_zehnerloch", "trump_must_be_held", "match_target"):
        assert TS.option_spec(name).default == BS.option_spec(name).default
    assert issubclass(TS.deal_class, BS.deal_class) and TS.deal_class is TalonschnapsenDeal
    d = act(deal(TS, TH1, talon=TAL1), "trump H", "pass", "bid gang", "pass")
    assert d.side == [1, 0, 1]  # the declarer alone against the two others


def test_TS_SEAT_1_and_OPEN_TS_6_vorhand_left_of_dealer_clockwise():
    assert deal(TS, TH1, dealer=0, talon=TAL1).to_act == 1
    assert deal(TS, TH1, talon=TAL1).to_act == 0
    assert [next_dealer_after_one_deal(TS.id, x) for x in range(3)] == [1, 2, 0]
    assert TS.option_spec("dealer_rotation").default == "clockwise"


def test_TS_DEAL_1_three_talon_three():
    r = TS.configure()
    deck = TalonschnapsenDeal.arrange(r, 2, TH1, TAL1)
    assert deck == ids(TH1[0][:3] + TH1[1][:3] + TH1[2][:3] + TAL1 + TH1[0][3:] + TH1[1][3:] + TH1[2][3:])
    d = TalonschnapsenDeal.new(r, deck, 2)
    assert [hand(d, s) for s in range(3)] == [set(h[:3]) for h in TH1]
    assert d.to_act == 0 and legal(d) == {"trump H"}
    act(d, "trump H")
    assert [hand(d, s) for s in range(3)] == [set(h) for h in TH1]
    v = d.view(1)
    assert v["hand_sizes"] == [6, 6, 6] and v["talon_size"] == 2
    assert "QD" not in str(v) and "JD" not in str(v)


def test_TS_BID_1_highest_bidder_takes_the_talon():
    d = act(deal(TS, TH1, talon=TAL1), "trump H", "bid schnapser", "bid gang")
    assert d.to_act == 2
    act(d, "pass")
    assert d.to_act == 0 and d.phase == "bidding"
    act(d, "pass")  # both others passed after the last call
    assert d.contract == "gang" and d.declarer == 1 and d.phase == "discard" and d.to_act == 1
    assert hand(d, 1) == set(TH1[1]) | set(TAL1)
    assert d.view(1)["talon_size"] == 0 and d.history[-1] == ("take", 1, 2)


def test_TS_BID_2_and_OPEN_TS_1_nobody_calls_vorhand_plays_alone_with_talon():
    d = act(deal(TS, TH1, talon=TAL1), "trump H", "pass", "pass", "pass")
    assert d.contract == RUFER and d.declarer == 0 and d.side == [0, 1, 1]
    assert d.phase == "discard" and hand(d, 0) == set(TH1[0]) | set(TAL1)


def test_TS_CON_1_and_OPEN_TS_3_eligibility_without_partners():
    d = act(deal(TS, TH1, talon=TAL1), "trump H")
    assert legal(d) == {"pass", "bid bettler", "bid schnapser", "bid gang", "bid zehnerloch", "bid bauernschnapser"}
    act(d, "pass")
    assert legal(d) == {"pass", "bid bettler", "bid gang", "bid zehnerloch", "bid kontraschnapser", "bid farbenring",
                        "bid kontrabauernschnapser"}
    act(d, "pass")
    assert legal(d) == {"pass", "bid bettler", "bid gang", "bid zehnerloch", "bid kontraschnapser",
                        "bid kontrabauernschnapser"}
    # leads as BS-CON-2: Kontra contracts Vorhand, Gang the declarer
    d = act(deal(TS, TH1, talon=TAL1), "trump H", "pass", "bid kontraschnapser", "pass", "discard QD", "discard JD",
            "pass", "pass")
    assert d.phase == "lead" and d.to_act == 0
    d = act(deal(TS, TH1, talon=TAL1), "trump H", "pass", "bid gang", "pass", "discard QD", "discard JD", "pass", "pass")
    assert d.to_act == 1


def test_TS_CON_2_and_OPEN_TS_4_six_tricks_farbenring_played_out():
    assert TalonschnapsenDeal.CERTAIN_CONTRACTS == frozenset()
    d = act(deal(TS, TH1, talon=TAL1), "trump H", "pass", "bid farbenring", "pass", "discard QD", "discard JD")
    act(d, "pass", "pass")
    assert d.phase == "lead" and d.to_act == 1 and d.trump == -1  # not settled: played without trump
    act(d, "AS", "KC", "TC", "TS", "QC", "AC", "KS", "JC", "QH", "QS", "AD", "KH", "JS", "TD", "TH")
    assert not d.over and d.tricks_won[1] == 5
    act(d, "JH", "KD", "AH")  # the sixth trick is lost: "all tricks" means all 6
    assert awards(d) == [18, 0, 18] and d.outcome.winner == -1 and d.outcome.reason == "contract_defeated"


def rufer_th1(**options):
    return act(deal(TS, TH1, talon=TAL1, **options), "trump H", "pass", "pass", "pass")


def test_TS_TAL_1_and_OPEN_TS_2_lay_away_two_counting_for_the_declarer():
    d = rufer_th1()
    assert legal(d) == {f"discard {c}" for c in TH1[0] + TAL1}
    act(d, "discard AC")
    assert d.phase == "discard" and d.view(0)["laid_away"] == ["AC"]
    act(d, "discard TC")
    assert d.phase == "kontra" and d.history[-1] == ("discard", 0, 2)
    assert d.hands[0].bit_count() == 6 and hand(d, 0) == {"AH", "TH", "KH", "QH", "QD", "JD"}
    for s in (1, 2):
        v = d.view(s)
        assert v["laid_away"] == [] and "AC" not in str(v) and "TC" not in str(v)
    assert d.side_trick_points(0) == 21
    with pytest.raises(IllegalActionError):
        act(d, "discard AH")
    act(d, "pass", "pass", "marriage KH", "JH", "KC")
    assert d.side_points(0) == 71  # 10 in the trick + 21 laid away + 40
    act(d, "declare")
    assert awards(d) == [3, 0, 0] and d.outcome.winner == 0


def test_OPEN_TS_2_discards_count_for_nobody_or_defenders():
    assert TS.option_spec("talon_discards_count_for").default == "declarer"
    d = act(rufer_th1(talon_discards_count_for="nobody"), "discard AC", "discard TC", "pass", "pass",
            "marriage KH", "JH", "KC")
    assert d.side_points(0) == 50
    act(d, "declare")
    assert awards(d) == [0, 3, 3] and d.outcome.reason == "false_declaration"
    d = act(rufer_th1(talon_discards_count_for="defenders"), "discard AC", "discard TC")
    assert d.side_trick_points(1) == 21 and d.side_trick_points(0) == 0


def pooled_th2(*kontra: str):
    d = act(deal(TS, TH2, talon=TAL2), "trump H", "pass", "pass", "pass", "discard QD", "discard KD", *kontra)
    assert d.phase == "lead" and d.to_act == 0
    act(d, "JS", "AS")
    assert legal(d) == {"play KH"}  # strict play: void in spades, must trump
    act(d, "KH", "AC", "JC", "AH", "TH", "TC", "JH", "KS", "TD", "QS")
    assert d.trick_points[1] == 63 and d.trick_points[2] == 17
    return d


def test_TS_PLAY_1_and_OPEN_TS_5_defenders_pooled():
    d = pooled_th2("pass", "pass")
    assert d.side_points(1) == 80 and d.to_act == 1
    act(d, "declare")  # seat 1 alone has 63: the pooled 80 count
    assert awards(d) == [0, 3, 3] and d.outcome.winner == -1 and d.outcome.reason == "declared"


def test_TS_SCORE_1_declarer_alone_or_each_of_the_others():
    d = act(rufer_th1(), "discard AC", "discard TC", "pass", "pass", "marriage KH", "JH", "KC", "declare")
    assert awards(d) == [3, 0, 0]
    d = pooled_th2("pass", "pass")
    act(d, "declare")
    assert awards(d) == [0, 3, 3]


def test_TS_KON_1_either_defender_may_kontra():
    d = act(deal(TS, TH2, talon=TAL2), "trump H", "pass", "pass", "pass", "discard QD", "discard KD")
    assert d.to_act == 1 and legal(d) == {"pass", "kontra"}
    act(d, "pass")
    assert d.to_act == 2 and legal(d) == {"pass", "kontra"}
    d = pooled_th2("pass", "kontra")
    assert d.multiplier == 2
    act(d, "declare")
    assert awards(d) == [0, 6, 6]


def test_TS_MATCH_1_and_OPEN_TS_7_first_to_24_ties():
    assert TS.option_spec("match_target").default == 24
    assert match_verdict(TS.id, [23, 0, 10]) == (False, -1, ())
    assert match_verdict(TS.id, [30, 25, 25]) == (True, 0, ())
    assert match_verdict(TS.id, [12, 25, 25]) == (False, -1, (1, 2))  # one deal of schnapsen-at decides
    d = pooled_th2("pass", "kontra")
    act(d, "declare")
    scores = [a + b for a, b in zip([10, 20, 18], d.outcome.awards, strict=True)]
    assert scores == [10, 26, 24] and match_verdict(TS.id, scores) == (True, 1, ())


@pytest.mark.parametrize(("count_for", "result"), [("declarer", [6, 0, 0]), ("nobody", [0, 6, 6])])
def test_TS_TAL_1_schnapser_laid_away_points_count_toward_66(count_for, result):
    # Vorhand calls a Schnapser, lays away AC TC (21): three tricks bring 50, with them 71.
    d = act(deal(TS, TH1, talon=TAL1, talon_discards_count_for=count_for), "trump H", "bid schnapser", "pass", "pass",
            "discard AC", "discard TC", "pass", "pass")
    act(d, "AH", "JH", "JC", "TH", "KS", "KC", "KH", "TS", "QC")
    assert d.trick_points[0] == 50
    assert awards(d) == result and d.outcome.reason == ("contract_made" if result[0] else "contract_defeated")

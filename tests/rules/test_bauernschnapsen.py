"""Bauernschnapsen (docs/RULES.md §9): deal-level scenarios with explicit hands, one test (at
least) per rule id BS-* and OPEN-BS-*. Seats 0..3 clockwise; the dealer is seat 3 unless said,
so seat 0 is Vorhand; teams 0&2 vs 1&3. Hands list a seat's first batch (3 cards) first."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bummerl.rules.base.errors import IllegalActionError, InvalidOptionError
from bummerl.rules.deals.contract_at import RUFER, VALUES

from .at_helpers import BS, act, deal, hand, ids, legal
from .helpers import match_verdict, next_dealer_after_one_deal

ALL_PASS = ("pass", "pass", "pass", "pass")

# HA: trump H from Vorhand's AH KH QH. Used for the einfacher Rufer.
HA = [["AH", "KH", "QH", "AC", "TC"], ["TH", "JH", "AS", "KC", "QC"], ["TS", "KS", "QS", "JC", "AD"],
      ["JS", "TD", "KD", "QD", "JD"]]
# HS: Vorhand holds AH TH KH QH AC (trump H): Schnapser / Bauernschnapser material.
HS = [["AH", "TH", "KH", "QH", "AC"], ["JH", "AS", "TS", "KS", "QS"], ["JS", "AD", "TD", "KD", "QD"],
      ["JD", "TC", "KC", "QC", "JC"]]
# HS2: seat 1 holds all spades, seat 3 all clubs; Vorhand leads JD into his partner's diamonds.
HS2 = [["AH", "TH", "KH", "QH", "JD"], ["AS", "TS", "KS", "QS", "JS"], ["JH", "AD", "TD", "KD", "QD"],
       ["AC", "TC", "KC", "QC", "JC"]]
# HK: seat 1 (an opponent of Vorhand) holds AH TH KH QH AS.
HK = [["JH", "AC", "JC", "JS", "JD"], ["AH", "TH", "KH", "QH", "AS"], ["TC", "KC", "QC", "TS", "KS"],
      ["AD", "TD", "KD", "QD", "QS"]]
# HG: seat 1 calls a Gang; his partner seat 3 holds the diamonds.
HG = [["AH", "KH", "QH", "AC", "TC"], ["AS", "TS", "KS", "QS", "JD"], ["TH", "JH", "KC", "QC", "JC"],
      ["AD", "TD", "KD", "QD", "JS"]]
# HB: Vorhand's Bettler hand (four jacks and AD).
HB = [["JH", "JC", "JS", "JD", "AD"], ["AH", "TH", "KH", "QC", "AS"], ["AC", "TC", "KC", "QH", "TS"],
      ["QD", "TD", "KD", "KS", "QS"]]
# HZ: seat 1 holds the four tens and KS (Zehnerloch).
HZ = [["AH", "KH", "QH", "AC", "JC"], ["TS", "TC", "TD", "TH", "KS"], ["AS", "QS", "JS", "KC", "QC"],
      ["AD", "KD", "QD", "JD", "JH"]]
# HH: Vorhand holds all five hearts.
HH = [["AH", "TH", "KH", "QH", "JH"], ["AS", "TS", "KS", "AC", "TC"], ["QS", "JS", "KC", "QC", "JC"],
      ["AD", "TD", "KD", "QD", "JD"]]
# HP: seat 2 (Vorhand's partner) schnapses.
HP = [["JH", "KC", "QC", "JC", "TC"], ["AC", "JS", "TS", "KS", "QS"], ["AH", "TH", "KH", "QH", "AS"],
      ["AD", "TD", "KD", "QD", "JD"]]
# HP2 / HP3: strict play with a partner's winning card; under-trumping.
HP2 = [["KC", "AH", "KH", "QH", "JH"], ["JC", "AS", "TS", "KS", "QS"], ["AC", "QC", "TC", "JS", "AD"],
       ["TH", "TD", "KD", "QD", "JD"]]
HP3 = [["KC", "AH", "KH", "QH", "QS"], ["TH", "AS", "TS", "KS", "JS"], ["AC", "QC", "TC", "JC", "AD"],
       ["JH", "TD", "KD", "QD", "JD"]]


def awards(d) -> list[int]:
    assert d.over and d.outcome is not None
    return list(d.outcome.awards)


def rufer_ha(**options):
    return act(deal(BS, HA, **options), "trump H", *ALL_PASS)


# ---------------------------------------------------------------- seating and deal
def test_BS_SEAT_1_partners_sit_opposite():
    assert BS.num_players == 4 and BS.teams == (0, 1, 0, 1)
    d = act(deal(BS, HZ), "trump H", "pass", "bid zehnerloch", "pass", "pass")
    assert d.side == [1, 0, 1, 0]  # the declarer's side is seats 1 and 3
    act(d, "pass", "pass", "TS", "AS", "JH", "AH", "TD", "KC", "AD", "KH", "TC", "QC", "KD", "AC")
    act(d, "TH", "QS", "QD", "QH", "KS", "JS", "JD", "JC")
    assert awards(d) == [0, 10, 0, 10] and d.outcome.winner == 1


def test_BS_DEAL_1_three_then_two_clockwise_from_vorhand():
    r = BS.configure()
    deck = BS.deal_class.arrange(r, 1, HA)  # dealer 1: Vorhand is seat 2
    assert deck[:12] == ids(HA[2][:3] + HA[3][:3] + HA[0][:3] + HA[1][:3])
    assert deck[12:] == ids(HA[2][3:] + HA[3][3:] + HA[0][3:] + HA[1][3:])
    d = BS.deal_class.new(r, deck, 1)
    assert d.to_act == 2 and d.phase == "trump"
    assert [hand(d, s) for s in range(4)] == [set(h[:3]) for h in HA]
    assert d.view(0)["hand_sizes"] == [3, 3, 3, 3]
    act(d, "trump S")
    assert [hand(d, s) for s in range(4)] == [set(h) for h in HA]
    with pytest.raises(ValueError):
        BS.deal_class.arrange(r, 1, [HA[0], HA[0], HA[2], HA[3]])


def test_BS_DEAL_2_vorhand_names_trump_after_three_cards():
    d = deal(BS, HA)
    assert d.to_act == 0 and legal(d) == {"trump H"}  # AH KH QH: only hearts held
    d2 = deal(BS, HA, dealer=0)  # Vorhand seat 1 holds TH JH AS
    assert d2.to_act == 1 and legal(d2) == {"trump H", "trump S"}
    act(d2, "trump S")
    assert d2.trump == 1 and d2.history[-1] == ("trump", 1, 1) and d2.phase == "bidding" and d2.to_act == 1


def test_OPEN_GEN_6_may_view_own_tricks_in_the_deal_view():
    """Off by default; switched on, each seat sees its own won cards, trick points, and those plus
    its own marriages once its side has won a trick (the ``OwnTricks`` message), nobody else's."""
    start = ("trump H", *ALL_PASS, "pass", "pass", "marriage KH", "TH", "AD", "JD")  # seat 1 takes 27
    d = act(deal(BS, HA, may_view_own_tricks=True), *start)
    own = d.view(1)["own_tricks"]
    assert set(own["won_cards"]) == {"TH", "KH", "AD", "JD"} and (own["trick_points"], own["deal_points"]) == (27, 27)
    assert d.view(0)["own_tricks"] == {"trick_points": 0, "won_cards": [], "deal_points": 0}  # 40 shown, no trick yet
    assert "own_tricks" not in act(deal(BS, HA), *start).view(1)


def test_OPEN_BS_3_trump_must_be_held_option():
    assert BS.option_spec("trump_must_be_held").default is True
    d = deal(BS, HA, trump_must_be_held=False)
    assert legal(d) == {"trump C", "trump S", "trump H", "trump D"}
    with pytest.raises(IllegalActionError):
        act(deal(BS, HA), "trump C")


def test_BS_DEAL_3_and_OPEN_BS_9_dealer_rotates_clockwise():
    assert BS.option_spec("dealer_rotation").default == "clockwise"
    assert [next_dealer_after_one_deal(BS.id, d) for d in range(4)] == [1, 2, 3, 0]
    with pytest.raises(InvalidOptionError):
        BS.configure({"dealer_rotation": "winner_deals"})
    assert deal(BS, HA, dealer=1).to_act == 2  # Vorhand = left of the dealer


# ---------------------------------------------------------------- auction
def test_BS_BID_1_all_pass_einfacher_rufer_vorhand_leads():
    d = rufer_ha()
    assert d.contract == RUFER and d.declarer == 0 and d.value == 1 and d.trump == 2
    assert d.phase == "kontra" and d.to_act == 1  # the side opposing Vorhand may say Kontra
    act(d, "pass", "pass")
    assert d.phase == "lead" and d.to_act == 0 and d.leader == 0


def test_BS_BID_2_clockwise_strict_overcall_equal_value_cannot():
    d = act(deal(BS, HK), "trump H")
    assert legal(d) == {"pass", "bid bettler", "bid schnapser", "bid gang", "bid zehnerloch", "bid bauernschnapser"}
    act(d, "bid bauernschnapser")  # 12
    assert d.to_act == 1
    assert legal(d) == {"pass", "bid kontrabauernschnapser"}  # kontraschnapser = 12 cannot overcall
    act(d, "pass")
    assert d.to_act == 2 and legal(d) == {"pass"}  # partner: nothing higher he may call
    act(d, "pass", "pass")
    assert d.contract == "bauernschnapser" and d.declarer == 0


def test_OPEN_BS_1_pass_is_final_unless_option():
    d = act(deal(BS, HK), "trump H", "pass", "bid gang", "pass", "pass")
    assert d.contract == "gang" and d.declarer == 1  # seat 0 passed: not asked again
    d2 = act(deal(BS, HK, auction_pass_is_final=False), "trump H", "pass", "bid gang", "pass", "pass")
    assert d2.phase == "bidding" and d2.to_act == 0
    assert "bid zehnerloch" in legal(d2) and "bid bauernschnapser" in legal(d2)
    act(d2, "bid bauernschnapser", "pass", "pass", "pass")
    assert d2.contract == "bauernschnapser" and d2.declarer == 0


def test_BS_BID_3_and_OPEN_BS_11_bettler_and_zehnerloch_enabled_by_option():
    assert {"bid bettler", "bid zehnerloch"} <= legal(act(deal(BS, HA), "trump H"))
    d = act(deal(BS, HA, enable_bettler=False, enable_zehnerloch=False), "trump H")
    assert not {"bid bettler", "bid zehnerloch"} & legal(d)
    assert "bid gang" in legal(d)


# ---------------------------------------------------------------- contracts
@pytest.mark.parametrize("name", ["bettler", "gang", "zehnerloch", "bauernschnapser", "schnapser"])
def test_BS_CON_1_contract_values(name):
    """Whatever happens, a called contract is scored at its value (no kontra)."""
    assert VALUES == {RUFER: 1, "bettler": 5, "schnapser": 6, "gang": 9, "zehnerloch": 10, "bauernschnapser": 12,
                      "kontraschnapser": 12, "farbenring": 18, "kontrabauernschnapser": 24, "herrenschnapser": 24}
    d = act(deal(BS, HA), "trump H", f"bid {name}", "pass", "pass", "pass", "pass", "pass")
    while not d.over:
        d.step(d.legal_actions()[0])
    assert sorted(awards(d)) == [0, 0, VALUES[name], VALUES[name]]


def test_BS_CON_2_first_lead():
    d = act(deal(BS, HG), "trump H", "pass", "bid gang", "pass", "pass", "pass", "pass")
    assert d.phase == "lead" and d.to_act == 1  # the Gang caller leads
    d = act(deal(BS, HK), "trump H", "pass", "bid kontraschnapser", "pass", "pass", "pass", "pass")
    assert d.to_act == 0  # Kontra contracts: Vorhand leads


def test_OPEN_BS_2_partner_schnapser_and_partner_bauernschnapser_vorhand_leads():
    d = act(deal(BS, HP), "trump H", "pass", "pass", "bid schnapser", "pass", "pass", "pass")
    assert d.declarer == 2 and d.to_act == 0 and d.phase == "lead"
    d = act(deal(BS, HP), "trump H", "pass", "pass", "bid bauernschnapser", "pass", "pass", "pass")
    assert d.declarer == 2 and d.to_act == 0


def test_BS_CON_3_einfacher_rufer_declare_or_last_trick():
    d = act(rufer_ha(), "pass", "pass", "marriage KH", "TH", "QS", "JS", "AS", "KS", "JD", "QH", "AH", "JH", "TS", "QD")
    assert "declare" in legal(d) and d.side_points(0) == 86
    act(d, "declare")
    assert awards(d) == [2, 0, 2, 0] and d.outcome.reason == "declared" and d.outcome.winner == 0
    d = rufer_lasttrick()
    assert awards(d) == [1, 0, 1, 0] and d.outcome.reason == "last_trick"


def rufer_lasttrick(**options):
    d = act(rufer_ha(**options), "pass", "pass", "AC", "QC", "JC", "JD", "TC", "KC", "QS", "QD", "QH", "TH", "KS", "KD")
    assert d.to_act == 1 and d.side_trick_points(1) == 21
    act(d, "AS", "TS", "JS", "KH")
    assert d.side_trick_points(0) == 65
    act(d, "AH", "JH", "AD", "TD")
    return d


def test_OPEN_BS_8_undeclared_66_at_end():
    d = rufer_lasttrick()
    assert d.side_trick_points(0) == 99 and awards(d) == [1, 0, 1, 0]  # undeclared 66 ignored
    d = rufer_lasttrick(undeclared_66_at_end="holder_wins")
    assert awards(d) == [2, 0, 2, 0] and d.outcome.reason == "played_out"  # loser 21 < 33


def test_OPEN_BS_10_last_trick_one_point_or_by_table():
    assert awards(rufer_lasttrick()) == [1, 0, 1, 0]
    assert awards(rufer_lasttrick(last_trick_win_points="by_table")) == [2, 0, 2, 0]


def schnapser_hs():
    return act(deal(BS, HS), "trump H", "bid schnapser", "pass", "pass", "pass", "pass", "pass")


def test_BS_CON_4_schnapser_goes_out_with_marriage():
    d = schnapser_hs()
    assert d.to_act == 0 and "declare" not in legal(d)  # no trick yet
    act(d, "AH", "JH", "JS", "JD")
    act(d, "TH", "QS", "KD", "JC")
    assert d.side_points(0) == 36 and d.trick_no == 2
    assert {"announce H", "marriage KH", "marriage QH", "declare"} <= legal(d)
    act(d, "announce H")
    assert legal(d) == {"play KH", "play QH", "declare"}
    act(d, "declare")
    assert awards(d) == [6, 0, 6, 0] and d.outcome.reason == "declared"


def test_BS_CON_4_schnapser_fails_below_66_after_three_tricks():
    d = act(schnapser_hs(), "AH", "JH", "JS", "JD", "TH", "QS", "KD", "JC", "AC", "KS", "QD", "QC")
    assert d.side_points(0) == 57
    assert awards(d) == [0, 6, 0, 6] and d.outcome.reason == "contract_defeated"
    assert d.trick_no == 3 and any(d.hands)  # decided: ends at once (SRV-3)


def test_BS_CON_4_partner_winning_a_trick_defeats_the_schnapser():
    d = act(deal(BS, HS2), "trump H", "bid schnapser", "pass", "pass", "pass", "pass", "pass")
    act(d, "JD", "AS", "AD", "AC")
    assert awards(d) == [0, 6, 0, 6]


def test_BS_CON_5_partnerschnapser_only_the_schnapser_announces():
    d = act(deal(BS, HP), "trump H", "pass", "pass", "bid schnapser", "pass", "pass", "pass")
    assert d.to_act == 0 and not any(a.startswith("marriage") for a in legal(d))  # Vorhand holds KC QC
    act(d, "JH", "JS", "AH", "JD")
    assert d.to_act == 2 and {"marriage KH", "marriage QH"} <= legal(d)
    act(d, "marriage KH", "TD", "TC", "TS")
    assert d.side_points(0) == 91
    act(d, "declare")
    assert awards(d) == [6, 0, 6, 0]


def kontraschnapser_hk():
    return act(deal(BS, HK), "trump H", "pass", "bid kontraschnapser", "pass", "pass")


def test_BS_CON_6_kontraschnapser_vorhand_leads_value_12():
    d = kontraschnapser_hk()
    assert d.phase == "kontra" and d.to_act == 2  # defenders from the declarer's left: 2, then 0
    act(d, "pass", "pass")
    assert d.to_act == 0
    act(d, "AC", "QH", "QC", "QS", "AH", "TS", "QD", "JH", "TH", "KS", "KD", "JS")
    assert d.side_points(0) == 66
    assert awards(d) == [0, 12, 0, 12] and d.outcome.reason == "contract_made"


def test_BS_CON_7_gang_no_trump_partner_trick_defeats():
    d = act(deal(BS, HG), "trump H", "pass", "bid gang", "pass", "pass", "pass", "pass")
    assert d.trump == -1
    act(d, "AS")
    assert legal(d) == {"play TH", "play JH", "play KC", "play QC", "play JC"}  # hearts are no trumps
    act(d, "JC", "JS", "AC")
    assert d.tricks_won[1] == 1
    act(d, "JD", "QC", "AD", "TC")
    assert awards(d) == [9, 0, 9, 0] and d.outcome.reason == "contract_defeated"


def test_BS_CON_8_bauernschnapser_all_tricks_with_trump():
    d = act(deal(BS, HS), "trump H", "bid bauernschnapser", "pass", "pass", "pass", "pass", "pass")
    assert d.trump == 2 and d.to_act == 0
    assert not any(a.startswith("marriage") for a in legal(d))  # no announcements (BS-MAR-1)
    act(d, "AH", "JH", "JS", "JD", "TH", "AS", "AD", "TC", "KH", "TS", "TD", "KC", "QH", "KS", "KD", "QC")
    assert not d.over
    act(d, "AC", "QS", "QD", "JC")
    assert awards(d) == [12, 0, 12, 0] and d.outcome.reason == "contract_made"


def test_OPEN_BS_6_partner_trick_defeats_all_tricks_contracts_not_bettler():
    d = act(deal(BS, HS2), "trump H", "bid bauernschnapser", "pass", "pass", "pass", "pass", "pass")
    act(d, "JD", "AS", "AD", "AC")  # partner seat 2 wins trick 1
    assert awards(d) == [0, 12, 0, 12]
    d = bettler_hb()
    act(d, "JH", "AH", "QH", "KS", "QC", "AC", "QS", "JC")  # partner seat 2 wins trick 2
    assert not d.over and d.tricks_won[2] == 1


def test_BS_CON_9_farbenring_first_call_counts_settled_without_play():
    d = act(deal(BS, HS2), "trump H", "pass")
    assert "bid farbenring" in legal(d)  # seat 1 holds all spades
    act(d, "bid farbenring", "pass")
    assert d.to_act == 3 and "bid farbenring" not in legal(d)  # seat 3 (all clubs): equal value
    act(d, "pass", "pass", "pass")
    assert d.over and awards(d) == [0, 18, 0, 18] and d.outcome.reason == "settled"
    assert d.history[-1] == ("show", 1, tuple(range(6, 11)))  # AS TS KS QS JS
    assert d.trump == -1


def test_BS_CON_9_vorhand_may_not_call_farbenring():
    hands = [["AC", "TC", "KC", "QC", "JC"], HA[1], ["TS", "KS", "QS", "AH", "AD"], ["JS", "TD", "KD", "QD", "JD"]]
    hands[1] = ["TH", "JH", "AS", "KH", "QH"]
    d = act(deal(BS, hands, trump_must_be_held=False), "trump H")
    assert "bid farbenring" not in legal(d)


def test_OPEN_BS_4_certain_contracts_can_be_played_out():
    d = act(deal(BS, HS2, play_out_certain_contracts=True), "trump H", "pass", "bid farbenring", "pass", "pass",
            "pass", "pass")
    assert d.phase == "lead" and d.to_act == 1 and d.trump == -1
    for c in ("AS", "TS", "KS", "QS", "JS"):
        act(d, c)
        while d.phase == "follow":
            d.step(d.legal_actions()[0])
    assert awards(d) == [0, 18, 0, 18] and d.outcome.reason == "contract_made"


def test_BS_CON_10_kontrabauernschnapser_value_24_vorhand_leads():
    d = act(deal(BS, HK), "trump H", "pass", "bid kontrabauernschnapser", "pass", "pass", "pass", "pass")
    assert d.to_act == 0
    act(d, "AC", "QH", "QC", "QS", "AH", "TS", "QD", "JH", "TH", "KS", "KD", "JS", "KH", "TC", "TD", "JC")
    act(d, "AS", "KC", "AD", "JD")
    assert awards(d) == [0, 24, 0, 24]


def test_BS_CON_11_herrenschnapser_vorhand_all_trumps_highest_settled():
    d = act(deal(BS, HH), "trump H")
    assert "bid herrenschnapser" in legal(d)
    act(d, "bid schnapser", "bid kontrabauernschnapser", "pass", "pass")
    assert legal(d) == {"pass", "bid herrenschnapser"}  # outranks the equal-valued Kontrabauernschnapser
    act(d, "bid herrenschnapser", "pass")
    assert d.phase == "kontra" and d.to_act == 1
    act(d, "kontra")
    assert d.over and awards(d) == [48, 0, 48, 0] and d.outcome.reason == "settled"
    assert d.history[-1][0] == "show" and len(d.history[-1][2]) == 5


def bettler_hb():
    return act(deal(BS, HB), "trump H", "bid bettler", "pass", "pass", "pass", "pass", "pass")


def test_BS_CON_12_bettler_no_trick_for_the_declarer():
    d = bettler_hb()
    assert d.to_act == 0 and d.trump == -1
    act(d, "JH", "AH", "QH", "KS", "QC", "AC", "QS", "JC", "TS", "KD", "JS", "AS", "TH", "TC", "TD", "JD")
    act(d, "KH", "KC", "QD", "AD")
    assert awards(d) == [5, 0, 5, 0] and d.outcome.reason == "contract_made"
    d = act(bettler_hb(), "AD", "AH", "AC", "QD")
    assert awards(d) == [0, 5, 0, 5] and d.trick_no == 1


def test_BS_CON_13_zehnerloch_ten_high():
    d = act(deal(BS, HZ), "trump H", "pass", "bid zehnerloch", "pass", "pass", "pass", "pass")
    act(d, "TS", "AS", "JH", "AH")
    assert d.tricks_won[1] == 1  # the ten beats the ace
    act(d, "TD")
    assert legal(d) == {"play QS", "play JS", "play KC", "play QC"}  # no trump: any card
    act(d, "KC")
    assert legal(d) == {"play AD", "play KD", "play QD", "play JD"}  # nothing beats the ten
    act(d, "AD")
    assert legal(d) == {"play KH", "play QH", "play AC", "play JC"}


def test_BS_CON_14_decided_contract_ends_at_once_or_is_played_out():
    d = act(deal(BS, HG), "trump H", "pass", "bid gang", "pass", "pass", "pass", "pass", "AS", "JC", "JS", "AC",
            "JD", "QC", "AD", "TC")
    assert d.over and d.trick_no == 2
    d = act(deal(BS, HG, auto_end_decided_contract=False), "trump H", "pass", "bid gang", "pass", "pass", "pass",
            "pass", "AS", "JC", "JS", "AC", "JD", "QC", "AD", "TC")
    assert not d.over
    while not d.over:
        d.step(d.legal_actions()[0])
    assert d.trick_no == 5 and awards(d) == [9, 0, 9, 0] and d.outcome.reason == "contract_defeated"


# ---------------------------------------------------------------- kontra
def test_BS_KON_1_kontra_doubles_the_einfacher_rufer():
    d = act(deal(BS, HA), "trump H", *ALL_PASS, "kontra")
    assert d.level == 1 and d.multiplier == 2 and d.phase == "lead"
    act(d, "marriage KH", "TH", "QS", "JS", "AS", "KS", "JD", "QH", "AH", "JH", "TS", "QD", "declare")
    assert awards(d) == [4, 0, 4, 0]


def test_BS_KON_2_only_the_opposing_side_once_clockwise_from_the_declarer():
    d = rufer_ha()
    assert d.to_act == 1 and legal(d) == {"pass", "kontra"}
    act(d, "pass")
    assert d.to_act == 3 and legal(d) == {"pass", "kontra"}
    act(d, "kontra")
    assert d.phase == "lead"  # no Rekontra under max_kontra_level = 1
    d = act(deal(BS, HG), "trump H", "pass", "bid gang", "pass", "pass")
    assert d.to_act == 2  # left of the declarer (seat 1), the opposing side: 2 then 0
    act(d, "pass")
    assert d.to_act == 0


def test_OPEN_BS_5_kontra_ladder_by_option():
    assert BS.option_spec("max_kontra_level").default == 1
    d = act(deal(BS, HA, max_kontra_level=4), "trump H", *ALL_PASS, "kontra")
    assert d.to_act == 2 and legal(d) == {"pass", "rekontra"}  # the declaring side, from the caller's left
    act(d, "rekontra")
    assert d.to_act == 3 and legal(d) == {"pass", "subkontra"}
    act(d, "subkontra")
    assert d.to_act == 0 and legal(d) == {"pass", "mordkontra"}
    act(d, "mordkontra")
    assert d.phase == "lead" and d.multiplier == 16
    act(d, "marriage KH", "TH", "QS", "JS", "AS", "KS", "JD", "QH", "AH", "JH", "TS", "QD", "declare")
    assert awards(d) == [32, 0, 32, 0]
    d = act(deal(BS, HA, max_kontra_level=0), "trump H", *ALL_PASS)
    assert d.phase == "lead"


# ---------------------------------------------------------------- play
def strict_deal(hands, **options):
    return act(deal(BS, hands, **options), "trump H", *ALL_PASS, "pass", "pass")


def test_BS_PLAY_1_and_OPEN_GEN_3_head_over_partner_and_must_trump():
    d = act(strict_deal(HP2), "KC", "JC")
    assert legal(d) == {"play AC", "play TC"}  # must head his partner's KC
    d = act(strict_deal(HP2, must_head_over_partner=False), "KC", "JC")
    assert legal(d) == {"play AC", "play QC", "play TC"}
    d = act(strict_deal(HP3), "KC")
    assert legal(d) == {"play TH"}  # void in clubs: must trump
    act(d, "TH", "QC")
    assert legal(d) == {"play JH"}  # must trump even though JH cannot win
    d = act(strict_deal(HP3, void_must_trump="only_if_winning"), "KC", "TH", "QC")
    assert legal(d) == {"play JH", "play TD", "play KD", "play QD", "play JD"}


def test_BS_PLAY_2_trick_winner_leads_with_contract_trump():
    d = act(strict_deal(HP3), "KC", "TH", "QC", "JH")
    assert d.history[-1][0] == "trick" and d.history[-1][1] == 1 and d.to_act == 1 and d.phase == "lead"


def test_BS_MAR_1_marriages_side_counted_only_in_rufer_and_schnapser():
    d = act(rufer_ha(), "pass", "pass")
    assert {"marriage KH", "marriage QH"} <= legal(d)
    act(d, "marriage KH", "TH", "QS", "JS")
    assert d.view(2)["marriages"] == [{"seat": 0, "suit": "H", "points": 40, "counted": False}]
    act(d, "AS", "KS", "JD", "QH")
    assert d.view(2)["marriages"][0]["counted"] and d.side_points(0) == 60
    d = act(deal(BS, HS), "trump H", "bid gang", "pass", "pass", "pass", "pass", "pass")
    assert not any(a.startswith(("marriage", "announce")) for a in legal(d))


def test_OPEN_BS_7_marriage_as_schnapsen_at_at_first_lead_k_or_q():
    d = act(rufer_ha(), "pass", "pass")
    assert {"marriage KH", "marriage QH"} <= legal(d) and "announce H" not in legal(d)
    act(d, "marriage QH")
    assert d.trick == [(0, 15)] and d.marriage_points[0] == 40


def test_BS_DECL_1_false_declaration_two_or_three():
    d = act(rufer_ha(), "pass", "pass", "AC", "QC", "JC", "JD", "declare")
    assert awards(d) == [0, 3, 0, 3] and d.outcome.reason == "false_declaration"  # the other side: no trick
    d = act(rufer_ha(), "pass", "pass", "AC", "QC", "JC", "JD", "TC", "KC", "QS", "QD", "QH", "TH", "KS", "KD")
    act(d, "declare")
    assert awards(d) == [2, 0, 2, 0]
    d = act(rufer_ha(false_declaration_penalty="reject"), "pass", "pass", "AC", "QC", "JC", "JD")
    assert "declare" not in legal(d)


def test_BS_SCORE_1_declared_three_two_one_times_multiplier():
    d = act(deal(BS, HS), "trump H", *ALL_PASS, "pass", "pass", "marriage KH", "JH", "JS", "JD", "AH", "AS", "AD",
            "TC", "declare")
    assert awards(d) == [3, 0, 3, 0]  # the losers have no trick
    d = rufer_ha()
    assert d.table_points(1) == 3
    d.tricks_won[1], d.trick_points[1] = 1, 32
    assert d.table_points(1) == 2
    d.trick_points[1] = 33
    assert d.table_points(1) == 1


def test_BS_MATCH_1_first_team_to_24():
    assert BS.option_spec("match_target").default == 24
    assert match_verdict(BS.id, [20, 23, 20, 23]) == (False, -1, ())
    d = act(deal(BS, HK), "trump H", "pass", "bid kontrabauernschnapser", "pass", "pass", "pass", "pass")
    while not d.over:
        d.step(d.legal_actions()[-1])
    scores = [a + b for a, b in zip([20, 0, 20, 0], d.outcome.awards, strict=True)]
    over, winner, _ = match_verdict(BS.id, scores)
    assert over and winner == (0 if scores[0] >= 24 else 1)


def test_every_BS_and_TS_rule_id_has_a_test():
    text = (Path(__file__).resolve().parents[2] / "docs" / "RULES.md").read_text()
    ids = set(re.findall(r"\*\*((?:BS|TS)-[A-Z]+-\d+)\*\*", text)) | set(re.findall(r"\*\*(OPEN-(?:BS|TS)-\d+)\b", text))
    assert len(ids) > 50
    here = Path(__file__).parent
    names = "\n".join(re.findall(r"def (test_\w+)", (here / "test_bauernschnapsen.py").read_text()
                                 + (here / "test_talonschnapsen.py").read_text()))
    missing = sorted(i for i in ids if i.replace("-", "_") not in names)
    assert not missing, missing

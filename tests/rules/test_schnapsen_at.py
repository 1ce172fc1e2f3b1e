"""``schnapsen-at`` (docs/RULES.md §2): one test per rule id AT-* and per OPEN-AT-* option value.

Every scenario is an explicit deal (hands by seat, face-up trump card, talon top first); the
expected outcome is derived by hand from docs/RULES.md. Unless stated otherwise seat 1 deals, so
seat 0 (the non-dealer) leads the first trick (AT-LEAD-1). Trick-by-trick derivations are in the
comments: ``T3: s0 AD / s1 JD -> s0 +13 (39)`` means trick 3, seat 0 leads AD, seat 1 follows JD,
seat 0 wins 13 card points (39 in total).
"""

from __future__ import annotations

import json
import random

import pytest

from bummerl.rules import (
    MatchOverError,
    MatchState,
    apply,
    find_variant,
    information_set,
    new_match,
    public_known_cards,
)
from bummerl.rules.base.cards import cards_of, parse_card

from .helpers import (
    assert_illegal,
    codes,
    events_of,
    fill_deal,
    finish_deal,
    hand,
    legal,
    make_match,
    play,
    talon,
)

AT = "schnapsen-at"


def at(deal, options=None, start=None, dealer=1, **kw) -> MatchState:
    hands, trump, tal = deal
    return make_match(AT, dealer, hands, trump, tal, options, start, **kw)


def check_result(m: MatchState, winner: int, points: int, reason: str | None = None, deal_points=None,
                 schwarz=None, deal_schneider=None, i: int = 0) -> None:
    r = m.results[i]
    assert r.winner == winner, r
    gp = [0, 0]
    gp[winner] = points
    assert list(r.game_points) == gp, r
    if reason is not None:
        assert r.reason == reason, r
    if deal_points is not None:
        assert list(r.deal_points) == list(deal_points), r
    if schwarz is not None:
        assert r.schwarz is schwarz, r
    if deal_schneider is not None:
        assert r.deal_schneider is deal_schneider, r


def plays(texts) -> list[str]:
    return [f"play {c}" for c in texts]


# --------------------------------------------------------------------------- scenario deals
# E: seat 0 wins tricks 1-4 with AC, TC, AD, TD and keeps the trump Jack JH (trump H).
#    Draws: T1 s0 JS / s1 AS, T2 s0 KC / s1 TS, T3 s0 TH / s1 KS, T4 s0 KD / s1 QS; talon then
#    holds QH + the trump card AH (size 2). Talon size at seat 0's leads: 10, 8, 6, 4, 2.
E = ((["AC", "TC", "AD", "TD", "JH"], ["JC", "QC", "JD", "QD", "KH"]), "AH",
     ["JS", "AS", "KC", "TS", "TH", "KS", "KD", "QS", "QH"])
E_TRICKS = [["AC", "JC"], ["TC", "QC"], ["AD", "JD"], ["TD", "QD"]]


def e_after(k: int, options=None, first=()) -> MatchState:
    """Deal E after ``first`` actions and k tricks of E_TRICKS."""
    m = at(E, options, list(first))
    for t in E_TRICKS[:k]:
        m = play(m, *t)
    return m


# F: trump H (trump card QH). T1-T4 as in E (s0 +13 each, 52); draws T1 s0 JS / s1 AS,
#    T2 AH / TS, T3 TH / KS, T4 KD / QS. T5: s0 KC / s1 KH (trump) -> s1 +8; s1 draws JH, s0 draws
#    the trump card QH (talon exhausted). s0: JS AH TH KD QH; s1: AS TS KS QS JH.
#    T6: s1 JH / s0 QH -> s0 +5 (57); T7: s0 KD / s1 QS -> +7 (64); T8: TH / KS -> +14 (78);
#    T9: AH / TS -> +21 (99); T10: s0 JS / s1 AS -> s1 +13 (21). Seat 0 held 78 >= 66 undeclared.
F = ((["AC", "TC", "AD", "TD", "KC"], ["JC", "QC", "JD", "QD", "KH"]), "QH",
     ["JS", "AS", "AH", "TS", "TH", "KS", "KD", "QS", "JH"])
F_TO_T5 = ["AC", "JC", "TC", "QC", "AD", "JD", "TD", "QD", "KC", "KH"]
F_REST = ["JH", "QH", "KD", "QS", "TH", "KS", "AH", "TS", "JS", "AS"]

# SW: trump H (trump card KH); seat 0 wins all ten tricks without declaring (120 : 0).
#    T1-T4 AC/JC, TC/QC, AD/JD, TD/QD; draws s0 AS, TS, TH, KS / s1 KC, KD, QS, JH.
#    T5 s0 AS / s1 JS; s0 draws QH, s1 the trump card KH. T6 AH / JH, T7 TH / KH, T8 TS / QS,
#    T9 KS / KC, T10 QH / KD.
SW = ((["AC", "TC", "AD", "TD", "AH"], ["JC", "QC", "JD", "QD", "JS"]), "KH",
      ["AS", "KC", "TS", "KD", "TH", "QS", "KS", "JH", "QH"])
SW_ACTIONS = ["AC", "JC", "TC", "QC", "AD", "JD", "TD", "QD", "AS", "JS",
              "AH", "JH", "TH", "KH", "TS", "QS", "KS", "KC", "QH", "KD"]

# C1: trump H. Seat 0 closes at the first lead and takes 4 tricks: AC/TC +21, AS/TS +21,
#     AD/TD +21, AH/KC +15 = 78, then declares. Seat 1 never wins a trick.
C1 = ((["AC", "AS", "AD", "AH", "TH"], ["TC", "TS", "TD", "KC", "KS"]), "KH",
      ["QC", "JC", "QS", "JS", "KD", "QD", "JD", "QH", "JH"])
C1_ACTIONS = ["close", "AC", "TC", "AS", "TS", "AD", "TD", "AH", "KC", "declare"]

# C: trump H. Seat 0 closes at the first lead (seat 1 has no trick then).
#    T1 s0 KH / s1 AH (forced) -> s1 +15. T2 s1 JC / s0 AC (forced) -> s0 +13. T3 AS / TS +21 (34),
#    T4 AD / TD +21 (55), T5 TH / TC +20 (75). Hands run out: closer 75 >= 66.
C = ((["KH", "AC", "AS", "AD", "TH"], ["AH", "TC", "TS", "TD", "JC"]), "QH",
     ["KS", "QS", "KC", "QC", "KD", "QD", "JS", "JD", "JH"])
C_ACTIONS = ["close", "KH", "AH", "JC", "AC", "AS", "TS", "AD", "TD", "TH", "TC"]

# C5: trump H (trump card AH). Seat 0 holds JC QC KC AS QS, seat 1 AC TC KH QH JS.
C5 = ((["JC", "QC", "KC", "AS", "QS"], ["AC", "TC", "KH", "QH", "JS"]), "AH",
      ["JD", "QD", "KD", "TD", "AD", "TS", "KS", "TH", "JH"])
# C5a: s0 closes, T1 s0 JC / s1 TC -> s1 +12; T2 s1 marriage KH (40, counted) / s0 QS -> s1 +7
#      (19 + 40 = 59); T3 s1 JS / s0 AS -> s0 +13; T4 s0 QC / s1 AC -> s1 +14 (33 + 40 = 73).
C5A = ["close", "JC", "TC", "marriage KH", "QS", "JS", "AS", "QC", "AC"]
# C5b: s0 closes, T1 JC / TC -> s1 +12; T2 s1 JS / s0 AS -> s0 +13; T3 s0 QC / s1 AC -> s1 +14 (26).
C5B = ["close", "JC", "TC", "JS", "AS", "QC", "AC"]
# C5 unclosed at first: T1 s0 JC / s1 TC -> s1 +12 (s1 draws JD, s0 QD); T2 s1 JS / s0 AS -> s0 +13
#    (s0 draws KD, s1 TD). s0: KC QC QS QD KD; s1: AC KH QH JD TD. T3 s0 closes (seat 1 has a
#    trick), KD / TD -> s1 +14 (26); T4 s1 AC / s0 QC -> +14 (40); T5 s1 JD / s0 QD -> s0 +5 (18);
#    T6 s0 KC / s1 QH -> s1 +7 (47); T7 s1 KH / s0 QS -> s1 +7 (54). Closer 18 < 66.
C_FAIL2 = ["JC", "TC", "JS", "AS", "close", "KD", "TD", "AC", "QC", "JD", "QD", "KC", "QH", "KH", "QS"]

# MN: trump H. Seat 0 closes, announces 20 with KC and never wins a trick:
#     T1 KC / AC +15, T2 s1 AS / s0 QS +14, T3 TS / JS +12, T4 TC / QC +13, T5 AH / JD +13 -> 0 : 67.
MN = ((["KC", "QC", "JS", "QS", "JD"], ["AC", "TC", "AS", "TS", "AH"]), "KH",
      ["TH", "QH", "JH", "KS", "JC", "AD", "TD", "KD", "QD"])
MN_ACTIONS = ["close", "marriage KC", "AC", "AS", "QS", "TS", "JS", "TC", "QC", "AH", "JD"]

# M: trump D (trump card AD). Seat 0 holds two marriages (KS QS, KD QD) and AC.
M = ((["KS", "QS", "KD", "QD", "AC"], ["TC", "JC", "AS", "TS", "JS"]), "AD",
     ["KC", "QC", "AH", "TH", "KH", "QH", "JH", "TD", "JD"])

# D2: trump S (trump card AS). Seat 0 holds the trump marriage KS QS.
D2 = ((["KS", "QS", "AC", "AD", "TD"], ["TS", "TC", "KC", "JD", "QD"]), "AS",
      ["AH", "JH", "TH", "QH", "KH", "JC", "QC", "KD", "JS"])
# D2a: T1 s0 marriage KS (40) / s1 JD -> s0 +6 (46; s0 draws AH, s1 JH); T2 s0 AC / s1 TC -> +21
#      (27 + 40 = 67; s0 draws TH, s1 QH).
D2A = ["marriage KS", "JD", "AC", "TC"]
# D2b: T1 as D2a (46); T2 s0 TD / s1 TS -> s1 +20 (s1 draws TH, s0 QH); T3 s1 QD / s0 AD -> s0 +14
#      (20 + 40 = 60; s0 draws KH, s1 JC); T4 s0 AC / s1 JC -> s0 +13 (33 + 40 = 73).
D2B_T3 = ["marriage KS", "JD", "TD", "TS", "QD", "AD"]
D2B = [*D2B_T3, "AC", "JC"]

# D3: trump S (trump card AS).
#   T1 s0 TD / s1 TS -> s1 +20 (s1 draws TC, s0 JH); T2 s1 marriage KH (20, counted) / s0 JH -> s1 +6
#   (26 + 20 = 46; s1 KC, s0 QC); T3 s1 JD / s0 AD -> s0 +13 (s0 AH, s1 TH); T4 s0 marriage KS (40) /
#   s1 JC -> s0 +6 (19 + 40 = 59; s0 KD, s1 QD); T5 s0 AC / s1 QD -> s0 +14 (33 + 40 = 73); declare.
#   Loser seat 1: two tricks, 26 trick points + 20 counted marriage = 46.
D3 = ((["KS", "QS", "AC", "AD", "TD"], ["TS", "KH", "QH", "JD", "JC"]), "AS",
      ["TC", "JH", "KC", "QC", "AH", "TH", "KD", "QD", "JS"])
D3_ACTIONS = ["TD", "TS", "marriage KH", "JH", "JD", "AD", "marriage KS", "JC", "AC", "QD", "declare"]


# --------------------------------------------------------------------------- 2.1 deck and points
def test_AT_DECK_1_twenty_cards_ace_ten_king_queen_jack():
    spec = find_variant(AT)
    assert len(spec.deck) == 20
    assert sorted(codes(spec.deck)) == sorted(r + s for s in "CSHD" for r in "ATKQJ")


@pytest.mark.parametrize("suit,trump", [("C", "H"), ("D", "S")])
def test_AT_DECK_1_rank_order_normal(suit, trump):
    order = "ATKQJ"
    for hi in range(5):
        for lo in range(hi + 1, 5):
            high, low = order[hi] + suit, order[lo] + suit
            # lower card led, higher followed -> follower wins; and the other way round
            for lead, follow, winner in ((low, high, 1), (high, low, 0)):
                deal = fill_deal(AT, [lead], [follow], "J" + trump)
                m = at(deal, start=[lead, follow])
                assert m.deal.tricks_won[winner] == 1, (lead, follow)
                assert m.deal.to_act == winner


@pytest.mark.parametrize("cards,points", [
    (("AC", "TC"), 21), (("KC", "QC"), 7), (("JC", "AC"), 13), (("TS", "JS"), 12), (("QD", "KD"), 7),
])
def test_AT_DECK_2_card_points(cards, points):
    lead, follow = cards
    deal = fill_deal(AT, [lead], [follow], "JH")
    m = at(deal, start=[lead, follow])
    w = 0 if m.deal.tricks_won[0] else 1
    assert m.deal.deal_points(w) == points
    assert m.deal.deal_points(1 - w) == 0
    pts = find_variant(AT).configure().points
    assert {r: pts[parse_card(r + "C")] for r in "ATKQJ"} == {"A": 11, "T": 10, "K": 4, "Q": 3, "J": 2}


def test_AT_DECK_3_120_card_points_and_66_wins():
    m = at(SW, start=SW_ACTIONS)  # all ten tricks to seat 0: the whole deck
    assert sum(m.results[0].deal_points) == 120
    assert list(m.results[0].deal_points) == [120, 0]
    m = at(D2, start=[*D2A, "declare"])  # 67 deal points: a correct declaration
    check_result(m, 0, 3, "declared", deal_points=[67, 0])
    assert m.results[0].tricks_won == (2, 0)


# --------------------------------------------------------------------------- 2.2 dealer and deal
def test_AT_SEAT_1_first_dealer_drawn_by_server():
    dealers = {new_match(AT, seed=s).first_dealer for s in range(40)}
    assert dealers == {0, 1}
    for s in (1, 2, 3):
        a, b = new_match(AT, seed=s), new_match(AT, seed=s)
        assert a.first_dealer == b.first_dealer == a.deal.dealer


@pytest.mark.parametrize("dealer", [0, 1])
def test_AT_DEAL_1_three_trump_card_two_then_talon(dealer):
    rules = find_variant(AT).configure()
    deck = list(rules.deck)
    random.Random(3).shuffle(deck)
    m = MatchState(rules, 0, [deck], dealer)
    d = m.deal
    nd = 1 - dealer
    assert sorted(cards_of(d.hands[nd])) == sorted(deck[0:3] + deck[7:9])
    assert sorted(cards_of(d.hands[dealer])) == sorted(deck[3:6] + deck[9:11])
    assert d.trump_card == deck[6]
    assert d.trump == deck[6] // 6
    assert d.talon == deck[11:] + [deck[6]]  # 9 face down on the face-up trump card
    assert d.talon_size == 10
    assert d.to_act == nd
    info = information_set(m, nd)
    assert info["deal"]["trump_card"] == codes([deck[6]])[0]
    assert info["deal"]["talon_size"] == 10
    assert len(info["deal"]["hand"]) == 5


def test_AT_DEAL_2_dealer_alternates():
    m = at(C1, start=C1_ACTIONS)  # seat 0 (non-dealer) wins deal 1
    assert m.results[0].winner == 0
    assert m.deal.dealer == 0 and m.deal.to_act == 1
    m = finish_deal(m)
    assert m.deal.dealer == 1 and m.deal.to_act == 0
    m = at(MN, start=MN_ACTIONS)  # seat 1 (dealer) wins deal 1
    assert m.results[0].winner == 1
    assert m.deal.dealer == 0


# --------------------------------------------------------------------------- 2.3 lead, play, draw
def test_AT_LEAD_1_non_dealer_leads_then_trick_winner():
    assert at(E).to_act == 0
    assert at(E, dealer=0).to_act == 1
    m = at(C5, start=["JC", "TC"])  # seat 1 wins trick 1
    assert m.deal.tricks_won == [0, 1]
    assert m.to_act == 1 and m.deal.phase == 0
    m = play(m, "JS", "AS")  # seat 0 wins trick 2
    assert m.to_act == 0


def test_AT_PLAY_1_free_play_while_talon_open():
    m = at(E, start=["AC"])
    assert legal(m) == set(plays(["JC", "QC", "JD", "QD", "KH"]))
    m = at(E, start=["AC", "JC", "TC", "QC", "AD", "JD", "TD"])
    # talon size 4, still open: seat 1 need not follow diamonds nor head
    assert legal(m) == set(plays(hand(m, 1)))
    assert "QD" in hand(m, 1) and "play KH" in legal(m)


def test_AT_PLAY_2_trick_winner():
    m = at(F, start=F_TO_T5)  # KC led, KH (trump) follows: the trump wins
    assert m.deal.tricks_won == [4, 1] and m.to_act == 1
    deal = fill_deal(AT, ["QC"], ["AD"], "JH")  # another suit, not trump: never wins
    assert at(deal, start=["QC", "AD"]).deal.tricks_won == [1, 0]
    deal = fill_deal(AT, ["AC"], ["JH"], "QH")  # lowest trump beats the ace of another suit
    assert at(deal, start=["AC", "JH"]).deal.tricks_won == [0, 1]
    deal = fill_deal(AT, ["JH"], ["AC"], "QH")  # trump led, other suit followed
    assert at(deal, start=["JH", "AC"]).deal.tricks_won == [1, 0]


def test_AT_PLAY_3_no_running_totals_in_information_set():
    m = at(E, start=["AC", "JC"])
    for seat in (0, 1):
        info = information_set(m, seat)
        for key in ("own_tricks", "own_trick_points", "own_won_cards", "own_deal_points", "trick_points", "deal_points",
                    "won"):
            assert key not in info["deal"]
        assert info["match"]["deals"] == []
        # the completed trick is public as an event
        assert {"winner": 0, "cards": [{"seat": 0, "card": "AC"}, {"seat": 1, "card": "JC"}]} \
            in events_of(info["deal"]["history"], "trick_completed")
        assert info["deal"]["tricks_won"] == [1, 0]


def test_AT_PLAY_3_history_is_public_record_without_aggregates():
    # §14.2 says a completed trick is sent once. Issue #2 makes one deliberate exception for every
    # variant: the information set carries the deal's full public history (perfect recall: both
    # players saw the cards when they were played). What AT-PLAY-3 forbids stays forbidden: no
    # won-card lists and no running totals. Trick 1 (AC JC) stays in the history as the event.
    m = at(E, start=["AC", "JC", "TC", "QC"])
    for seat in (0, 1):
        info = information_set(m, seat)
        tricks = events_of(info["deal"]["history"], "trick_completed")
        assert tricks[0]["cards"] == [{"seat": 0, "card": "AC"}, {"seat": 1, "card": "JC"}]
        assert "own_tricks" not in info["deal"]
        assert all(set(t) == {"winner", "cards"} for t in tricks)


def test_AT_DRAW_1_winner_draws_first_trump_card_last():
    m = at(F, start=["AC", "JC"])
    assert hand(m, 0) == {"TC", "AD", "TD", "KC", "JS"}  # winner draws the top card JS
    assert hand(m, 1) == {"QC", "JD", "QD", "KH", "AS"}  # loser draws the next one AS
    assert m.deal.talon_size == 8
    m = at(F, start=F_TO_T5)  # loser of trick 5 (seat 0) draws the face-up trump card QH
    assert hand(m, 0) == {"JS", "AH", "TH", "KD", "QH"}
    assert hand(m, 1) == {"AS", "TS", "KS", "QS", "JH"}
    assert m.deal.talon_size == 0 and talon(m) == []
    assert m.deal.talon_state == "exhausted"
    # §14.1: the identity of the face-up trump card stays public (the loser drew it); the other
    # drawn cards stay hidden from the opponent
    hist = information_set(m, 1)["deal"]["history"]
    assert hist[-1] == {"version": 0, "deal_number": 0, "card_drawn": {"seat": 0, "card": "QH"}}
    assert hist[-2] == {"version": 0, "deal_number": 0, "card_drawn": {"seat": 1, "card": ""}}


def test_AT_DRAW_1_exchanged_jack_drawn_last():
    m = at(E, start=["exchange"])
    assert talon(m)[-1] == "JH"
    for t in E_TRICKS:
        m = play(m, *t)
    m = play(m, "KC", "AS")  # T5: seat 0 wins; seat 0 draws QH, seat 1 the exchanged JH
    assert hand(m, 0) == {"AH", "JS", "TH", "KD", "QH"}
    assert hand(m, 1) == {"KH", "TS", "KS", "QS", "JH"}
    assert m.deal.talon_size == 0


# --------------------------------------------------------------------------- 2.4 strict play
def test_AT_STRICT_1_strict_after_exhaustion():
    m = at(F, start=[*F_TO_T5, "JH"])
    assert legal(m) == set(plays(["AH", "TH", "QH"]))  # follow suit and head: not JS / KD
    assert_illegal(m, "KD")
    m = play(m, "QH", "KD")
    assert legal(m) == set(plays(["AS", "TS", "KS", "QS"]))  # void in D, no trump: any card
    m = play(m, "QS", "TH", "KS", "AH", "TS", "JS")
    assert legal(m) == {"play AS"}
    m = at(SW, start=[*SW_ACTIONS[:10], "AH"])
    assert legal(m) == set(plays(["JH", "KH"]))  # trump led: follow, no higher trump
    m = play(m, "JH", "TH", "KH", "TS")
    assert legal(m) == {"play QS"}  # must follow suit although QS cannot head TS
    m = play(m, "QS", "KS")
    assert legal(m) == set(plays(["KC", "KD"]))


def test_AT_STRICT_1_follow_suit_even_without_heading():
    # F after trick 5: seat 1 leads QS; seat 0 (JS AH TH KD QH) must follow spades with JS
    m = at(F, start=[*F_TO_T5, "QS"])
    assert legal(m) == {"play JS"}
    m = at(F, start=[*F_TO_T5, "TS"])
    assert legal(m) == {"play JS"}


def test_AT_STRICT_2_strict_from_closing():
    m = at(C, start=["close", "KH"])
    assert legal(m) == {"play AH"}  # follow trump and head, at once after the close
    m = at(C1, start=["close", "AC"])
    assert legal(m) == set(plays(["TC", "KC"]))
    m = at(C1, start=["close", "AH"])
    assert legal(m) == set(plays(["TC", "TS", "TD", "KC", "KS"]))  # void in trumps: any card
    m = at(MN, start=["close", "marriage KC"])
    assert legal(m) == set(plays(["AC", "TC"]))
    m = at(C5, start=["close", "JC", "TC", "marriage KH"])
    assert legal(m) == set(plays(["QC", "KC", "AS", "QS"]))  # no heart, no trump: any
    m = at(C, start=["close", "AD"])
    assert legal(m) == {"play TD"}
    m = at(C, start=["close", "KH", "AH", "TC"])
    assert legal(m) == {"play AC"}  # must head
    # void in the led suit with a trump: must trump
    deal = (["AD", "AC", "AS", "KH", "TH"], ["AH", "TC", "TS", "JC", "JS"]), "QH", \
        ["KS", "QS", "KC", "QC", "KD", "QD", "TD", "JD", "JH"]
    m = at(deal, start=["close", "AD"])
    assert legal(m) == {"play AH"}


# --------------------------------------------------------------------------- 2.5 trump exchange
def test_AT_EXCH_1_exchange_jack_for_trump_card():
    m = at(E)
    assert "exchange" in legal(m)
    m = play(m, "exchange")
    assert hand(m, 0) == {"AC", "TC", "AD", "TD", "AH"}
    assert talon(m)[-1] == "JH" and m.deal.trump_card == parse_card("JH")
    assert m.deal.trump == parse_card("AH") // 6  # trump suit unchanged
    assert m.to_act == 0 and "exchange" not in legal(m)
    assert "play AH" in legal(m)  # the lead turn continues
    ev = information_set(m, 1)["deal"]["history"][-1]
    assert ev == {"version": 0, "deal_number": 0, "trump_exchanged": {"seat": 0, "card_down": "JH", "card_up": "AH"}}


def test_AT_EXCH_1_exchange_then_trump_marriage_same_turn():
    deal = fill_deal(AT, ["JH", "KH"], [], "QH")
    m = at(deal, start=["exchange"])
    assert {"marriage KH", "marriage QH"} <= legal(m)
    m = play(m, "marriage QH")
    assert m.deal.marriage_points[0] == 40


def test_AT_EXCH_1_only_holder_at_own_lead_turn():
    m = at(E, dealer=0)  # seat 1 leads; seat 0 holds JH
    assert "exchange" not in legal(m)
    assert_illegal(m, "exchange")
    m = play(m, "JC")
    assert m.to_act == 0 and "exchange" not in legal(m)  # follow turn
    assert_illegal(m, "exchange")
    m = at(E, start=["AC"])  # after leading, the leader cannot exchange any more
    assert_illegal(m, "exchange")


def test_AT_EXCH_2_no_exchange_at_talon_size_2():
    m = e_after(4)
    assert m.to_act == 0 and m.deal.talon_size == 2 and "JH" in hand(m, 0)
    assert "exchange" not in legal(m)
    assert_illegal(m, "exchange")


def test_AT_EXCH_2_exchange_at_talon_sizes_10_to_4():
    for k, size in enumerate((10, 8, 6, 4)):
        m = e_after(k)
        assert m.deal.talon_size == size and m.to_act == 0
        assert "exchange" in legal(m), size
        m = play(m, "exchange")
        assert "AH" in hand(m, 0)


def test_AT_EXCH_2_exchange_before_first_trick_without_won_trick():
    m = at(E)
    assert m.deal.trick_no == 0 and m.deal.tricks_won == [0, 0]
    assert "exchange" in legal(m)


def test_AT_EXCH_2_need_not_exchange_at_first_opportunity():
    m = e_after(1)  # seat 0 did not exchange at its first lead
    assert "exchange" in legal(m)
    m = e_after(3)
    assert "exchange" in legal(m)


def test_AT_EXCH_3_no_exchange_after_close():
    m = at(E, start=["close"])
    assert "exchange" not in legal(m)
    assert_illegal(m, "exchange")
    m = at(E, start=["exchange", "close"])  # exchange first, then close: both allowed
    assert m.deal.closed_by == 0 and "AH" in hand(m, 0)


def test_AT_EXCH_3_no_exchange_after_exhaustion():
    m = at(F, start=F_TO_T5)
    assert m.to_act == 1 and "JH" in hand(m, 1) and m.deal.talon_size == 0
    assert "exchange" not in legal(m)
    assert_illegal(m, "exchange")


def test_AT_EXCH_3_option_exchange_on_opponent_close():
    # default false: when seat 1 closes, seat 0 (holding JH) is not offered an exchange
    m = at(E, dealer=0, start=["close"])
    assert m.to_act == 1 and "exchange" not in legal(m)
    m = at(E, {"exchange_on_opponent_close": True}, dealer=0, start=["close"])
    assert m.to_act == 0 and legal(m) == {"exchange", "pass"}
    m2 = play(m, "exchange")
    assert "AH" in hand(m2, 0) and m2.to_act == 1
    m3 = play(m, "pass")
    assert "JH" in hand(m3, 0) and m3.to_act == 1


# --------------------------------------------------------------------------- 2.6 marriages
def test_AT_MAR_1_marriage_leads_king_or_queen():
    m = at(M)
    assert {"marriage KS", "marriage QS"} <= legal(m)
    m = play(m, "marriage QS")
    assert m.deal.lead_card == parse_card("QS") and m.to_act == 1
    assert m.deal.history[-2] == ("marriage", 0, parse_card("QS") // 6, 20)
    assert "QS" not in hand(m, 0) and "KS" in hand(m, 0)


def test_AT_MAR_1_announce_then_must_lead_king_or_queen():
    m = at(M, start=["AC", "TC"])  # seat 0 wins trick 1 (21)
    assert {"announce S", "announce D"} <= legal(m)
    m = play(m, "announce S")
    assert legal(m) == {"play KS", "play QS", "declare"}
    for t in ("play KD", "play KC", "play QD"):
        assert_illegal(m, t)


def test_AT_MAR_2_trump_marriage_40():
    m = at(M, start=["marriage KD"])
    assert m.deal.history[-2] == ("marriage", 0, 3, 40)
    m = play(m, "JS")
    assert m.deal.deal_points(0) == 4 + 2 + 40
    m = at(M, start=["marriage KS", "JS"])  # non-trump: 20
    assert m.deal.deal_points(0) == 4 + 2 + 20


def test_AT_MAR_3_marriage_cards_public():
    m = at(M, start=["marriage KS"])
    info = information_set(m, 1)
    assert {"seat": 0, "suit": "S", "points": 20, "shown_cards": ["KS", "QS"]} \
        in events_of(info["deal"]["history"], "marriage_announced")
    assert public_known_cards(m.deal, 0) == 1 << parse_card("QS")


def test_AT_MAR_4_marriage_at_first_lead():
    m = at(M)
    assert {"marriage KS", "marriage QS", "marriage KD", "marriage QD"} <= legal(m)


def test_AT_MAR_4_marriage_after_close():
    m = at(M, start=["close"])
    assert {"marriage KS", "marriage QS", "marriage KD", "marriage QD"} <= legal(m)
    m = at(C5, start=C_FAIL2[:7])  # T4 of C_FAIL2: seat 1 leads in a closed deal
    assert m.to_act == 1 and m.deal.closed_by == 0
    assert {"marriage KH", "marriage QH"} <= legal(m)


def test_AT_MAR_4_marriage_after_exhaustion():
    m = at(F, start=F_TO_T5)
    assert m.deal.talon_state == "exhausted"
    assert {"marriage KS", "marriage QS"} <= legal(m)


def test_AT_MAR_5_marriage_pending_until_trick_won():
    m = at(M, start=["marriage KS", "AS"])  # seat 1 wins trick 1
    assert m.deal.deal_points(0) == 0 and m.deal.deal_points(1) == 15
    m = play(m, "JC", "AC")  # seat 0 wins trick 2: the 20 now count
    assert m.deal.deal_points(0) == 13 + 20


def test_AT_MAR_5_marriage_never_counts_without_trick():
    m = at(MN, start=MN_ACTIONS)
    check_result(m, 1, 3, "closed_failure", deal_points=[0, 67], schwarz=True)


def test_AT_MAR_6_one_marriage_per_lead():
    m = at(M, start=["AC", "TC"])
    m = play(m, "announce S")
    assert not any(t.startswith(("marriage", "announce")) for t in legal(m))
    assert_illegal(m, "announce D")
    assert_illegal(m, "marriage KD")
    m = at(M, start=["marriage KS"])  # the marriage lead ends the turn
    assert m.to_act == 1


def test_AT_MAR_6_both_cards_in_hand():
    m = at(M, start=["AC", "TC", "announce S", "KS", "JS"])  # seat 0 wins trick 2 with KS
    assert m.to_act == 0 and "QS" in hand(m, 0) and "KS" not in hand(m, 0)
    assert "marriage QS" not in legal(m) and "announce S" not in legal(m)
    assert_illegal(m, "marriage QS")
    assert "marriage KD" in legal(m)


# --------------------------------------------------------------------------- 2.7 closing
def test_AT_CLOSE_1_no_drawing_after_close():
    m = at(C, start=["close"])
    assert m.deal.closed_by == 0 and m.deal.talon_state == "closed"
    info = information_set(m, 1)["deal"]
    assert info["trump_card"] == "" and info["talon_state"] == "TALON_STATE_CLOSED" and info["closed_by"] == 0
    m = play(m, "KH", "AH")
    assert len(hand(m, 0)) == 4 and len(hand(m, 1)) == 4  # nobody draws
    assert m.deal.talon_size == 10
    m = play(m, *C_ACTIONS[3:])
    # the cards left in the talon count for nobody: only the 90 points of the hands were played
    assert sum(m.results[0].deal_points) == 90


def test_AT_CLOSE_2_only_leader_may_close():
    m = at(E, start=["AC"])
    assert "close" not in legal(m)
    assert_illegal(m, "close")


def test_AT_CLOSE_2_no_close_at_talon_size_2():
    m = e_after(4)
    assert m.deal.talon_size == 2 and "close" not in legal(m)
    assert_illegal(m, "close")
    m = e_after(3)
    assert m.deal.talon_size == 4 and "close" in legal(m)


def test_AT_CLOSE_2_close_after_draw_not_between_trick_and_draw():
    m = at(E, start=["AC", "JC"])
    assert len(hand(m, 0)) == 5 and m.deal.talon_size == 8  # the draw happened at once
    assert "draw" not in legal(m)
    m = play(m, "close")
    assert hand(m, 0) == {"TC", "AD", "TD", "JH", "JS"}


def test_AT_CLOSE_2_close_before_first_trick():
    assert "close" in legal(at(E))


def test_AT_CLOSE_2_closer_continues_lead_turn():
    m = at(M, start=["close"])
    assert m.to_act == 0
    assert "close" not in legal(m)
    m = play(m, "marriage KD")
    assert m.deal.marriage_points[0] == 40 and m.to_act == 1
    m = at(D2, start=["marriage KS", "JD", "close"])  # the closer may declare in the same turn
    assert "declare" in legal(m)


def test_AT_CLOSE_3_success_scored_as_at_closing():
    m = at(C, start=C_ACTIONS)  # seat 1 had no trick at closing, won one afterwards
    check_result(m, 0, 3, "closed_success", deal_points=[75, 15])


def test_AT_CLOSE_3_success_by_declaration():
    m = at(C1, start=C1_ACTIONS)
    check_result(m, 0, 3, "closed_success", deal_points=[78, 0], schwarz=True)


def test_AT_CLOSE_4_failed_close_three_if_opponent_had_no_trick_at_close():
    m = at(MN, start=MN_ACTIONS)
    check_result(m, 1, 3, "closed_failure")


def test_AT_CLOSE_4_failed_close_two_if_opponent_had_trick_at_close():
    m = at(C5, start=C_FAIL2)
    check_result(m, 1, 2, "closed_failure", deal_points=[18, 54])


def test_AT_CLOSE_4_closer_false_declaration_is_failed_close():
    m = at(C, start=["close", "KH", "AH", "JC", "AC"])  # closer: 13 points, seat 1 has a trick now
    assert m.to_act == 0 and "declare" in legal(m)
    m = play(m, "declare")
    check_result(m, 1, 3, "closed_failure")  # 3: seat 1 had no trick at the moment of closing


def test_AT_CLOSE_5_non_closer_correct_declaration_is_failed_close():
    m = at(C5, start=C5A)
    assert m.to_act == 1 and "declare" in legal(m)
    m = play(m, "declare")
    check_result(m, 1, 3, "closed_failure", deal_points=[13, 73])


def test_AT_CLOSE_5_non_closer_false_declaration():
    m = at(C5, start=C5B)
    assert m.to_act == 1 and "declare" in legal(m)
    m = play(m, "declare")
    check_result(m, 0, 2, "false_declaration")  # AT-DECL-3: the closer has a trick -> 2


# --------------------------------------------------------------------------- 2.8 declaring 66
def test_AT_DECL_1_declare_at_own_lead_turn_never_automatic():
    m = at(D2, start=D2A)
    assert m.deal.deal_points(0) == 67
    assert m.results == [] and m.to_act == 0 and "declare" in legal(m)
    m2 = play(m, "declare")
    check_result(m2, 0, 3, "declared")


def test_AT_DECL_1_no_declare_at_follow_turn():
    # D2a, then T3 s0 AD / s1 TS (trump) -> s1 +21 (s1 draws KH, s0 JC); T4 s1 leads QD
    m = at(D2, start=[*D2A, "AD", "TS", "QD"])
    assert m.to_act == 0 and m.deal.deal_points(0) == 67
    assert "declare" not in legal(m)
    assert_illegal(m, "declare")


def test_AT_DECL_2_declare_after_marriage_without_leading():
    # T1 s0 AC / s1 TC -> +21 (s0 AH, s1 JH); T2 s0 AD / s1 JD -> +13 = 34; T3 announce 40 -> 74
    m = at(D2, start=["AC", "TC", "AD", "JD", "announce S"])
    assert legal(m) == {"play KS", "play QS", "declare"}
    m = play(m, "declare")
    check_result(m, 0, 3, "declared", deal_points=[74, 0])


def test_AT_DECL_3_false_declaration_opponent_without_trick_scores_3():
    m = at(D2, start=["marriage KS", "JD", "declare"])  # 46 < 66
    check_result(m, 1, 3, "false_declaration")


def test_AT_DECL_3_false_declaration_opponent_with_trick_scores_2():
    m = at(D2, start=[*D2B_T3, "declare"])  # 60 < 66, seat 1 has a trick
    check_result(m, 1, 2, "false_declaration")


# --------------------------------------------------------------------------- 2.9 end of deal
def test_AT_END_1_last_trick_wins_undeclared_66_ignored():
    m = at(F, start=[*F_TO_T5, *F_REST[:6]])
    assert m.deal.deal_points(0) == 78  # seat 0 holds 66+ but does not declare
    m = play(m, *F_REST[6:])
    check_result(m, 1, 1, "last_trick", deal_points=[99, 21], schwarz=False, deal_schneider=False)


def test_AT_END_1_no_last_trick_bonus_no_drawn_deal():
    m = at(F, start=[*F_TO_T5, *F_REST])
    assert sum(m.results[0].deal_points) == 120
    m = at(SW, start=SW_ACTIONS)
    assert list(m.results[0].deal_points) == [120, 0]
    assert m.results[0].winner == 0


def test_AT_END_2_closed_deal_runs_out():
    m = at(C, start=C_ACTIONS)
    check_result(m, 0, 3, "closed_success")
    m = at(MN, start=MN_ACTIONS)  # the closer ends with 0 < 66
    check_result(m, 1, 3, "closed_failure")


# --------------------------------------------------------------------------- 2.10 scoring, match
def test_AT_SCORE_1_three_if_loser_has_no_trick():
    m = at(D2, start=[*D2A, "declare"])
    check_result(m, 0, 3, "declared", deal_points=[67, 0], schwarz=True, deal_schneider=True)


def test_AT_SCORE_1_two_if_loser_below_33():
    m = at(D2, start=[*D2B, "declare"])
    check_result(m, 0, 2, "declared", deal_points=[73, 20], schwarz=False, deal_schneider=True)


def test_AT_SCORE_1_one_if_loser_33_with_counted_marriages():
    m = at(D3, start=D3_ACTIONS)
    check_result(m, 0, 1, "declared", deal_points=[73, 46], schwarz=False, deal_schneider=False)


def test_AT_SCORE_2_last_trick_scores_1():
    m = at(SW, start=SW_ACTIONS)  # even with the loser at 0 tricks
    check_result(m, 0, 1, "last_trick", schwarz=True)


def test_AT_MATCH_1_first_to_7():
    m = at(C1, start=C1_ACTIONS, game_points=[4, 2])
    assert m.over and m.winner == 0 and m.end_reason == "target_reached"
    assert m.game_points == [7, 2] and m.match_schneider is False
    assert m.legal_actions() == []
    with pytest.raises(MatchOverError):
        apply(m, "play AC")


def test_AT_MATCH_1_continues_below_7():
    m = at(C1, start=C1_ACTIONS, game_points=[3, 2])
    assert not m.over and m.game_points == [6, 2] and m.deal_number == 1
    m = at(C1, start=C1_ACTIONS)
    assert m.game_points == [3, 0] and not m.over
    info = information_set(m, 0)["match"]
    assert info["target"] == 7


def test_AT_MATCH_2_schneider_recorded():
    m = at(C1, start=C1_ACTIONS, game_points=[4, 0])
    assert m.over and m.winner == 0 and m.match_schneider is True


def test_AT_MATCH_2_schneider_counts_two_bummerl():
    opts = {"bummerls_to_win": 2}
    m = at(C1, opts, start=C1_ACTIONS, game_points=[4, 0])
    assert m.over and m.winner == 0 and m.sets_won == [2, 0]
    m = at(C1, opts, start=C1_ACTIONS, game_points=[4, 1])
    assert not m.over and m.sets_won == [1, 0] and m.game_points == [0, 0]


# --------------------------------------------------------------------------- OPEN-AT options
def test_OPEN_AT_defaults():
    r = find_variant(AT).configure()
    assert (r.schneider_threshold, r.schneider_threshold_includes_marriages) == (33, True)  # OPEN-AT-1
    assert (r.exchange_min_talon, r.exchange_before_first_trick, r.exchange_requires_won_trick) == (4, True, False)
    assert (r.close_timing, r.close_min_talon, r.close_before_first_trick) == ("after_draw", 4, True)
    assert (r.close_score_basis, r.non_closer_may_declare) == ("at_close", True)  # OPEN-AT-4
    assert (r.undeclared_66_at_end, r.last_trick_win_points) == ("last_trick_wins", "fixed1")
    assert r.false_declaration_penalty == "two_or_three"  # OPEN-AT-6
    assert (r.marriage_first_lead_allowed, r.marriage_counts_after_first_trick) == (True, True)
    assert r.dealer_rotation == "alternate"  # OPEN-AT-8
    assert r.may_view_own_tricks is False  # OPEN-AT-9
    assert (r.match_target, r.bummerls_to_win, r.schneider_bummerl_value) == (7, 1, 2)  # OPEN-AT-10
    assert (r.marriages_per_lead, r.declare_on_marriage, r.auto_declare) == (1, True, False)


def test_OPEN_AT_1_schneider_threshold():
    m = at(D3, {"schneider_threshold": 50}, start=D3_ACTIONS)  # loser 46 < 50
    check_result(m, 0, 2, "declared")
    m = at(D3, {"schneider_threshold": 46}, start=D3_ACTIONS)  # loser 46 >= 46
    check_result(m, 0, 1, "declared")


def test_OPEN_AT_1_threshold_without_marriages():
    m = at(D3, {"schneider_threshold_includes_marriages": False}, start=D3_ACTIONS)  # 26 < 33
    check_result(m, 0, 2, "declared", deal_points=[73, 46])


def test_OPEN_AT_2_exchange_min_talon_2():
    m = e_after(4, {"exchange_min_talon": 2})
    assert m.deal.talon_size == 2 and "exchange" in legal(m)


def test_OPEN_AT_2_exchange_min_talon_6():
    assert "exchange" in legal(e_after(2, {"exchange_min_talon": 6}))
    m = e_after(3, {"exchange_min_talon": 6})
    assert m.deal.talon_size == 4 and "exchange" not in legal(m)


def test_OPEN_AT_2_exchange_before_first_trick_false():
    opts = {"exchange_before_first_trick": False}
    assert "exchange" not in legal(at(E, opts))
    assert "exchange" in legal(e_after(1, opts))


def test_OPEN_AT_2_exchange_requires_won_trick_true():
    opts = {"exchange_requires_won_trick": True}
    assert "exchange" not in legal(at(E, opts))  # seat 0 has not won a trick yet
    assert "exchange" in legal(e_after(1, opts))


def test_OPEN_AT_3_close_timing_before_or_after_draw():
    opts = {"close_timing": "before_or_after_draw"}
    m = at(E, opts, start=["AC", "JC"])
    assert m.to_act == 0 and legal(m) == {"close", "draw"}
    assert len(hand(m, 0)) == 4
    drawn = play(m, "draw")
    assert "JS" in hand(drawn, 0) and "AS" in hand(drawn, 1) and drawn.deal.talon_size == 8
    closed = play(m, "close")  # closed before drawing: nobody draws, 4 cards each
    assert closed.deal.closed_by == 0 and len(hand(closed, 0)) == 4 and len(hand(closed, 1)) == 4
    assert closed.to_act == 0 and "play TC" in legal(closed)


def test_OPEN_AT_3_close_min_talon_2():
    m = e_after(4, {"close_min_talon": 2})
    assert m.deal.talon_size == 2 and "close" in legal(m)


def test_OPEN_AT_3_close_min_talon_6():
    assert "close" in legal(e_after(2, {"close_min_talon": 6}))
    assert "close" not in legal(e_after(3, {"close_min_talon": 6}))


def test_OPEN_AT_3_close_before_first_trick_false():
    opts = {"close_before_first_trick": False}
    assert "close" not in legal(at(E, opts))
    assert "close" in legal(e_after(1, opts))


def test_OPEN_AT_4_close_score_basis_at_end():
    m = at(C, {"close_score_basis": "at_end"}, start=C_ACTIONS)  # seat 1: 1 trick, 15 < 33
    check_result(m, 0, 2, "closed_success")


def test_OPEN_AT_4_non_closer_may_declare_false():
    opts = {"non_closer_may_declare": False}
    m = at(C5, opts, start=C5A)
    assert "declare" not in legal(m)
    assert_illegal(m, "declare")
    m = at(C5, opts, start=C5B)
    assert "declare" not in legal(m)


def test_OPEN_AT_5_holder_wins():
    m = at(F, {"undeclared_66_at_end": "holder_wins"}, start=[*F_TO_T5, *F_REST])
    # seat 0 held 78 >= 66 before the last trick: wins by AT-SCORE-1, seat 1 < 33 with tricks
    check_result(m, 0, 2)


def test_OPEN_AT_5_holder_wins_without_holder():
    m = at(SW, {"undeclared_66_at_end": "holder_wins"}, start=SW_ACTIONS)
    check_result(m, 0, 1)  # seat 1 never held 66: the last trick decides as usual


def test_OPEN_AT_5_last_trick_win_points_by_table():
    m = at(SW, {"last_trick_win_points": "by_table"}, start=SW_ACTIONS)
    check_result(m, 0, 3, "last_trick")  # loser without a trick
    m = at(F, {"last_trick_win_points": "by_table"}, start=[*F_TO_T5, *F_REST])
    check_result(m, 1, 1, "last_trick")  # loser with 99


@pytest.mark.parametrize("penalty,no_trick,with_trick", [
    ("two_or_three", 3, 2), ("flat2", 2, 2), ("max3", 3, 3),
])
def test_OPEN_AT_6_false_declaration_penalty(penalty, no_trick, with_trick):
    opts = {"false_declaration_penalty": penalty}
    m = at(D2, opts, start=["marriage KS", "JD", "declare"])
    check_result(m, 1, no_trick, "false_declaration")
    m = at(D2, opts, start=[*D2B_T3, "declare"])
    check_result(m, 1, with_trick, "false_declaration")


def test_OPEN_AT_6_false_declaration_penalty_reject():
    opts = {"false_declaration_penalty": "reject"}
    m = at(D2, opts, start=["marriage KS", "JD"])  # 46
    assert "declare" not in legal(m)
    assert_illegal(m, "declare")
    m = at(D2, opts, start=D2A)  # 67
    assert "declare" in legal(m)


def test_OPEN_AT_6_false_declaration_penalty_remaining_possible():
    # the innocent side scores what it could still score: offender has a trick with 6 < 33 -> 2
    m = at(D2, {"false_declaration_penalty": "remaining_possible"}, start=["marriage KS", "JD", "declare"])
    check_result(m, 1, 2, "false_declaration")


def test_OPEN_AT_7_marriage_first_lead_allowed_false():
    opts = {"marriage_first_lead_allowed": False}
    m = at(M, opts)
    assert not any(t.startswith(("marriage", "announce")) for t in legal(m))
    assert_illegal(m, "marriage KS")
    m = at(M, opts, start=["AC", "TC"])
    assert {"marriage KS", "marriage KD"} <= legal(m)


def test_OPEN_AT_7_marriage_counts_at_once():
    m = at(M, {"marriage_counts_after_first_trick": False}, start=["marriage KS", "AS"])
    assert m.deal.deal_points(0) == 20


@pytest.mark.parametrize("rotation,after_c1,after_mn", [
    ("alternate", 0, 0), ("winner_deals", 0, 1), ("loser_deals", 1, 0), ("clockwise", 0, 0),
])
def test_OPEN_AT_8_dealer_rotation(rotation, after_c1, after_mn):
    opts = {"dealer_rotation": rotation}
    assert at(C1, opts, start=C1_ACTIONS).deal.dealer == after_c1  # dealer 1, winner 0
    assert at(MN, opts, start=MN_ACTIONS).deal.dealer == after_mn  # dealer 1, winner 1


def test_OPEN_AT_9_may_view_own_tricks_true():
    m = at(E, {"may_view_own_tricks": True}, start=["AC", "JC"])
    d = information_set(m, 0)["deal"]
    assert d["own_tricks"] == {"trick_points": 13, "won_cards": ["AC", "JC"], "deal_points": 13}
    d1 = information_set(m, 1)["deal"]
    assert d1["own_tricks"]["trick_points"] == 0 and d1["own_tricks"]["won_cards"] == []
    m = at(E, start=["AC", "JC"])
    assert "own_tricks" not in information_set(m, 0)["deal"]


def test_OPEN_AT_10_match_target():
    m = at(C1, {"match_target": 3}, start=C1_ACTIONS)
    assert m.over and m.winner == 0
    m = at(C1, {"match_target": 4}, start=C1_ACTIONS)
    assert not m.over


def test_OPEN_AT_10_bummerls_to_win_and_schneider_value():
    m = at(C1, {"bummerls_to_win": 2, "schneider_bummerl_value": 1}, start=C1_ACTIONS, game_points=[4, 0])
    assert not m.over and m.sets_won == [1, 0] and m.game_points == [0, 0]
    m = at(C1, {"bummerls_to_win": 3, "schneider_bummerl_value": 2}, start=C1_ACTIONS, game_points=[4, 0])
    assert not m.over and m.sets_won == [2, 0]
    m = at(C1, {"bummerls_to_win": 1}, start=C1_ACTIONS, game_points=[4, 0])
    assert m.over and m.winner == 0 and m.match_schneider


def test_AT_information_set_json_ready():
    m = at(C5, start=C_FAIL2[:7])
    for seat in (0, 1):
        json.dumps(information_set(m, seat))


# --------------------------------------------------------------------------- other options of the variant
@pytest.mark.parametrize("rule,mn,fail2,false_decl", [
    ("opponent_no_trick_at_close", 3, 2, 3),  # the default, AT-CLOSE-4
    ("never", 2, 2, 2),
    ("always", 3, 3, 3),
    ("either_no_trick_at_close", 3, 2, 3),
    ("opponent_no_trick_at_end", 2, 2, 3),
])
def test_AT_CLOSE_4_option_failed_close_three_if(rule, mn, fail2, false_decl):
    opts = {"failed_close_three_if": rule}
    # MN: nobody had a trick at the close; seat 1 wins tricks afterwards
    check_result(at(MN, opts, start=MN_ACTIONS), 1, mn, "closed_failure")
    # C_FAIL2: both had a trick at the close
    check_result(at(C5, opts, start=C_FAIL2), 1, fail2, "closed_failure")
    # C1: the closer declares falsely after trick 1 (21 points); seat 1 never wins a trick
    check_result(at(C1, opts, start=["close", "AC", "TC", "declare"]), 1, false_decl, "closed_failure")


def test_AT_END_2_option_closed_deal_end_last_trick():
    opts = {"closed_deal_end": "last_trick"}
    check_result(at(C, opts, start=C_ACTIONS), 0, 1, "last_trick")  # seat 0 wins the last trick
    check_result(at(MN, opts, start=MN_ACTIONS), 1, 1, "last_trick")


def test_AT_MAR_4_option_marriage_after_talon_closed_false():
    opts = {"marriage_after_talon_closed": False}
    m = at(M, opts, start=["close"])
    assert not any(t.startswith(("marriage", "announce")) for t in legal(m))
    m = at(F, opts, start=F_TO_T5)
    assert not any(t.startswith(("marriage", "announce")) for t in legal(m))
    m = at(M, opts)  # open talon: still allowed
    assert "marriage KS" in legal(m)

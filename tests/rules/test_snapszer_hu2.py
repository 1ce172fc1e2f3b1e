"""``snapszer-hu-2p`` (docs/RULES.md §6): one test per rule id HU2-* and per OPEN-HU2-* option value.

Every scenario is an explicit deal (hands by seat, face-up trump card, talon top first); the
expected outcome is derived by hand from docs/RULES.md, never copied from the engine. Unless stated
otherwise seat 1 deals, so seat 0 (the non-dealer) leads the first trick (HU2-LEAD-1), and piros
(hearts, H) is trump. Notation in the comments: ``T3: AS/JS s0 +13 (40)`` = trick 3, the leader
plays AS, the follower JS, seat 0 wins 13 card points (40 in total). Card points (HU2-DECK-1):
ász 11, 10-es 10, király 4, felső 3, alsó 2; marriage 20 / 40 in trumps; no last-trick bonus.
The talon holds 9 face-down cards on the trump card (size 10); the draw after a trick is
automatic (HU2-DRAW-1), so the talon is exhausted after trick 5.
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping, Sequence

import pytest

from bummerl.rules import (
    IllegalActionError,
    MatchOverError,
    MatchState,
    apply,
    find_variant,
    information_set,
    new_match,
)
from bummerl.rules.base.cards import card_code

from .helpers import (
    assert_illegal,
    cards,
    codes,
    deck_for,
    events_of,
    finish_deal,
    hand,
    keys,
    legal,
    make_match,
    play,
    res,
    rest,
    strings,
)

V = "snapszer-hu-2p"


# --------------------------------------------------------------------------- helpers


def hu(
    s0: Sequence[str],
    s1: Sequence[str],
    trump: str,
    talon_top: Sequence[str] = (),
    *,
    dealer: int = 1,
    options: Mapping[str, object] | None = None,
    next_decks: Sequence[Sequence[int]] = (),
) -> MatchState:
    """A match whose first deal gives ``s0``/``s1`` (5 cards each) and ``trump`` face up; the
    talon starts with ``talon_top``, the other cards follow in deck order."""
    talon = [*talon_top, *rest(V, s0, s1, [trump], talon_top)]
    return make_match(V, dealer, (s0, s1), trump, talon, options, next_decks=next_decks)


# --- E1: seat 0 wins the five talon tricks (66, undeclared); seat 1 wins the last trick -------
# T1 AC/JC 13, T2 TC/KC 14 (27), T3 AS/JS 13 (40), T4 TS/QS 13 (53), T5 AD/JD 13 (66).
# s0 draws AH TH KH QC QD, s1 JH KS TD KD and, as loser of trick 5, the face-up QH.
# Strict: T6 AH/JH s0 13 (79), T7 TH/QH 13 (92), T8 KH/KS 8 (100), T9 QC/KD 7 (107),
# T10 QD/TD s1 13 -> s0 107, s1 13, s1 took the last trick.
E1_S0 = ["AC", "TC", "AS", "TS", "AD"]
E1_S1 = ["JC", "KC", "JS", "QS", "JD"]
E1_TRUMP = "QH"
E1_TALON = ["AH", "JH", "TH", "KS", "KH", "TD", "QC", "KD", "QD"]
E1_T1_T5 = ["AC", "JC", "TC", "KC", "AS", "JS", "TS", "QS", "AD", "JD"]
E1_T6_T10 = ["AH", "JH", "TH", "QH", "KH", "KS", "QC", "KD", "QD", "TD"]


def e1(options: Mapping[str, object] | None = None) -> MatchState:
    return make_match(V, 1, (E1_S0, E1_S1), E1_TRUMP, E1_TALON, options)


# --- E2: seat 0 wins only trick 1 (13 points); seat 1 wins every other trick ------------------
# T1 AC/JC s0 13, T2 JS/AS s1 13, T3 TS/QS 13 (26), T4 AD/JD 13 (39), T5 TD/QD 13 (52).
# s0 draws JH KS QC KD + QH, s1 AH TH KH TC KC. Strict: T6 AH/JH s1 13 (65), T7 TH/QH 13 (78),
# T8 KH/KS 8 (86), T9 TC/QC 13 (99), T10 KC/KD 8 (107).
E2_S0 = ["AC", "JS", "QS", "JD", "QD"]
E2_S1 = ["JC", "AS", "TS", "AD", "TD"]
E2_TRUMP = "QH"
E2_TALON = ["JH", "AH", "TH", "KS", "KH", "QC", "TC", "KD", "KC"]
E2_T1_T5 = ["AC", "JC", "JS", "AS", "TS", "QS", "AD", "JD", "TD", "QD"]
E2_T6_T10 = ["AH", "JH", "TH", "QH", "KH", "KS", "TC", "QC", "KC", "KD"]


def e2(options: Mapping[str, object] | None = None) -> MatchState:
    return make_match(V, 1, (E2_S0, E2_S1), E2_TRUMP, E2_TALON, options)


# --- HD1: seat 1 wins with 40 + 33 card points; seat 0 has 42 trick points -------------------
# T1 AS/TS s0 21, T2 AD/TD s0 21 (42), T3 JC/AC s1 13, T4 s1 marries hearts (40) leading KH,
# JD s1 +6 (59), T5 AH/QC s1 +14 (73).
HD1_S0 = ["AS", "AD", "JC", "JD", "QC"]
HD1_S1 = ["TS", "TD", "AC", "KH", "QH"]
HD1_TALON = ["KS", "AH", "KD", "QS", "TC", "JS", "QD", "KC", "JH"]
HD1_T1_T4 = ["AS", "TS", "AD", "TD", "JC", "AC", "marriage KH", "JD"]


def hd1(options: Mapping[str, object] | None = None) -> MatchState:
    return make_match(V, 1, (HD1_S0, HD1_S1), "TH", HD1_TALON, options)


# --- HX: seat 0 keeps the trump alsó (JH) through the whole talon phase -----------------------
# T1 AC/JC, T2 TC/KC, T3 AS/JS, T4 TS/QS, T5 KS/JD (all s0); s0 draws KD QD KS QC KH.
HX_S0 = ["AC", "TC", "AS", "TS", "JH"]
HX_S1 = ["JC", "KC", "JS", "QS", "JD"]
HX_TALON = ["KD", "AH", "QD", "TH", "KS", "AD", "QC", "TD", "KH"]


def hx(options: Mapping[str, object] | None = None) -> MatchState:
    return make_match(V, 1, (HX_S0, HX_S1), "QH", HX_TALON, options)


# --- QUICK: one-trick deals ending by a false "elég" (HU2-DECL-2: the innocent side +3) --------
# Each seat holds an ace and the alsó of the other seat's ace suit: s0 AC + JS, s1 AS + JC.
QUICK_HANDS = (["AC", "JS", "KH", "TD", "QD"], ["AS", "JC", "TH", "KD", "QS"])
QUICK_TRUMP = "JH"
QUICK_TALON = rest(V, *QUICK_HANDS, [QUICK_TRUMP])
ACE = {0: "AC", 1: "AS"}
JACK = {0: "JS", 1: "JC"}


def quick_deck(dealer: int) -> list[int]:
    return deck_for(V, dealer, QUICK_HANDS, QUICK_TRUMP, QUICK_TALON)


def quick3(m: MatchState, scorer: int) -> MatchState:
    """``scorer`` loses trick 1; the winner says "elég" with 13 points: false -> ``scorer`` +3."""
    other = 1 - scorer
    if m.to_act == scorer:
        return play(m, JACK[scorer], ACE[other], "declare")
    return play(m, ACE[other], JACK[scorer], "declare")


def quick_match(first_dealer: int, scorers: Sequence[int], options: Mapping[str, object] | None = None) -> MatchState:
    """Play one quick deal per entry of ``scorers``; dealers alternate (HU2-SEAT-1)."""
    dealers = [(first_dealer + i) % 2 for i in range(len(scorers) + 1)]
    m = make_match(
        V, first_dealer, QUICK_HANDS, QUICK_TRUMP, QUICK_TALON, options,
        next_decks=[quick_deck(d) for d in dealers[1:]],
    )
    for i, s in enumerate(scorers):
        assert m.deal.dealer == dealers[i]
        m = quick3(m, s)
    return m


# --------------------------------------------------------------------------- §6.1 deck and points


def test_HU2_DECK_1_20_cards_points_rank_order_hungarian_names() -> None:
    deck = find_variant(V).to_dict()["deck"]
    assert len(deck) == 20
    points = {"A": 11, "T": 10, "K": 4, "Q": 3, "J": 2}
    for c in deck:
        assert c["rank"] in points and c["points"] == points[c["rank"]]
    by_code = {c["code"]: c["local_names"]["hu"] for c in deck}
    assert by_code["QH"] == "piros felső"
    assert by_code["JD"] == "tök alsó"
    assert by_code["AC"] == "makk ász"
    assert by_code["KS"] == "zöld király"
    assert by_code["TH"] in ("piros 10-es", "piros tízes")  # "10-es" is read "tízes"
    # Rank order NORMAL: J < Q < K < 10 < A, trick by trick in spades (non-trump).
    m = hu(["JS", "KS", "QC", "KC", "AD"], ["QS", "AS", "TS", "JC", "TC"], "TH")
    m = play(m, "JS", "QS")  # Q beats J
    assert m.to_act == 1
    m = play(m, "TS", "KS")  # s1 leads TS: 10 beats K
    assert m.to_act == 1 and m.deal.tricks_won == [0, 2]
    m = play(m, "JC", "QC")  # Q beats J
    assert m.to_act == 0
    m = play(m, "KC", "TC")  # 10 beats K
    assert m.to_act == 1
    m = hu(["TS", "TC", "QC", "JC", "AD"], ["KS", "AS", "KC", "JD", "QD"], "TH")
    m = play(m, "TS", "AS")  # A beats 10
    assert m.to_act == 1
    m = play(m, "KS", "TC")  # another suit never wins
    assert m.to_act == 1 and m.deal.tricks_won == [0, 2]


def test_HU2_DECK_2_deck_holds_120_points_without_announcements() -> None:
    assert sum(c["points"] for c in find_variant(V).to_dict()["deck"]) == 120
    m = finish_deal(e1())  # played out without marriages and without a last-trick bonus
    assert sum(m.results[0].deal_points) == 120


# --------------------------------------------------------------------------- §6.2 dealer and deal


def test_HU2_SEAT_1_first_dealer_random_then_alternate() -> None:
    assert {new_match(V, seed=s).deal.dealer for s in range(40)} == {0, 1}
    assert new_match(V, seed=9).deal.dealer == new_match(V, seed=9).deal.dealer
    # Seat 0 wins every deal, yet the deal passes alternately: 1, 0, 1.
    m = quick_match(1, [0, 0])
    assert [r.winner for r in m.results] == [0, 0]
    assert m.deal.dealer == 1
    m = new_match(V, seed=1, first_dealer=0)
    assert information_set(m, 0)["num_seats"] == 2
    with pytest.raises(ValueError):
        information_set(m, 2)


def test_HU2_DEAL_1_three_cards_trump_turned_two_cards_talon_of_ten() -> None:
    deck = list(find_variant(V).deck)
    random.Random(7).shuffle(deck)
    m = new_match(V, seed=0, decks=[deck], first_dealer=1)
    # Non-dealer first: d[0:3] seat 0, d[3:6] seat 1, d[6] trump, d[7:9] seat 0, d[9:11] seat 1.
    assert hand(m, 0) == set(codes(deck[0:3] + deck[7:9]))
    assert hand(m, 1) == set(codes(deck[3:6] + deck[9:11]))
    info = information_set(m, 0)["deal"]
    assert info["trump_card"] == card_code(deck[6])
    assert info["trump_suit"] == card_code(deck[6])[1]
    assert info["talon_size"] == 10
    assert info["hand_sizes"] == [5, 5]
    # The trump card lies at the bottom: d[11] is the top of the talon, drawn by the trick winner.
    m = play(m, sorted(a for a in legal(m) if a.startswith("play"))[0])
    m = play(m, sorted(legal(m))[0])
    w = m.to_act
    assert card_code(deck[11]) in hand(m, w) and card_code(deck[12]) in hand(m, 1 - w)


# --------------------------------------------------------------------------- §6.3 lead, play, draw


def test_HU2_LEAD_1_dealers_opponent_leads_any_card_then_trick_winner() -> None:
    s1 = ["JC", "AS", "KD", "QD", "TH"]
    m = hu(["AC", "KS", "JD", "TD", "JS"], s1, "QH", dealer=0)
    assert m.to_act == 1
    assert cards(*s1) <= legal(m)  # any card may be led
    m = play(m, "JC", "AC")
    assert m.to_act == 0  # the trick winner leads
    m = play(m, "KS", "AS")
    assert m.to_act == 1


def test_HU2_PLAY_1_trick_resolution() -> None:
    m = hu(["AC", "AS", "AH", "KS", "QD"], ["JH", "JD", "KH", "TS", "JC"], "TH")
    m = play(m, "AC", "JH")  # trump alsó beats a plain ace
    assert m.to_act == 1
    m = play(m, "JD", "AS")  # higher card of another suit does not win
    assert m.to_act == 1
    m = play(m, "KH", "AH")  # trump against trump: the higher
    assert m.to_act == 0 and m.deal.tricks_won == [1, 2]


def test_HU2_PLAY_2_free_play_while_talon_open() -> None:
    s1 = ["KC", "QC", "JH", "TD", "JD"]
    m = hu(["AC", "TC", "AS", "TS", "AD"], s1, "QH")
    m = play(m, "AC")
    assert legal(m) == cards(*s1)
    m = play(m, "TD")
    assert m.deal.tricks_won == [1, 0]


def test_HU2_PLAY_3_no_own_won_cards_or_points_in_information_set() -> None:
    m = play(e1(), "AC", "JC")
    for seat in (0, 1):
        info = information_set(m, seat)
        ks = set(keys(info))
        assert not {k for k in ks if k.startswith("own_")}
        assert not ks & {"my_points", "my_tricks_cards", "team_points", "won_cards"}
        assert info["options"]["may_view_own_tricks"] == "false"
        assert info["deal"]["tricks_won"] == [1, 0]


def test_HU2_PLAY_3_history_is_public_record_without_aggregates() -> None:
    # HU2-PLAY-3 / §14.2: "sends each trick once and no running totals". docs/DESIGN.md (issue #2)
    # deliberately keeps the full public history in the information set (perfect recall); the
    # running totals stay forbidden: trick events carry no points, no own won cards / points.
    m = play(e1(), "AC", "JC", "TC")
    for seat in (0, 1):
        info = information_set(m, seat)
        tricks = events_of(info["deal"]["history"], "trick_completed")
        assert tricks == [{"winner": 0, "cards": [{"seat": 0, "card": "AC"}, {"seat": 1, "card": "JC"}]}]
        assert "own_tricks" not in info["deal"]
        assert "points" not in json.dumps(info["deal"]["history"])


def test_HU2_PLAY_3_information_set_hides_opponent_hand_and_talon() -> None:
    m = play(e1(), "AC", "JC")
    info = information_set(m, 0)
    json.dumps(info)
    assert set(info["deal"]["hand"]) == hand(m, 0)
    hidden = hand(m, 1) | {"TH", "KS", "KH", "TD", "QC", "KD", "QD"}  # + the face-down talon
    assert not set(strings(info)) & hidden
    assert info["deal"]["trump_card"] == "QH"


def test_HU2_DRAW_1_trick_winner_draws_first() -> None:
    m = hu(["JC", "KS", "QD", "JS", "JD"], ["AC", "TS", "TC", "KD", "QS"], "TH", ["AH", "KH"])
    m = play(m, "JC", "AC")  # the follower wins
    assert "AH" in hand(m, 1) and "KH" in hand(m, 0)
    assert information_set(m, 0)["deal"]["talon_size"] == 8
    # After trick 5 the loser takes the face-up trump card, publicly (§14.1); other draws hidden.
    m = play(e1(), *E1_T1_T5)
    assert hand(m, 1) == {"JH", "KS", "TD", "KD", "QH"} and hand(m, 0) == {"AH", "TH", "KH", "QC", "QD"}
    draws = [e for e in events_of(information_set(m, 0)["deal"]["history"], "card_drawn") if e["seat"] == 1]
    assert [e["card"] for e in draws] == [""] * 4 + ["QH"]


# --------------------------------------------------------------------------- §6.4 strict play


def test_HU2_STRICT_1_after_closing_follow_suit_and_take_the_trick() -> None:
    m = hu(["QC", "TC", "AH", "QS", "JS"], ["AC", "KC", "JC", "QD", "JD"], "TH")
    m = play(m, "close", "QC")
    assert legal(m) == cards("AC", "KC")  # must head: JC is lower
    m = play(m, "KC", "QD")  # s1 +7, leads
    assert legal(m) == cards("AH")  # void in diamonds -> must trump
    m = play(m, "AH", "QS")
    assert legal(m) == cards("AC", "JC", "JD")  # void in spades, no trump -> any card


def test_HU2_STRICT_2_after_exhaustion_same_compulsions() -> None:
    m = play(e1(), *E1_T1_T5)
    assert information_set(m, 0)["deal"]["talon_state"] == "TALON_STATE_EXHAUSTED"
    m = play(m, "AH")
    assert legal(m) == cards("JH", "QH")  # follow; cannot head the ace
    m = play(m, "JH", "TH")
    assert legal(m) == cards("QH")
    m = play(m, "QH", "KH")
    assert legal(m) == cards("KS", "TD", "KD")  # void in hearts, no trump -> any
    m = play(m, "KS", "QC", "KD", "QD")
    assert legal(m) == cards("TD")  # must head


# --------------------------------------------------------------------------- §6.5 trump exchange


def test_HU2_EXCH_1_leader_with_three_cards_above_trump_no_trick_needed() -> None:
    m = hx()
    assert "exchange" in legal(m)  # first lead of the non-dealer, no trick won
    swapped = play(m, "exchange")
    assert "QH" in hand(swapped, 0) and "JH" not in hand(swapped, 0)
    assert information_set(swapped, 1)["deal"]["trump_card"] == "JH"
    m = play(m, "AC")
    assert_illegal(m, "exchange")  # not the follower's
    m = play(m, "JC", "TC", "KC", "AS", "JS")
    assert m.deal.talon_size == 4 and "exchange" in legal(m)  # 3 cards above the trump card
    m = play(m, "TS", "QS")
    assert m.deal.talon_size == 2
    assert_illegal(m, "exchange")


def test_HU2_EXCH_2_no_exchange_after_closing_or_exhaustion() -> None:
    m = play(hx(), "close")
    assert_illegal(m, "exchange")
    m = play(hx(), "AC", "JC", "TC", "KC", "AS", "JS", "TS", "QS", "KS", "JD")
    assert m.deal.talon_size == 0 and "JH" in hand(m, 0)
    assert_illegal(m, "exchange")


# --------------------------------------------------------------------------- §6.6 marriages

HM_S0 = ["KC", "QC", "KH", "QH", "AS"]
HM_S1 = ["JS", "JD", "TS", "KS", "AD"]


def test_HU2_MAR_1_twenty_forty_and_lead_king_or_queen() -> None:
    m = hu(HM_S0, HM_S1, "TH")
    m = play(m, "marriage QC", "JD")  # T1 QC/JD s0 +5
    m = play(m, "announce H")
    assert legal(m) == {"play KH", "play QH", "declare"}
    assert_illegal(m, "play AS")
    m = play(m, "KH")
    marriages = information_set(m, 1)["deal"]["marriages"]
    assert [(x["seat"], x["suit"], x["points"]) for x in marriages] == [(0, "C", 20), (0, "H", 40)]
    ev = events_of(information_set(m, 1)["deal"]["history"], "marriage_announced")
    assert set(ev[1]["shown_cards"]) == {"KH", "QH"}


def test_HU2_MAR_2_marriage_at_first_lead_and_after_closing_or_exhaustion() -> None:
    m = hu(HM_S0, HM_S1, "TH")
    assert {"marriage KC", "marriage QC", "marriage KH", "marriage QH"} <= legal(m)
    closed = play(m, "close")
    assert {"marriage KC", "marriage QC", "marriage KH", "marriage QH"} <= legal(closed)
    m = play(hx(), "AC", "JC", "TC", "KC", "AS", "JS", "TS", "QS", "KS", "JD")
    assert m.deal.talon_size == 0 and {"marriage KD", "marriage QD"} <= legal(m)


# HM3: T1 s0 marries clubs (20) leading QC, AC s1 +14.
HM3_S0 = ["KC", "QC", "AS", "JD", "QD"]
HM3_S1 = ["AC", "JS", "TD", "KS", "TS"]


def test_HU2_MAR_3_marriage_pending_until_a_trick_is_won() -> None:
    m = play(hu(HM3_S0, HM3_S1, "AH"), "marriage QC", "AC")
    pending = play(m, "declare")  # s1 14 < 66: false elég, s0 +3; s0's 20 does not count yet
    assert res(pending) == (0, (3, 0), (0, 14))
    m = play(m, "JS", "AS", "declare")  # T2 s0 +13: now 13 + 20 = 33 (false elég, s1 +3)
    assert res(m) == (1, (0, 3), (33, 14))


def test_HU2_MAR_4_one_marriage_per_lead() -> None:
    m = play(hu(HM_S0, HM_S1, "TH"), "AS", "JS")
    assert {"marriage KC", "marriage QC", "marriage KH", "marriage QH", "announce C", "announce H"} <= legal(m)
    m = play(m, "announce C")
    assert legal(m) == {"play KC", "play QC", "declare"}
    for text in ("announce H", "marriage KH", "marriage QH"):
        assert_illegal(m, text)
    m = play(m, "KC", "JD")
    assert "marriage KH" in legal(m)  # the next lead turn


# --------------------------------------------------------------------------- §6.7 closing


def test_HU2_CLOSE_1_only_the_leader_with_three_cards_above_trump() -> None:
    m = hx()
    assert "close" in legal(m)
    m = play(m, "AC")
    assert_illegal(m, "close")  # the follower
    m = play(m, "JC", "TC", "KC", "AS", "JS")
    assert m.deal.talon_size == 4 and "close" in legal(m)
    m = play(m, "TS", "QS")
    assert m.deal.talon_size == 2
    assert_illegal(m, "close")


def test_HU2_CLOSE_2_close_at_lead_after_the_draw_also_at_first_lead() -> None:
    m = hx()
    assert "close" in legal(m)  # OPEN-HU2-5: at the very first lead
    m = play(m, "AC", "JC")
    # Never between a trick and its draw: both have drawn, the winner is at his lead turn.
    assert information_set(m, 0)["deal"]["hand_sizes"] == [5, 5]
    assert "close" in legal(m)
    assert_illegal(m, "draw")
    m = play(m, "close")
    assert information_set(m, 0)["deal"]["talon_state"] == "TALON_STATE_CLOSED"
    m = play(m, "TC", "KC")
    assert information_set(m, 0)["deal"]["hand_sizes"] == [4, 4]  # nobody draws any more


def test_HU2_CLOSE_3_successful_close_three_two_one() -> None:
    # 3: close at the first lead; T1 AC/JC 13, T2 TC/QC 13 (26), T3 AH/TS 21 (47),
    # T4 TH/AS 21 (68); s0 says elég, s1 has no trick.
    m = hu(["AC", "TC", "AH", "TH", "KH"], ["KC", "QC", "JC", "TS", "AS"], "JH")
    m = play(m, "close", "AC")
    assert legal(m) == cards("KC", "QC", "JC")
    m = play(m, "JC", "TC", "QC", "AH", "TS", "TH", "AS", "declare")
    assert res(m) == (0, (3, 0), (68, 0))
    assert m.results[0].reason == "closed_success"
    # 2: close at the first lead; T1 JD/QD s1 +5 (after the close), T2 QC/AC s0 14,
    # T3 AH/TD 21 (35), T4 TH/AS 21 (56), T5 KH/TS 14 (70): run out, s1 has a trick but 5.
    m = hu(["AH", "TH", "KH", "AC", "JD"], ["QD", "TD", "QC", "TS", "AS"], "JH")
    m = play(m, "close", "JD", "QD", "QC", "AC", "AH", "TD", "TH", "AS", "KH", "TS")
    assert res(m) == (0, (2, 0), (70, 5))
    # 1: T1 TD/AD s1 21 (s1 draws JS, s0 KH), T2 TS/AS s0 21 (s0 KC, s1 JD), s0 closes;
    # T3 KC/TC s1 14 (35), T4 QC/AC s0 14 (35), T5 AH/KS 15 (50), T6 TH/JS 12 (62),
    # T7 KH/JD 6 (68): run out, s1 reached 33 with tricks before and after the close.
    m = hu(["TD", "AS", "AH", "TH", "AC"], ["AD", "TS", "TC", "QC", "KS"], "QH", ["JS", "KH", "KC", "JD"])
    m = play(m, "TD", "AD", "TS", "AS", "close", "KC")
    assert legal(m) == cards("TC")
    m = play(m, "TC", "QC", "AC", "AH", "KS", "TH", "JS", "KH", "JD")
    assert res(m) == (0, (1, 0), (68, 35))


# CL-NC: T1 AS/JS s0 13 (s0 draws KS, s1 TS); s0 closes; T2 JD/TD s1 12; T3 s1 marries hearts
# (40) leading KH, QC s1 +7 (59); T4 AC/JC s1 +13 (72); s1 is on lead with 72.
NC_S0 = ["AS", "JD", "QC", "JC", "QD"]
NC_S1 = ["JS", "TD", "KH", "QH", "AC"]
NC_PLAY = ["AS", "JS", "close", "JD", "TD", "marriage KH", "QC", "AC", "JC"]


def test_HU2_CLOSE_4_opponent_may_win_tricks_but_not_declare() -> None:
    m = play(hu(NC_S0, NC_S1, "TH", ["KS", "TS"]), *NC_PLAY)
    assert not m.results  # tricks won by the non-closer do not end the deal
    assert_illegal(m, "declare")  # OPEN-HU2-6 default: no "elég" by the non-closer
    m = play(m, "QH", "QD", "TS", "KS")  # T5 s1 +6 (78), T6 s1 +14 (92): run out
    # closer 13 < 66; s1 had no trick before the close -> 3 (HU2-CLOSE-5).
    assert res(m) == (1, (0, 3), (13, 92))
    assert m.results[0].reason == "closed_failure"


# CF-A: s0 closes at the first lead; T1 AS/JS s0 13, T2 JD/TD s1 12, T3 AD/QD 14, T4 AC/QC 14,
# T5 TC/JC 12 -> s0 13.
CFA_S0 = ["AS", "JD", "QD", "JC", "QC"]
CFA_S1 = ["JS", "TD", "AD", "AC", "TC"]
CFA_PLAY = ["close", "AS", "JS", "JD", "TD", "AD", "QD", "AC", "QC", "TC", "JC"]

# CF-C: T1 QD/KD s1 7 (s1 draws KS, s0 QS), T2 JS/AS s0 13 (s0 JD, s1 TS), s0 closes;
# T3 AC/KC s0 15 (28), T4 AH/KS 15 (43), T5 JC/TC s1 12, T6 TS/QS 13, T7 AD/JD 13 -> s0 43.
CFC_S0 = ["QD", "AS", "AC", "AH", "JC"]
CFC_S1 = ["KD", "JS", "TC", "KC", "AD"]
CFC_TOP = ["KS", "QS", "JD", "TS"]
CFC_T1_T2 = ["QD", "KD", "JS", "AS", "close"]
CFC_REST = ["AC", "KC", "AH", "KS", "JC", "TC", "TS", "QS", "AD", "JD"]


def test_HU2_CLOSE_5_failed_close_three_if_either_had_no_trick() -> None:
    # Neither had a trick (close at the first lead) -> 3, though the closer won trick 1 after it.
    m = play(hu(CFA_S0, CFA_S1, "TH"), *CFA_PLAY)
    assert res(m) == (1, (0, 3), (13, 52))
    assert m.results[0].reason == "closed_failure"
    # Only the closer had a trick: T1 AS/JS s0 13 (s0 draws KS, s1 TS), s0 closes; T2 JD/TD s1 12,
    # T3 AD/QD 14, T4 AC/QC 14, T5 TC/JC 12, T6 TS/KS 14 -> 3.
    m = hu(CFA_S0, CFA_S1, "TH", ["KS", "TS"])
    m = play(m, "AS", "JS", "close", "JD", "TD", "AD", "QD", "AC", "QC", "TC", "JC", "TS", "KS")
    assert res(m) == (1, (0, 3), (13, 66))
    # Both had a trick before the close -> 2.
    m = play(hu(CFC_S0, CFC_S1, "TH", CFC_TOP), *CFC_T1_T2, *CFC_REST)
    assert res(m) == (1, (0, 2), (43, 45))


# --------------------------------------------------------------------------- §6.8 declaring 66


def test_HU2_DECL_1_elég_with_66_including_announcements() -> None:
    m = play(e1(), *E1_T1_T5)  # s0 66 from tricks
    assert "declare" in legal(m)
    m = play(m, "declare")
    assert res(m) == (0, (3, 0), (66, 0))
    assert m.results[0].reason == "declared"
    m = play(hd1(), *HD1_T1_T4, "AH", "QC")  # s1: 33 card points + 40 announced = 73
    assert_illegal(play(m, "QS"), "declare")  # not while following
    m = play(m, "declare")
    assert res(m) == (1, (0, 1), (42, 73))


def test_HU2_DECL_2_false_elég_innocent_side_scores_three() -> None:
    m = play(hd1(), *HD1_T1_T4, "declare")  # s1 59 < 66; s0 has tricks, still 3 (max3)
    assert res(m) == (0, (3, 0), (42, 59))
    assert m.results[0].reason == "false_declaration"
    # Also when said by a closer whose failed close would give only 2 (both had tricks).
    m = play(hu(CFC_S0, CFC_S1, "TH", CFC_TOP), *CFC_T1_T2, "declare")
    assert res(m) == (1, (0, 3), (13, 7))


def test_HU2_DECL_3_marriage_reaching_66_then_elég_without_leading() -> None:
    # T1 AC/JC 13, T2 TC/KC 14 (27); announcing 40 gives 67.
    m = hu(["AC", "TC", "KH", "QH", "AS"], ["JC", "KC", "JS", "QS", "JD"], "TH", ["KS", "QD", "AD", "TD"])
    m = play(m, "AC", "JC", "TC", "KC", "announce H")
    assert legal(m) == {"play KH", "play QH", "declare"}
    m = play(m, "declare")
    assert res(m) == (0, (3, 0), (67, 0))
    assert information_set(m, 1)["deal"]["current_trick"] == []


def test_HU2_DECL_4_other_faults_impossible_only_false_elég_penalized() -> None:
    m = play(e1(), *E1_T1_T5, "AH")
    before = m.fingerprint()
    with pytest.raises(IllegalActionError):
        apply(m, "play KS")  # not following suit: rejected, no renonsz
    with pytest.raises(IllegalActionError):
        apply(m, "draw")  # drawing out of turn does not exist
    assert m.fingerprint() == before and not m.results and m.to_act == 1
    allowed = set(find_variant(V).option_spec("false_declaration_penalty").allowed)
    assert {"max3", "remaining_possible"} <= allowed


# --------------------------------------------------------------------------- §6.9 end of deal


def test_HU2_END_1_last_trick_winner_wins_by_table_no_bonus() -> None:
    m = play(e1(), *E1_T1_T5, *E1_T6_T10)
    # s0 held 66 but never said elég: s1 took the last trick and wins; s0 has 107 >= 33 -> 1.
    assert res(m) == (1, (0, 1), (107, 13))
    assert m.results[0].reason == "last_trick"
    m = play(e2(), *E2_T1_T5, *E2_T6_T10)
    # s1 wins the last trick; s0 won a trick worth 13 < 33 -> 2 (by the table).
    assert res(m) == (1, (0, 2), (13, 107))


def test_HU2_END_2_closed_deal_run_out_closer_threshold() -> None:
    m = hu(["AH", "TH", "KH", "AC", "JD"], ["QD", "TD", "QC", "TS", "AS"], "JH")
    m = play(m, "close", "JD", "QD", "QC", "AC", "AH", "TD", "TH", "AS", "KH", "TS")
    assert res(m) == (0, (2, 0), (70, 5)) and m.results[0].reason == "closed_success"
    m = play(hu(CFA_S0, CFA_S1, "TH"), *CFA_PLAY)
    assert res(m) == (1, (0, 3), (13, 52)) and m.results[0].reason == "closed_failure"


# --------------------------------------------------------------------------- §6.10 score, match

# OM4: T1 AS/TS s0 21, T2 s0 marries clubs (20) leading QC, AC s1 14, T3 s1 marries hearts (40)
# leading KH, JD s1 6 (60), T4 AH/JS s1 13 (73): s1 says elég; s0 has 21 trick points + 20.
OM4_S0 = ["AS", "KC", "QC", "JD", "JS"]
OM4_S1 = ["TS", "AC", "KH", "QH", "AH"]
OM4_TALON = ["TC", "JC", "KS", "QS", "AD", "TD", "KD", "QD", "JH"]
OM4_PLAY = ["AS", "TS", "marriage QC", "AC", "marriage KH", "JD", "AH", "JS", "declare"]


def test_HU2_SCORE_1_one_two_three_from_trick_points() -> None:
    m = play(e1(), *E1_T1_T5, "declare")  # s1 no trick -> 3
    assert res(m) == (0, (3, 0), (66, 0)) and m.results[0].schwarz
    m = play(e2(), *E2_T1_T5, "AH", "JH", "TH", "QH", "declare")  # s1 78; s0 13 < 33 -> 2
    assert res(m) == (1, (0, 2), (13, 78)) and m.results[0].deal_schneider
    m = play(hd1(), *HD1_T1_T4, "AH", "QC", "declare")  # s0 42 >= 33 -> 1
    assert res(m) == (1, (0, 1), (42, 73))
    # Announcements do not count toward the 33: s0 21 trick points + 20 -> still 2.
    m = play(make_match(V, 1, (OM4_S0, OM4_S1), "TH", OM4_TALON), *OM4_PLAY)
    assert res(m) == (1, (0, 2), (41, 73))


def test_HU2_MATCH_1_two_won_sevens() -> None:
    # 3:0, 6:0, 6:3, 9:3 -> seat 0 wins set 1 (the 2 points over 7 are not carried), then
    # 3:0, 6:0, 9:0 -> set 2 and the match. The deal keeps alternating across sets.
    m = quick_match(1, [0, 0, 1, 0])
    assert m.sets_won == [1, 0] and m.game_points == [0, 0] and not m.over
    assert m.deal.dealer == 1
    m = quick_match(1, [0, 0, 1, 0, 0, 0])
    assert m.sets_won == [1, 0] and m.game_points == [6, 0] and not m.over
    m = quick_match(1, [0, 0, 1, 0, 0, 0, 0])
    assert m.sets_won == [2, 0] and m.over and m.winner == 0
    with pytest.raises(MatchOverError):
        apply(m, "declare")
    info = information_set(m, 0)["match"]
    assert info["set_target"] == 7 and info["sets_to_win"] == 2


# --------------------------------------------------------------------------- OPEN-HU2 options


def test_OPEN_HU2_1_match_format_default_sets_of_seven() -> None:
    opts = find_variant(V).configure().options
    assert (opts["match_format"], opts["set_target"], opts["sets_to_win"]) == ("sets", 7, 2)
    m = quick_match(0, [1, 1, 1])  # 9 > 7: set to seat 1, score reset
    assert m.sets_won == [0, 1] and m.game_points == [0, 0] and not m.over


def test_OPEN_HU2_1_match_format_alternative_points_to_33() -> None:
    opts = {"match_format": "points", "match_target": 33}
    m = quick_match(1, [0, 0, 0], opts)
    assert m.game_points == [9, 0] and m.sets_won == [0, 0] and not m.over  # no set at 7
    m = quick_match(1, [0] * 10, opts)
    assert m.game_points == [30, 0] and not m.over
    m = quick_match(1, [0] * 11, opts)
    assert m.game_points == [33, 0] and m.over and m.winner == 0


def test_OPEN_HU2_2_undeclared_66_default_last_trick_wins_by_table() -> None:
    m = play(e1(), *E1_T1_T5, *E1_T6_T10)
    assert res(m) == (1, (0, 1), (107, 13))
    m = play(e2(), *E2_T1_T5, *E2_T6_T10)
    assert res(m) == (1, (0, 2), (13, 107))


def test_OPEN_HU2_2_undeclared_66_alternative_holder_wins() -> None:
    m = play(e1({"undeclared_66_at_end": "holder_wins"}), *E1_T1_T5, *E1_T6_T10)
    # s0 held 66: he wins, scored on s1 (a trick, 13 < 33) -> 2.
    assert res(m) == (0, (2, 0), (107, 13))


def test_OPEN_HU2_2_last_trick_win_points_alternative_fixed1() -> None:
    m = play(e2({"last_trick_win_points": "fixed1"}), *E2_T1_T5, *E2_T6_T10)
    assert res(m) == (1, (0, 1), (13, 107))


def test_OPEN_HU2_3_marriage_counts_after_first_trick_default_true() -> None:
    m = play(hu(HM3_S0, HM3_S1, "AH"), "marriage QC", "AC", "declare")
    assert res(m)[2] == (0, 14)


def test_OPEN_HU2_3_marriage_counts_after_first_trick_alternative_false() -> None:
    opts = {"marriage_counts_after_first_trick": False}
    m = play(hu(HM3_S0, HM3_S1, "AH", options=opts), "marriage QC", "AC", "declare")
    assert res(m) == (0, (3, 0), (20, 14))


def test_OPEN_HU2_4_schneider_threshold_includes_marriages_default_false() -> None:
    m = play(make_match(V, 1, (OM4_S0, OM4_S1), "TH", OM4_TALON), *OM4_PLAY)
    assert res(m) == (1, (0, 2), (41, 73))


def test_OPEN_HU2_4_schneider_threshold_includes_marriages_alternative_true() -> None:
    opts = {"schneider_threshold_includes_marriages": True}
    m = play(make_match(V, 1, (OM4_S0, OM4_S1), "TH", OM4_TALON, opts), *OM4_PLAY)
    assert res(m) == (1, (0, 1), (41, 73))


def test_OPEN_HU2_5_close_before_first_trick_default_true() -> None:
    assert "close" in legal(hx())


def test_OPEN_HU2_5_close_before_first_trick_alternative_false() -> None:
    m = hx({"close_before_first_trick": False})
    assert_illegal(m, "close")
    m = play(m, "AC", "JC")
    assert "close" in legal(m)


def test_OPEN_HU2_6_non_closer_may_declare_default_false() -> None:
    m = play(hu(NC_S0, NC_S1, "TH", ["KS", "TS"]), *NC_PLAY)
    assert_illegal(m, "declare")


def test_OPEN_HU2_6_non_closer_may_declare_alternative_true() -> None:
    opts = {"non_closer_may_declare": True}
    m = play(hu(NC_S0, NC_S1, "TH", ["KS", "TS"], options=opts), *NC_PLAY)
    assert "declare" in legal(m)
    m = play(m, "declare")  # correct (72): a failed close; s1 had no trick at closing -> 3
    assert res(m) == (1, (0, 3), (13, 72))
    assert m.results[0].reason == "closed_failure"


def test_OPEN_HU2_7_false_declaration_penalty_default_max3() -> None:
    m = play(e1(), *E1_T1_T5[:2], "declare")  # s0 13
    assert res(m) == (1, (0, 3), (13, 0))
    m = play(e1(), *E1_T1_T5[:6], "declare")  # s0 40
    assert res(m) == (1, (0, 3), (40, 0))


def test_OPEN_HU2_7_false_declaration_penalty_alternative_remaining_possible() -> None:
    opts = {"false_declaration_penalty": "remaining_possible"}
    m = play(e1(opts), *E1_T1_T5[:2], "declare")  # offender has a trick, 13 < 33 -> 2
    assert res(m) == (1, (0, 2), (13, 0))
    m = play(e1(opts), *E1_T1_T5[:6], "declare")  # offender has 40 >= 33 -> 1
    assert res(m) == (1, (0, 1), (40, 0))
    m = play(hd1(opts), *HD1_T1_T4, "declare")  # s1 19 trick points (+40 announced) < 33 -> 2
    assert res(m) == (0, (2, 0), (42, 59))


def test_OPEN_HU2_8_may_view_own_tricks_default_false() -> None:
    m = play(e1(), "AC", "JC")
    assert not {k for k in keys(information_set(m, 0)) if k.startswith("own_")}


def test_OPEN_HU2_8_may_view_own_tricks_alternative_true() -> None:
    m = play(e1({"may_view_own_tricks": True}), "AC", "JC", "TC", "KC")
    d0 = information_set(m, 0)["deal"]
    assert set(d0["own_tricks"]["won_cards"]) == {"AC", "JC", "TC", "KC"}
    assert d0["own_tricks"]["trick_points"] == 27
    d1 = information_set(m, 1)["deal"]
    assert d1["own_tricks"]["won_cards"] == [] and d1["own_tricks"]["trick_points"] == 0
    assert not {k for k in keys(d1) if "opponent" in k or k == "points"}


def test_OPEN_HU2_9_the_trick_winner_draws_first() -> None:
    # The leader of the finished trick loses it: the winner (the new hívó) takes the top card.
    m = hu(["JC", "KS", "QD", "JS", "JD"], ["AC", "TS", "TC", "KD", "QS"], "TH", ["AH", "KH", "TD", "AD"])
    m = play(m, "JC", "AC")
    assert "AH" in hand(m, 1) and "KH" in hand(m, 0)
    m = play(m, "TS", "KS")  # s1 leads and wins again
    assert "TD" in hand(m, 1) and "AD" in hand(m, 0)

"""``snaps-original66`` (docs/RULES.md §3): one or more tests per rule ID O66-* and per OPEN-O66-* option.

Every scenario is an explicit deal (hands by seat, face-up trump card, talon top first) and every
expected value is derived by hand from docs/RULES.md (the arithmetic is in the comments), never copied
from the engine. Seat 0 is the non-dealer (dealer = 1) unless a test says otherwise.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from bummerl.rules import (
    IllegalActionError,
    MatchState,
    apply,
    find_variant,
    information_set,
    public_known_cards,
)
from bummerl.rules.base.cards import parse_card

from .helpers import assert_illegal, deck_for, events_of, hand, ids, legal, make_match, play, rest, rules_for

O66 = "snaps-original66"


# --------------------------------------------------------------------------- small helpers


def o66(
    dealer: int,
    h0: list[str],
    h1: list[str],
    trump: str,
    talon: list[str] | None = None,
    options: dict[str, Any] | None = None,
    **kw: Any,
) -> MatchState:
    """A match whose first deal is exactly this one (talon defaults to the remaining cards in id order)."""
    if talon is None:
        talon = rest(O66, h0, h1, [trump])
    return make_match(O66, dealer, (h0, h1), trump, talon, options, **kw)


def o66_deck(
    dealer: int, h0: list[str], h1: list[str], trump: str, talon: list[str] | None = None
) -> list[int]:
    if talon is None:
        talon = rest(O66, h0, h1, [trump])
    return deck_for(O66, dealer, (h0, h1), trump, talon)


def last_trick_winner(m: MatchState) -> int:
    for ev in reversed(m.deal.history):
        if ev[0] == "trick":
            return int(ev[1])
    raise AssertionError("no trick played in the current deal")


def plays(m: MatchState) -> set[str]:
    """The legal card plays only."""
    return {t for t in legal(m) if t.startswith("play ")}


def P(*cards: str) -> set[str]:
    return {f"play {c}" for c in cards}


def infoset_keys(obj: Any) -> set[str]:
    """All dict keys anywhere in a JSON-like structure."""
    out: set[str] = set()
    if isinstance(obj, dict):
        for k, v in obj.items():
            out.add(k)
            out |= infoset_keys(v)
    elif isinstance(obj, list):
        for v in obj:
            out |= infoset_keys(v)
    return out


# --------------------------------------------------------------------------- deal P (played out)
# Trump D, face-up trump card 9D (nobody can exchange). Dealer 1, seat 0 leads.
# Phase 1 (talon open): seat 1 wins tricks 1-5, seat 0 wins trick 6 and so leads trick 7.
# Draws (winner first): seat 1 draws T0,T2,T4,T6,T8 and the trump card 9D; seat 0 draws
# T1,T3,T5,T7,T9,T10 = AD AS TS KS QS JS. Phase 2 (strict): seat 0 leads AD (seat 1 must answer
# 9D), then five spades to which seat 1 (void, no trump) discards: seat 0 wins tricks 7-12.
P_H0 = ["KD", "TC", "TH", "KH", "QH", "9S"]
P_H1 = ["TD", "QD", "JD", "KC", "AC", "AH"]
P_TALON = ["9C", "AD", "9H", "AS", "JC", "TS", "JH", "KS", "QC", "QS", "JS"]
P_TRUMP = "9D"
# T1 TC/AC 21 (s1), T2 AH/TH 21 (s1), T3 TD/KH 14 (s1), T4 QD/QH 6 (s1), T5 JD/9S 2 (s1) -> s1 64
P_T1_T5 = ("TC", "AC", "draw", "AH", "TH", "draw", "TD", "KH", "draw", "QD", "QH", "draw", "JD", "9S", "draw")
# T6 KC/KD 8 (s0)
P_T6 = ("KC", "KD")
# T7 AD/9D 11, T8 AS/QC 14, T9 TS/JC 12, T10 KS/JH 6, T11 QS/9C 3, T12 JS/9H 2 -> 48 (+10 last trick)
P_PHASE2 = ("AD", "9D", "AS", "QC", "TS", "JC", "KS", "JH", "QS", "9C", "JS", "9H")
P_WIN = P_T1_T5 + P_T6 + P_PHASE2  # s0 = 8 + 48 + 10 = 66, s1 = 64
P_BOTH = P_T1_T5 + ("marriage KC", "KD") + P_PHASE2  # s1 announces 20 clubs at trick 6: s0 66, s1 84

# Deal P_6565: like P, but seat 1 holds QH instead of KC (seat 0 holds KC instead of QH).
P65_H0 = ["KD", "TC", "TH", "KH", "KC", "9S"]
P65_H1 = ["TD", "QD", "JD", "QH", "AC", "AH"]
# T1 21, T2 21, T3 14, T4 QD/KC 7, T5 2 -> s1 65; T6 QH/KD 7 (s0); phase 2 48 + 10 -> s0 65
P65 = ("TC", "AC", "draw", "AH", "TH", "draw", "TD", "KH", "draw", "QD", "KC", "draw", "JD", "9S", "draw",
       "QH", "KD") + P_PHASE2


def deal_p(**kw: Any) -> MatchState:
    return o66(1, P_H0, P_H1, P_TRUMP, P_TALON, **kw)


def deal_p65(**kw: Any) -> MatchState:
    return o66(1, P65_H0, P65_H1, P_TRUMP, P_TALON, **kw)


# --------------------------------------------------------------------------- deal Q (quick false "Dosta")
# The non-dealer leads AC, the dealer discards 9S, the non-dealer draws and declares with 11 points:
# false "Dosta" -> the dealer scores 2 (O66-DECL-4). Holds for either dealer (same deck order).
Q_H0 = ["AC", "TC", "KC", "AH", "TH", "KH"]
Q_H1 = ["9S", "JS", "QS", "9H", "JH", "QH"]
Q_TRUMP = "AD"
Q = ("AC", "9S", "draw", "declare")


def q_deck() -> list[int]:
    return o66_deck(1, Q_H0, Q_H1, Q_TRUMP)


# --------------------------------------------------------------------------- deal C (closing)
# Trump D (trump card JD). Seat 0 holds the trump marriage KD/QD.
C_H0 = ["KD", "QD", "AH", "AC", "TC", "9S"]
C_H1 = ["AD", "JH", "KC", "9H", "JS", "9C"]
C_TRUMP = "JD"
# Successful close: close, marriage KD (40 pending) / AD -> s1 15; JH / AH -> s0 13 (+40 counted = 53);
# AC / KC -> s0 15 -> trick points 28, deal points 68.
C_SUCCESS = ("close", "marriage KD", "AD", "JH", "AH", "AC", "KC")


def deal_c(**kw: Any) -> MatchState:
    return o66(1, C_H0, C_H1, C_TRUMP, **kw)


# --------------------------------------------------------------------------- deal D (declaring)
# Trump H (trump card AH); seat 0 holds the trump marriage KH/QH; seat 1 only discards.
D_H0 = ["KH", "QH", "AC", "AS", "TS", "JC"]
D_H1 = ["9S", "9C", "9D", "JD", "QD", "KS"]
D_TRUMP = "AH"


def deal_d(**kw: Any) -> MatchState:
    return o66(1, D_H0, D_H1, D_TRUMP, **kw)


# --------------------------------------------------------------------------- deal M (first-lead marriage)
# Trump D (trump card 9D). Seat 0 (non-dealer) holds KC/QC and low cards; seat 1 holds aces and tens.
M_H0 = ["KC", "QC", "9S", "JS", "9H", "JH"]
M_H1 = ["AC", "AD", "TD", "AS", "TS", "AH"]
M_TRUMP = "9D"

# --------------------------------------------------------------------------- deal MA (marriages)
MA_H0 = ["KD", "QD", "KC", "QC", "KH", "QS"]
MA_H1 = ["9C", "9S", "9H", "JC", "JS", "JH"]
MA_TRUMP = "AD"

# --------------------------------------------------------------------------- deals X / X2 (exchange)
# Trump D, face-up trump card AD; the trump 9 is 9D.
X_H0 = ["9D", "AC", "AS", "AH", "TC", "TS"]  # seat 0 (non-dealer) holds the 9
X_H1 = ["9C", "9S", "9H", "JC", "JS", "JH"]
X_TO_T5 = ("AC", "9C", "draw", "AS", "9S", "draw", "AH", "9H", "draw", "TC", "JC", "draw")  # talon 12 -> 4
X2_H0 = ["9C", "AS", "AH", "TC", "TS", "AC"]
X2_H1 = ["9D", "JC", "9S", "9H", "JS", "JH"]  # seat 1 (dealer) holds the 9


# =========================================================================== §3.1 deck and points


def test_O66_DECK_1_deck_ranks_and_card_points() -> None:
    r = rules_for(O66)
    codes = {r_ + s for r_ in "ATKQJ9" for s in "CSHD"}
    assert len(r.deck) == 24
    assert set(r.deck) == set(ids(sorted(codes)))
    expected = {"A": 11, "T": 10, "K": 4, "Q": 3, "J": 2, "9": 0}
    for code in codes:
        assert r.points[parse_card(code)] == expected[code[0]], code
    assert sum(r.points[c] for c in r.deck) == 120


@pytest.mark.parametrize(
    "low, high",
    [("TC", "AC"), ("KC", "TC"), ("QC", "KC"), ("JC", "QC"), ("9C", "JC")],
)
def test_O66_DECK_1_rank_order_A_T_K_Q_J_9(low: str, high: str) -> None:
    # Seat 0 leads the lower club, seat 1 follows with the next higher club: the higher card wins
    # (NORMAL order A > T > K > Q > J > 9) and the trick is worth the two cards' points.
    pts = {"A": 11, "T": 10, "K": 4, "Q": 3, "J": 2, "9": 0}
    filler = rest(O66, [low, high, "AD"])
    h0 = [low, *filler[:5]]
    h1 = [high, *filler[5:10]]
    m = o66(1, h0, h1, "AD", filler[10:])
    m = play(m, low, high)
    assert last_trick_winner(m) == 1
    assert m.deal.trick_points == [0, pts[low[0]] + pts[high[0]]]


def test_O66_DECK_2_played_out_deal_totals_130_and_66_wins() -> None:
    # Deal P played out, no marriage: 120 card points + 10 for the last trick = 130.
    m = play(deal_p(), *P_WIN)
    res = m.results[0]
    assert sum(res.deal_points) == 130
    assert res.deal_points == (66, 64)
    assert res.winner == 0  # 66 = one more than half of 130 wins; 64 does not


# =========================================================================== §3.2 players, dealer, deal


def test_O66_SEAT_1_two_players() -> None:
    assert find_variant(O66).num_players == 2
    m = deal_p()
    info = information_set(m, 0)
    assert info["num_seats"] == 2
    assert len(info["deal"]["hand_sizes"]) == 2
    with pytest.raises(ValueError):
        information_set(m, 2)


@pytest.mark.parametrize("dealer", [0, 1])
def test_O66_DEAL_1_six_cards_in_pairs_non_dealer_first_13th_card_trump(dealer: int) -> None:
    order = ["AC", "TC", "KC", "QC", "JC", "9C", "AS", "TS", "KS", "QS", "JS", "9S",
             "AH", "TH", "KH", "QH", "JH", "9H", "AD", "TD", "KD", "QD", "JD", "9D"]
    deck = ids(order)
    m = MatchState(rules_for(O66), 0, [deck], dealer)
    nd = 1 - dealer
    # batches of two: d0 d1 -> non-dealer, d2 d3 -> dealer, d4 d5 -> non-dealer,
    # d6 d7 -> dealer, d8 d9 -> non-dealer, d10 d11 -> dealer
    assert hand(m, nd) == {"AC", "TC", "JC", "9C", "KS", "QS"}
    assert hand(m, dealer) == {"KC", "QC", "AS", "TS", "JS", "9S"}
    info = information_set(m, nd)
    assert info["deal"]["trump_card"] == "AH"  # the 13th card, face up
    assert info["deal"]["trump_suit"] == "H"
    assert info["deal"]["talon_size"] == 12  # 11 face-down cards + the trump card
    # The 14th card is the top of the talon: the first trick's winner draws it.
    assert m.to_act == nd
    m = play(m, "AC", "9S", "draw")
    assert "TH" in hand(m, nd)  # nd won (9S is neither a club nor a trump) and drew first
    assert "KH" in hand(m, dealer)


def test_O66_DEAL_2_winner_deals_next() -> None:
    # Non-dealer (seat 0) wins deal 0 -> seat 0 deals deal 1, so seat 1 leads.
    m = play(deal_d(), "AC", "9C", "draw", "AS", "9D", "draw", "TS", "9S", "draw", "announce H", "declare")
    assert m.results[0].winner == 0
    assert m.deal.dealer == 0
    assert m.to_act == 1
    # Dealer (seat 1) wins deal 0 -> seat 1 deals again.
    m = play(o66(1, Q_H0, Q_H1, Q_TRUMP), *Q)
    assert m.results[0].winner == 1
    assert m.deal.dealer == 1
    assert m.to_act == 0


def test_O66_DEAL_2_same_dealer_after_drawn_deal() -> None:
    m = play(deal_p65(), *P65)
    assert m.results[0].winner == -1
    assert m.deal.dealer == 1
    assert m.to_act == 0


# =========================================================================== §3.3 lead, play, draw


def test_O66_LEAD_1_non_dealer_leads_then_trick_winner() -> None:
    assert deal_p().to_act == 0
    m0 = make_match(O66, 0, (P_H0, P_H1), P_TRUMP, P_TALON)  # seat 0 deals: seat 1 leads
    assert m0.to_act == 1
    m = play(deal_p(), "TC", "AC")  # seat 1 wins trick 1 ...
    assert m.to_act == 1
    m = play(m, "draw")
    assert m.to_act == 1  # ... and leads trick 2
    assert m.deal.leader == 1
    m = play(m, "AH", "9S")  # seat 0 discards: seat 1 wins again and keeps the lead
    m = play(m, "draw", "KC", "KD")  # seat 0 trumps trick 3 and leads trick 4
    assert m.to_act == 0


def test_O66_PLAY_1_free_play_while_talon_open() -> None:
    m = play(deal_p(), "TC")
    # Seat 1 may play anything: a higher club, a trump or a card of another suit.
    assert plays(m) == P(*P_H1)
    m = play(m, "AH")  # not following suit is allowed; seat 0 wins (AH is neither club nor trump)
    assert last_trick_winner(m) == 0
    m = play(m, "draw", "KH")
    assert plays(m) == P(*hand(m, 1))


def test_O66_PLAY_2_trick_resolution() -> None:
    m = deal_p()  # trump D
    m = play(m, "9S", "AC")  # third suit (ace!) loses to the card led
    assert last_trick_winner(m) == 0
    m = play(m, "draw", "KD", "TD")  # two trumps: the higher wins
    assert last_trick_winner(m) == 1
    m = play(m, "draw", "KC", "TC")  # same suit: the higher wins (T > K)
    assert last_trick_winner(m) == 0
    m = play(m, "draw", "TH", "JD")  # a (low) trump beats any card of another suit
    assert last_trick_winner(m) == 1


_FORBIDDEN_KEYS = {
    "own_tricks", "own_trick_points", "own_won_cards", "own_deal_points", "trick_points", "deal_points",
    "my_points", "my_tricks_cards", "team_points", "won_cards",
}


def test_O66_PLAY_3_no_own_won_cards_or_points_in_information_set() -> None:
    m = play(deal_p(), "TC", "AC", "draw", "AH", "TH", "draw")  # seat 1 has won 2 tricks (42 points)
    for seat in (0, 1):
        info = information_set(m, seat)
        assert not (infoset_keys(info) & _FORBIDDEN_KEYS), seat
        assert info["deal"]["tricks_won"] == [0, 2]  # the number of tricks is public (§14.2)


def test_O66_PLAY_3_history_is_public_record_without_aggregates() -> None:
    # §14.2 says the server does not resend a completed trick. Issue #2 makes one deliberate
    # exception for every variant: the information set carries the deal's full public history
    # (perfect recall, as the cards were seen by both players when played). What O66-PLAY-3
    # forbids stays forbidden: no list of won cards and no running point totals, not even the
    # winner's own. Trick 1 (TC/AC, won by seat 1) is in both histories only as the public event.
    m = play(deal_p(), "TC", "AC", "draw", "AH", "TH", "draw")
    for seat in (0, 1):
        info = information_set(m, seat)
        tricks = [e for e in info["deal"]["history"] if "trick_completed" in e]
        assert tricks[0] == {"version": 0, "deal_number": 0, "trick_completed": {
            "winner": 1, "cards": [{"seat": 0, "card": "TC"}, {"seat": 1, "card": "AC"}]}}
        assert "own_tricks" not in info["deal"]
        assert "points" not in json.dumps(tricks)


def test_O66_DRAW_1_winner_draws_first_trump_card_last() -> None:
    m = play(deal_p(), "TC", "AC", "draw")  # seat 1 won trick 1
    assert "9C" in hand(m, 1)  # top card (T0) to the winner
    assert "AD" in hand(m, 0)  # next card (T1) to the loser
    assert len(hand(m, 0)) == len(hand(m, 1)) == 6
    m = play(m, *P_T1_T5[3:], *P_T6)  # seat 0 wins trick 6 with the talon at 2
    assert "JS" in hand(m, 0)  # last face-down card to the winner
    assert "9D" in hand(m, 1)  # the face-up trump card is drawn last, by the loser
    info = information_set(m, 0)
    assert info["deal"]["talon_size"] == 0
    assert info["deal"]["talon_state"] == "TALON_STATE_EXHAUSTED"


# =========================================================================== §3.4 strict play

# Deal S: deal P's first six tricks with another talon; after trick 6 seat 0 holds
# AD AS TS KS JC JH and seat 1 holds 9D QC 9C 9H JS QS.
S_TALON = ["QC", "AD", "9C", "AS", "9H", "TS", "JS", "KS", "QS", "JC", "JH"]


def test_O66_STRICT_1_follow_head_trump_after_exhaustion() -> None:
    m = play(o66(1, P_H0, P_H1, P_TRUMP, S_TALON), *P_T1_T5, *P_T6)
    assert information_set(m, 0)["deal"]["talon_state"] == "TALON_STATE_EXHAUSTED"
    assert hand(m, 0) == {"AD", "AS", "TS", "KS", "JC", "JH"}
    assert hand(m, 1) == {"9D", "QC", "9C", "9H", "JS", "QS"}
    m = play(m, "JH")
    assert plays(m) == P("9H")  # must follow suit; may not trump while holding the led suit
    m = play(m, "9H", "AS")
    assert plays(m) == P("JS", "QS")  # cannot beat AS: any spade, no trump
    m = play(m, "JS", "JC")
    assert plays(m) == P("QC")  # must beat the led card if he can (9C excluded)
    m = play(m, "QC")
    assert last_trick_winner(m) == 1
    m = play(m, "9C")
    assert plays(m) == P("AD")  # void in clubs: must trump
    m = play(m, "AD", "TS")
    assert plays(m) == P("QS")
    m = play(m, "QS", "KS")
    assert plays(m) == P("9D")  # void in spades: must trump
    m = play(m, "9D")
    assert m.results[0].tricks_won[1] == 7  # 9D took the last trick


def test_O66_STRICT_1_any_card_when_void_without_trumps() -> None:
    m = play(deal_p(), *P_T1_T5, *P_T6, "AD", "9D", "AS")
    # Seat 1 holds 9C 9H JC JH QC: no spade, no trump -> anything.
    assert plays(m) == P("9C", "9H", "JC", "JH", "QC")


def test_O66_STRICT_2_strict_play_after_closing() -> None:
    m = play(deal_c(), "close", "AC")
    assert plays(m) == P("KC", "9C")  # follow suit, cannot beat AC, no trump (AD) allowed
    m = play(m, "9C", "TC")
    assert plays(m) == P("KC")
    m = play(m, "KC", "AH")
    assert plays(m) == P("JH", "9H")
    m = play(m, "9H", "9S")
    assert plays(m) == P("JS")  # JS beats 9S: must head
    m = play(m, "JS", "JH")
    assert plays(m) == P("KD", "QD")  # void in hearts: must trump


# =========================================================================== §3.5 trump exchange


def test_O66_EXCH_1_exchange_at_first_lead_without_won_trick() -> None:
    m = o66(1, X_H0, X_H1, "AD")
    assert "exchange" in legal(m)
    m = play(m, "exchange")
    assert "AD" in hand(m, 0) and "9D" not in hand(m, 0)
    assert information_set(m, 1)["deal"]["trump_card"] == "9D"
    assert m.to_act == 0  # exchanging is not a lead: seat 0 still leads
    assert "exchange" not in legal(m)


def test_O66_EXCH_1_exchange_before_later_trick_not_as_follower() -> None:
    m = o66(1, X2_H0, X2_H1, "AD")
    m = play(m, "9C")
    assert_illegal(m, "exchange")  # the follower may not exchange
    m = play(m, "JC")  # seat 1 wins trick 1
    assert "exchange" not in legal(m)  # decision after the trick: close or draw only
    m = play(m, "draw")
    assert "exchange" in legal(m)  # at his lead turn, before leading
    m = play(m, "exchange")
    assert "AD" in hand(m, 1) and "9D" not in hand(m, 1)
    assert information_set(m, 0)["deal"]["trump_card"] == "9D"


def test_O66_EXCH_1_exchanged_nine_is_drawn_last() -> None:
    m = play(o66(1, X_H0, X_H1, "AD"), "exchange", *X_TO_T5, "TS", "JS", "draw")
    # seat 0 won tricks 1-5; trick 6: seat 0 leads KC, seat 1 plays QC, seat 0 wins
    m = play(m, "KC", "QC")
    assert "9D" in hand(m, 1)  # the exchanged 9 lay face up at the bottom: the loser drew it last
    assert information_set(m, 0)["deal"]["talon_size"] == 0


def test_O66_EXCH_2_no_exchange_at_talon_size_2() -> None:
    m = play(o66(1, X_H0, X_H1, "AD"), *X_TO_T5)
    assert information_set(m, 0)["deal"]["talon_size"] == 4
    assert "exchange" in legal(m)
    m = play(m, "TS", "JS", "draw")
    assert information_set(m, 0)["deal"]["talon_size"] == 2
    assert "9D" in hand(m, 0)
    assert_illegal(m, "exchange")


def test_O66_EXCH_3_no_exchange_after_closing_or_exhaustion() -> None:
    # The holder closes: no exchange any more.
    m = play(o66(1, X_H0, X_H1, "AD"), "close")
    assert_illegal(m, "exchange")
    # The non-closer holding the 9 gets no exchange at the moment of closing nor later.
    m = play(o66(1, X2_H0, X2_H1, "AD"), "close")
    assert m.to_act == 0
    assert "pass" not in legal(m) and "exchange" not in legal(m)
    m = play(m, "9C")
    assert plays(m) == P("JC")  # strict: must head
    m = play(m, "JC")  # seat 1 wins and leads
    assert "9D" in hand(m, 1)
    assert_illegal(m, "exchange")
    # Exhausted talon: seat 0 still holds 9D at trick 7's lead, no exchange.
    m = play(o66(1, X_H0, X_H1, "AD"), *X_TO_T5, "TS", "JS", "draw", "KC", "QC")
    assert "9D" in hand(m, 0) and information_set(m, 0)["deal"]["talon_size"] == 0
    assert_illegal(m, "exchange")


# =========================================================================== §3.6 marriages


def test_O66_MAR_1_marriage_values_40_trump_20_plain() -> None:
    m = o66(1, MA_H0, MA_H1, MA_TRUMP)  # trump D; seat 0 holds KD QD KC QC and KH, QS (no pair)
    marriages = {t for t in legal(m) if t.startswith("marriage ")}
    assert marriages == {"marriage KD", "marriage QD", "marriage KC", "marriage QC"}
    m40 = play(m, "marriage KD")
    assert [e for e in m40.deal.history if e[0] == "marriage"] == [("marriage", 0, 3, 40)]
    m40 = play(m40, "9C")  # KD (trump) wins: 4 + 40
    assert m40.deal.deal_points(0) == 44
    m20 = play(m, "marriage QC")
    assert [e for e in m20.deal.history if e[0] == "marriage"] == [("marriage", 0, 0, 20)]
    m20 = play(m20, "9S")  # QC wins (9S is neither club nor trump): 3 + 20
    assert m20.deal.deal_points(0) == 23


def test_O66_MAR_2_marriage_shown_and_card_led() -> None:
    m = play(o66(1, MA_H0, MA_H1, MA_TRUMP), "marriage QC")
    info = information_set(m, 1)
    assert info["deal"]["current_trick"] == [{"seat": 0, "card": "QC"}]  # one card led immediately
    ev = events_of(info["deal"]["history"], "marriage_announced")
    assert ev and ev[0]["seat"] == 0 and ev[0]["suit"] == "C" and ev[0]["points"] == 20
    assert sorted(ev[0]["shown_cards"]) == ["KC", "QC"]  # both cards public
    assert public_known_cards(m.deal, 0) == 1 << parse_card("KC")
    # "announce" first: then only the K or the Q of that suit may be led
    m = play(o66(1, MA_H0, MA_H1, MA_TRUMP), "KH", "9S", "draw", "announce C")
    assert plays(m) == P("KC", "QC")


def test_O66_MAR_3_first_lead_marriage_counts_after_first_won_trick() -> None:
    talon = ["TC", "KD", "JC", "9C", "KS", "QS", "TH", "KH", "QH", "QD", "JD"]
    m = o66(1, M_H0, M_H1, M_TRUMP, talon)
    assert "marriage QC" in legal(m)  # the non-dealer may announce a dealt marriage at the first lead
    m = play(m, "marriage QC", "AC", "draw")  # seat 1 wins trick 1; seat 0 draws KD
    assert m.deal.deal_points(0) == 0  # pending: no trick yet
    m = play(m, "AS", "KD")  # seat 0 trumps: AS 11 + KD 4 = 15
    assert m.deal.deal_points(0) == 15 + 20


def test_O66_MAR_3_first_lead_marriage_never_counts_without_trick() -> None:
    m = o66(1, M_H0, M_H1, M_TRUMP)
    # QC/AC 14, AD/9S 11, TD/JS 12, AS/9H 11, TS/JH 12, AH/KC 15 -> seat 1: 75, seat 0: no trick
    m = play(m, "marriage QC", "AC", "draw", "AD", "9S", "draw", "TD", "JS", "draw", "AS", "9H", "draw",
             "TS", "JH", "draw", "AH", "KC", "declare")
    res = m.results[0]
    assert res.winner == 1
    assert res.deal_points == (0, 75)  # the 20 never counts
    assert res.game_points == (0, 3)
    assert res.schwarz is True


E33_H0 = ["KH", "QH", "AC", "AS", "9C", "9S"]
E33_H1 = ["TC", "JC", "QD", "KD", "JD", "9D"]
E32_H0 = ["KH", "QH", "AC", "AS", "QC", "JS"]
E32_H1 = ["KC", "JC", "QD", "KD", "JD", "9D"]
E_TRUMP = "AH"
# marriage KH/JC 6 (s0), 9C/TC 10 (s1), marriage QD/9S 3 (s1), 9D/QH 3 (s0), AC/JD 13 (s0),
# AS/KD 15 (s0): seat 0 37 + 40 = 77; seat 1 13 + 20 = 33
E33 = ("marriage KH", "JC", "draw", "9C", "TC", "draw", "marriage QD", "9S", "draw", "9D", "QH", "draw",
       "AC", "JD", "draw", "AS", "KD", "declare")
# marriage KH/JC 6, QC/KC 7 (s1), marriage QD/JS 5 (s1), 9D/QH 3, AC/JD 13, AS/KD 15:
# seat 0 77; seat 1 12 + 20 = 32
E32 = ("marriage KH", "JC", "draw", "QC", "KC", "draw", "marriage QD", "JS", "draw", "9D", "QH", "draw",
       "AC", "JD", "draw", "AS", "KD", "declare")


def test_O66_MAR_3_dealer_announces_only_after_own_won_trick() -> None:
    m = play(o66(1, E33_H0, E33_H1, E_TRUMP), "marriage KH")
    # The dealer (seat 1) holds KD/QD but is following: only card plays.
    assert legal(m) == P(*E33_H1)
    m = play(m, "JC", "draw", "9C", "TC", "draw")  # seat 1 wins trick 2 and is to lead
    assert {"marriage KD", "marriage QD"} <= legal(m)


def test_O66_MAR_4_marriage_after_exhaustion_and_after_closing() -> None:
    m = play(deal_p(), *P_T1_T5, *P_T6)  # talon exhausted; seat 0 holds KS and QS
    assert {"marriage KS", "marriage QS"} <= legal(m)
    m = play(deal_c(), "close")
    assert {"marriage KD", "marriage QD"} <= legal(m)


def test_O66_MAR_4_option_marriage_after_talon_closed_false() -> None:
    m = play(deal_p(options={"marriage_after_talon_closed": False}), *P_T1_T5, *P_T6)
    assert not {t for t in legal(m) if t.startswith(("marriage", "announce"))}
    m = play(deal_c(options={"marriage_after_talon_closed": False}), "close")
    assert not {t for t in legal(m) if t.startswith(("marriage", "announce"))}


def test_O66_MAR_5_marriage_lost_when_forced_to_play_one_card() -> None:
    h0 = ["AH", "9S", "AC", "TC", "JC", "9C"]
    h1 = ["KH", "QH", "AS", "TD", "JS", "QS"]
    m = play(o66(1, h0, h1, "9D"), "close", "AH")
    assert plays(m) == P("KH", "QH")  # strict: seat 1 must give up one card of his marriage
    m = play(m, "QH", "9S")
    m = play(m, "AS")  # seat 1 wins trick 2 and leads
    assert m.to_act == 1 and "KH" in hand(m, 1)
    assert not {t for t in legal(m) if t.startswith(("marriage", "announce"))}


def test_O66_MAR_6_one_marriage_per_lead() -> None:
    m = play(o66(1, MA_H0, MA_H1, MA_TRUMP), "KH", "9S", "draw")
    assert {"announce C", "announce D", "marriage KC", "marriage KD"} <= legal(m)
    m = play(m, "announce C")
    assert legal(m) == {"play KC", "play QC", "declare"}
    assert_illegal(m, "announce D")
    assert_illegal(m, "marriage KD")


# =========================================================================== §3.7 closing


def test_O66_CLOSE_1_no_drawing_strict_play_no_last_trick_bonus() -> None:
    m = play(deal_c(), "close")
    assert information_set(m, 0)["deal"]["talon_state"] == "TALON_STATE_CLOSED"
    assert information_set(m, 0)["deal"]["trump_card"] == ""  # turned face down
    m = play(m, "AC", "9C")
    assert len(hand(m, 0)) == len(hand(m, 1)) == 5  # nobody draws
    # AC/9C 11, TC/KC 14, AH/9H 11 (s0); 9S/JS 2 (s1); JH/QD 5 (s0); KD/AD 15 (s1)
    m = play(m, "TC", "KC", "AH", "9H", "9S", "JS", "JH", "QD", "KD", "AD")
    res = m.results[0]
    assert res.deal_points == (41, 17)  # 58 card points, no +10 for seat 1's last trick


def test_O66_CLOSE_2_close_at_first_lead() -> None:
    m = deal_c()
    assert "close" in legal(m)
    m = play(m, "close")
    assert m.deal.closed_by == 0
    assert m.to_act == 0
    assert len(hand(m, 0)) == len(hand(m, 1)) == 6


def test_O66_CLOSE_2_close_before_draw_keeps_five_cards() -> None:
    m = play(deal_p(), "TC", "AC")  # seat 1 won trick 1
    assert legal(m) == {"close", "draw"}
    m = play(m, "close")
    assert m.deal.closed_by == 1
    assert len(hand(m, 0)) == len(hand(m, 1)) == 5
    assert m.to_act == 1
    assert "draw" not in legal(m)
    assert any(t.startswith("play ") for t in legal(m))


def test_O66_CLOSE_2_close_after_draw_keeps_six_cards() -> None:
    m = play(deal_p(), "TC", "AC", "draw")
    assert "close" in legal(m)
    m = play(m, "close")
    assert m.deal.closed_by == 1
    assert len(hand(m, 0)) == len(hand(m, 1)) == 6
    assert m.to_act == 1


def test_O66_CLOSE_2_only_the_leader_may_close() -> None:
    m = play(deal_p(), "TC")
    assert_illegal(m, "close")  # seat 1 follows
    m = play(m, "AC", "draw", "AH")
    assert_illegal(m, "close")  # seat 0 follows


def test_O66_CLOSE_3_no_close_at_talon_size_2() -> None:
    m = play(deal_p(), *P_T1_T5[:-1])  # trick 5 won by seat 1, talon size 4 before the draw
    assert information_set(m, 0)["deal"]["talon_size"] == 4
    assert legal(m) == {"close", "draw"}
    m = play(m, "draw")
    assert information_set(m, 0)["deal"]["talon_size"] == 2
    assert_illegal(m, "close")
    m = play(m, *P_T6)  # trick 6 with talon 2: no close-or-draw decision, the draw is automatic
    assert "draw" not in legal(m) and "close" not in legal(m)
    assert information_set(m, 0)["deal"]["talon_size"] == 0


# Deal N: seat 0 closes at the first lead with worthless cards; seat 1 wins everything.
N_H0 = ["9S", "JS", "9C", "JC", "9H", "JH"]
N_H1 = ["AS", "TS", "AC", "TC", "KH", "QH"]
# 9S/AS 11; marriage KH (20) / JH 6; AC/9C 11; TC/JC 12; TS/JS 12 -> seat 1: 52 + 20 = 72
N_TO_T6 = ("close", "9S", "AS", "marriage KH", "JH", "AC", "9C", "TC", "JC", "TS", "JS")


def test_O66_CLOSE_4_non_closer_may_not_declare() -> None:
    m = play(o66(1, N_H0, N_H1, "AD"), *N_TO_T6)
    assert m.to_act == 1
    assert m.deal.deal_points(1) == 72
    assert_illegal(m, "declare")
    m = play(m, "QH", "9H")
    res = m.results[0]
    assert res.winner == 1  # the close failed (closer 0 < 66)
    assert res.reason == "closed_failure"


def test_O66_CLOSE_4_closer_declares_dosta() -> None:
    m = play(deal_c(), *C_SUCCESS)
    assert m.deal.deal_points(0) == 68
    assert "declare" in legal(m)
    m = play(m, "declare")
    res = m.results[0]
    assert res.winner == 0
    assert res.reason == "closed_success"


def test_O66_CLOSE_5_failed_close_when_hands_run_out() -> None:
    m = play(deal_c(), "close", "AC", "9C", "TC", "KC", "AH", "9H", "9S", "JS", "JH", "QD", "KD", "AD")
    res = m.results[0]
    assert res.deal_points == (41, 17)
    assert res.winner == 1
    assert res.game_points == (0, 2)
    assert res.reason == "closed_failure"


def test_O66_CLOSE_5_false_declaration_by_closer() -> None:
    m = play(deal_c(), "close", "marriage KD", "AD", "JH", "AH")  # seat 0: 13 + 40 = 53
    m = play(m, "declare")
    res = m.results[0]
    assert res.winner == 1
    assert res.game_points == (0, 2)
    assert res.reason == "closed_failure"


def test_O66_CLOSE_5_flat_two_even_if_closer_won_no_trick() -> None:
    m = play(o66(1, N_H0, N_H1, "AD"), *N_TO_T6, "QH", "9H")
    res = m.results[0]
    assert res.tricks_won == (0, 6)
    assert res.game_points == (0, 2)  # flat 2, never 3


def test_O66_CLOSE_6_success_scored_on_opponent_state_at_end() -> None:
    # At the close seat 1 had no trick; when seat 0 reaches 66 seat 1 has 1 trick, 15 points -> 2.
    m = play(deal_c(), *C_SUCCESS, "declare")
    res = m.results[0]
    assert res.winner == 0
    assert res.deal_points == (68, 15)
    assert res.game_points == (2, 0)


# =========================================================================== §3.8 declaring


def test_O66_DECL_1_no_declaration_before_own_won_trick() -> None:
    m = deal_d()
    assert_illegal(m, "declare")  # non-dealer at the first lead: no trick won yet
    m = play(deal_d(), "marriage KH")
    assert_illegal(m, "declare")  # the follower never declares
    m = play(m, "9S", "draw")
    assert "declare" in legal(m)  # after his own won trick, at his lead


def test_O66_DECL_1_dosta_ends_deal_at_once() -> None:
    m = play(deal_d(), "marriage KH", "9S", "draw", "AC", "9C", "draw", "AS", "9D", "draw", "declare")
    assert len(m.results) == 1
    assert m.deal_number == 1
    assert m.results[0].tricks_won == (3, 0)  # play stopped after three tricks


def test_O66_DECL_2_tricks_plus_counted_marriages_exactly_66() -> None:
    # marriage KH/9S 4, AC/9C 11, AS/9D 11 -> 26 + 40 = 66: correct
    m = play(deal_d(), "marriage KH", "9S", "draw", "AC", "9C", "draw", "AS", "9D", "draw", "declare")
    res = m.results[0]
    assert res.winner == 0
    assert res.reason == "declared"
    assert res.deal_points == (66, 0)
    assert res.game_points == (3, 0)


# Deal F: trump S (trump card 9S).
F_H0 = ["9H", "9D", "9C", "KC", "QC", "AS"]
F_H1 = ["KS", "QS", "AH", "AD", "JH", "TD"]
F_TALON = ["TH", "AC", "TC", "JC", "TS", "JS", "KH", "QH", "KD", "QD", "JD"]


def test_O66_DECL_3_undeclared_66_loses_to_later_correct_declaration() -> None:
    m = o66(1, F_H0, F_H1, "9S", F_TALON)
    # 9H/AH 11, marriage KS (40) / 9D 4, AD/9C 11 -> seat 1: 26 + 40 = 66
    m = play(m, "9H", "AH", "draw", "marriage KS", "9D", "draw", "AD", "9C", "draw")
    assert m.deal.deal_points(1) == 66
    assert "declare" in legal(m)  # he could say "Dosta" ...
    # ... but leads on: JH/AS 13 (s0); marriage KC (20) / TD 14; AC/TH 21 -> seat 0: 48 + 20 = 68
    m = play(m, "JH", "AS", "draw", "marriage KC", "TD", "draw", "AC", "TH", "declare")
    res = m.results[0]
    assert res.winner == 0
    assert res.reason == "declared"
    assert res.deal_points == (68, 66)
    assert res.game_points == (1, 0)


def test_O66_DECL_4_false_dosta_gives_opponent_two() -> None:
    # marriage KH/9S 4, AC/9C 11, TS/9D 10 -> 25 + 40 = 65 < 66: false "Dosta"
    m = play(deal_d(), "marriage KH", "9S", "draw", "AC", "9C", "draw", "TS", "9D", "draw", "declare")
    res = m.results[0]
    assert res.winner == 1
    assert res.reason == "false_declaration"
    assert res.game_points == (0, 2)  # 2 although seat 1 has no trick
    assert m.deal_number == 1


def test_O66_DECL_5_declare_after_marriage_without_leading() -> None:
    # AC/9C 11, AS/9D 11, TS/9S 10 -> 32; announce the trump marriage (40) -> 72
    m = play(deal_d(), "AC", "9C", "draw", "AS", "9D", "draw", "TS", "9S", "draw", "announce H")
    assert "declare" in legal(m)
    m = play(m, "declare")
    res = m.results[0]
    assert res.winner == 0
    assert res.deal_points == (72, 0)
    assert res.game_points == (3, 0)
    played = {ev[2] for ev in m.histories[0] if ev[0] == "play" and ev[1] == 0}
    assert not played & set(ids(["KH", "QH"]))  # no card of the marriage was led


# =========================================================================== §3.9 end of deal


def test_O66_END_1_last_trick_bonus_decides() -> None:
    m = play(deal_p(), *P_WIN)
    res = m.results[0]
    # seat 0: 8 + 48 card points + 10 for the last trick = 66; seat 1: 64. Without the bonus
    # nobody would have 66 (56:64).
    assert res.deal_points == (66, 64)
    assert res.winner == 0
    assert res.reason == "played_out"
    assert res.game_points == (1, 0)
    assert res.schwarz is False and res.deal_schneider is False


def test_O66_END_2_both_over_65_drawn_with_carry() -> None:
    m = play(deal_p(), *P_BOTH)
    res = m.results[0]
    assert res.deal_points == (66, 84)
    assert res.winner == -1
    assert res.game_points == (0, 0)
    assert m.carried == 1
    assert m.game_points == [0, 0]


def test_O66_END_2_65_65_drawn_without_carry() -> None:
    m = play(deal_p65(), *P65)
    res = m.results[0]
    assert res.deal_points == (65, 65)
    assert res.winner == -1
    assert res.game_points == (0, 0)
    assert m.carried == 0


def test_O66_END_3_closed_deal_runs_out_closer_reaches_66() -> None:
    # continue deal C after reaching 68: TC/9C 10 (s0), 9S/JS 2 (s1), 9H/QD 3 (s0)
    m = play(deal_c(), *C_SUCCESS, "TC", "9C", "9S", "JS", "9H", "QD")
    res = m.results[0]
    assert res.deal_points == (81, 17)  # 41 + 40, no last-trick bonus
    assert res.winner == 0
    assert res.reason == "closed_success"
    assert res.game_points == (2, 0)  # seat 1: 2 tricks, 17 < 33


# =========================================================================== §3.10 game points, match


def test_O66_SCORE_1_one_point_when_opponent_has_33_with_marriage() -> None:
    m = play(o66(1, E33_H0, E33_H1, E_TRUMP), *E33)
    res = m.results[0]
    assert res.deal_points == (77, 33)  # 13 in tricks + 20 marriage
    assert res.winner == 0
    assert res.game_points == (1, 0)
    assert res.deal_schneider is False


def test_O66_SCORE_1_two_points_when_opponent_has_32() -> None:
    m = play(o66(1, E32_H0, E32_H1, E_TRUMP), *E32)
    res = m.results[0]
    assert res.deal_points == (77, 32)
    assert res.game_points == (2, 0)
    assert res.deal_schneider is True
    assert res.schwarz is False


def test_O66_SCORE_1_three_points_when_opponent_has_no_trick() -> None:
    m = play(deal_d(), "AC", "9C", "draw", "AS", "9D", "draw", "TS", "9S", "draw", "announce H", "declare")
    res = m.results[0]
    assert res.game_points == (3, 0)
    assert res.schwarz is True


def test_O66_SCORE_2_carried_point_added_to_next_winner() -> None:
    m = play(deal_p(next_decks=[q_deck()]), *P_BOTH)
    assert m.carried == 1
    assert m.deal.dealer == 1
    m = play(m, *Q)  # the dealer (seat 1) wins 2 by the false "Dosta" ... plus the carried point
    res = m.results[1]
    assert res.winner == 1
    assert res.game_points == (0, 3)
    assert res.carried_points == 1
    assert m.carried == 0
    assert m.game_points == [0, 3]


def test_O66_MATCH_1_eleven_counting_down() -> None:
    m = MatchState(rules_for(O66), 0, [q_deck()] * 6, 1)
    info = information_set(m, 0)["match"]
    assert info["target"] == 11
    assert info["direction"] == "SCORE_DIRECTION_DOWN"
    for k in range(5):
        m = play(m, *Q)
        assert m.results[k].game_points == (0, 2)
    assert m.game_points == [0, 10]  # seat 1 is at 11 - 10 = 1
    assert not m.over
    m = play(m, *Q)
    assert m.game_points == [0, 12]  # 11 - 12 < 0: seat 1 reached 0
    assert m.over
    assert m.winner == 1


@pytest.mark.parametrize("before, over", [([9, 0], False), ([10, 0], True)])
def test_O66_MATCH_1_reaching_exactly_zero_ends_match(before: list[int], over: bool) -> None:
    m = play(deal_p(game_points=before), *P_WIN)  # seat 0 wins 1 game point
    assert m.results[0].game_points == (1, 0)
    assert m.game_points == [before[0] + 1, 0]
    assert m.over is over
    assert m.winner == (0 if over else -1)


# =========================================================================== OPEN-O66 options


def test_OPEN_O66_1_default_exchange_min_talon_4() -> None:
    assert rules_for(O66).exchange_min_talon == 4
    m = play(o66(1, X_H0, X_H1, "AD"), *X_TO_T5, "TS", "JS", "draw")
    assert_illegal(m, "exchange")


def test_OPEN_O66_1_exchange_min_talon_2_allows_exchange() -> None:
    m = play(o66(1, X_H0, X_H1, "AD", options={"exchange_min_talon": 2}), *X_TO_T5, "TS", "JS", "draw")
    assert information_set(m, 0)["deal"]["talon_size"] == 2
    assert "exchange" in legal(m)
    m = play(m, "exchange")
    assert "AD" in hand(m, 0)
    m = play(m, "KC", "QC")
    assert "9D" in hand(m, 1)  # the 9 is still drawn last


def test_OPEN_O66_2_default_close_score_basis_at_end() -> None:
    assert rules_for(O66).close_score_basis == "at_end"
    m = play(deal_c(), *C_SUCCESS, "declare")
    assert m.results[0].game_points == (2, 0)  # seat 1 took a trick (15) after the close


def test_OPEN_O66_2_close_score_basis_at_close() -> None:
    m = play(deal_c(options={"close_score_basis": "at_close"}), *C_SUCCESS, "declare")
    assert m.results[0].winner == 0
    assert m.results[0].game_points == (3, 0)  # seat 1 had no trick when seat 0 closed


def test_OPEN_O66_3_default_winner_deals() -> None:
    assert rules_for(O66).dealer_rotation == "winner_deals"
    m = play(o66(1, Q_H0, Q_H1, Q_TRUMP), *Q)  # dealer wins
    assert m.deal.dealer == 1
    m = play(deal_p(), *P_WIN)  # non-dealer wins
    assert m.deal.dealer == 0
    m = play(deal_p65(), *P65)  # drawn
    assert m.deal.dealer == 1


def test_OPEN_O66_3_alternate() -> None:
    m = play(o66(1, Q_H0, Q_H1, Q_TRUMP, options={"dealer_rotation": "alternate"}), *Q)
    assert m.results[0].winner == 1
    assert m.deal.dealer == 0
    assert m.to_act == 1


def test_OPEN_O66_4_default_carries_accumulate() -> None:
    p = o66_deck(1, P_H0, P_H1, P_TRUMP, P_TALON)
    m = play(deal_p(next_decks=[p, q_deck()]), *P_BOTH)
    m = play(m, *P_BOTH)
    assert m.carried == 2
    m = play(m, *Q)
    res = m.results[2]
    assert res.game_points == (0, 4)  # 2 + 2 carried
    assert res.carried_points == 2
    assert m.carried == 0


def test_OPEN_O66_4_default_65_65_draw_neither_adds_nor_consumes() -> None:
    p65 = o66_deck(1, P65_H0, P65_H1, P_TRUMP, P_TALON)
    m = play(deal_p(next_decks=[p65, q_deck()]), *P_BOTH)
    m = play(m, *P65)
    assert m.results[1].winner == -1
    assert m.carried == 1
    m = play(m, *Q)
    assert m.results[2].game_points == (0, 3)
    assert m.results[2].carried_points == 1


def test_OPEN_O66_4_draw_carry_point_false() -> None:
    m = play(deal_p(options={"draw_carry_point": False}, next_decks=[q_deck()]), *P_BOTH)
    assert m.results[0].winner == -1
    assert m.carried == 0
    m = play(m, *Q)
    assert m.results[1].game_points == (0, 2)
    assert m.results[1].carried_points == 0


def test_OPEN_O66_5_default_no_exchange_on_opponent_close() -> None:
    assert rules_for(O66).exchange_on_opponent_close is False
    m = play(o66(1, X2_H0, X2_H1, "AD"), "close")
    assert m.to_act == 0
    assert "exchange" not in legal(m) and "pass" not in legal(m)


def test_OPEN_O66_5_exchange_on_opponent_close_true() -> None:
    opts = {"exchange_on_opponent_close": True}
    m = play(o66(1, X2_H0, X2_H1, "AD", options=opts), "close")
    assert m.to_act == 1
    assert legal(m) == {"exchange", "pass"}
    mx = play(m, "exchange")
    assert "AD" in hand(mx, 1) and "9D" not in hand(mx, 1)
    assert mx.to_act == 0
    mp = play(m, "pass")
    assert "9D" in hand(mp, 1)
    assert mp.to_act == 0
    with pytest.raises(IllegalActionError):
        apply(mp, "exchange")

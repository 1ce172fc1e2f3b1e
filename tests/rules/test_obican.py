"""``snaps-obican`` (docs/RULES.md §4): one or more tests per rule ID OBI-* and per OPEN-OBI-* option.

Every scenario is an explicit deal (hands by seat, face-up trump card, talon top first) and every
expected value is derived by hand from docs/RULES.md (the arithmetic is in the comments), never copied
from the engine. Seat 0 is the non-dealer (dealer = 1) unless a test says otherwise.
"""

from __future__ import annotations

from typing import Any

import pytest

from bummerl.rules import MatchState, find_variant, information_set

from .helpers import assert_illegal, hand, ids, legal, make_match, play, rest, rules_for

OBI = "snaps-obican"


def obi(
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
        talon = rest(OBI, h0, h1, [trump])
    return make_match(OBI, dealer, (h0, h1), trump, talon, options, **kw)


def last_trick_winner_of(m: MatchState, deal: int) -> int:
    tricks = [ev for ev in m.histories[deal] if ev[0] == "trick"]
    return int(tricks[-1][1])


def plays(m: MatchState) -> set[str]:
    return {t for t in legal(m) if t.startswith("play ")}


def P(*cards: str) -> set[str]:
    return {f"play {c}" for c in cards}


# --------------------------------------------------------------------------- deal OA (played out)
# Trump D, face-up trump card JD (the exchange card itself: nobody can exchange). Dealer 1.
# Seat 1 wins tricks 1-4 (with a 20 marriage) and reaches 81 but never declares; seat 0 wins trick 5
# (the last talon trick) and, in strict play, tricks 6-10 including the last one.
# Draws: seat 1 draws T0 T2 T4 T6 and the trump card JD; seat 0 draws T1 T3 T5 T7 T8.
OA_H0 = ["JS", "TC", "TH", "KD", "QD"]
OA_H1 = ["KH", "QH", "AC", "AH", "TD"]
OA_TRUMP = "JD"
OA_TALON = ["JC", "AD", "QC", "AS", "KC", "TS", "JH", "KS", "QS"]
# T1 TC/AC 21 (s1); T2 marriage KH (20) / JS 6 (s1); T3 AH/TH 21 (s1); T4 TD/QD 13 (s1) -> s1 61 + 20
OA_T1_T4 = ("TC", "AC", "marriage KH", "JS", "AH", "TH", "TD", "QD")
# T5 QH/KD 7 (s0)
OA_T5 = ("QH", "KD")
# T6 AD/JD 13, T7 AS/JC 13, T8 TS/QC 13, T9 KS/KC 8, T10 QS/JH 5 -> s0 7 + 52 = 59
OA_PHASE2 = ("AD", "JD", "AS", "JC", "TS", "QC", "KS", "KC", "QS", "JH")
OA = OA_T1_T4 + OA_T5 + OA_PHASE2


def deal_oa(**kw: Any) -> MatchState:
    return obi(1, OA_H0, OA_H1, OA_TRUMP, OA_TALON, **kw)


# --------------------------------------------------------------------------- deal OB (seat 1 no trick)
OB_H0 = ["AC", "AS", "AH", "TC", "TS"]
OB_H1 = ["JC", "JS", "JH", "QC", "QS"]
OB_TRUMP = "JD"
OB_TALON = ["AD", "QD", "TD", "QH", "KD", "KC", "TH", "KS", "KH"]
# seat 0 wins all ten tricks (strict phase: AD/JD, TD/QD, TH/QH, KH/KC, KD/KS)
OB = ("AC", "JC", "AS", "JS", "AH", "JH", "TC", "QC", "TS", "QS",
      "AD", "JD", "TD", "QD", "TH", "QH", "KH", "KC", "KD", "KS")

# --------------------------------------------------------------------------- deal OC (closed deal)
# Trump D (trump card JD). Seat 0 closes at the first lead, reaches 71 but seat 1 takes the last trick.
OC_H0 = ["KD", "QD", "AC", "TC", "KS"]
OC_H1 = ["AD", "JC", "QC", "AS", "JH"]
OC_TRUMP = "JD"
# close; marriage KD (40) / AD 15 (s1); JC/TC 12 (s0, 52); AC/QC 14 (s0, 66); QD/JH 5 (s0, 71);
# KS/AS 15 (s1, 30, last trick)
OC = ("close", "marriage KD", "AD", "JC", "TC", "AC", "QC", "QD", "JH", "KS", "AS")

# --------------------------------------------------------------------------- deal OX (exchange)
# Trump D, face-up trump card AD; seat 0 holds the trump jack JD.
OX_H0 = ["JD", "AC", "AS", "AH", "TC"]
OX_H1 = ["QC", "QS", "QH", "JC", "JS"]
OX_TO_T4 = ("AC", "JC", "AS", "QS", "AH", "QH")  # seat 0 wins; talon 10 -> 4


# =========================================================================== OBI-INH-1


def test_OBI_INH_1_talon_10_five_tricks_then_strict() -> None:
    m = deal_oa()
    info = information_set(m, 0)["deal"]
    assert info["talon_size"] == 10
    m = play(m, "TC")
    assert plays(m) == P(*OA_H1)  # talon open: free play (O66-PLAY-1)
    m = play(m, "AC", *OA_T1_T4[2:])
    assert information_set(m, 0)["deal"]["talon_size"] == 2
    m = play(m, *OA_T5)  # the fifth trick exhausts the talon
    assert information_set(m, 0)["deal"]["talon_state"] == "TALON_STATE_EXHAUSTED"
    assert "JD" in hand(m, 1)  # the loser of trick 5 drew the face-up trump card
    m = play(m, "AD")
    assert plays(m) == P("JD")  # strict: must follow suit (O66-STRICT-1)


def test_OBI_INH_1_marriage_values_and_winner_deals() -> None:
    m = play(deal_oa(), "TC", "AC", "marriage KH")
    assert [e for e in m.deal.history if e[0] == "marriage"] == [("marriage", 1, 2, 20)]  # plain suit: 20
    m = play(deal_oa(), *OA)  # seat 0 (non-dealer) wins -> seat 0 deals next (OPEN-O66-3)
    assert m.results[0].winner == 0
    assert m.deal.dealer == 0
    assert m.to_act == 1


def test_OBI_INH_1_failed_close_scores_two() -> None:
    # Seat 0 closes at the first lead and runs out with fewer than 66 (O66-CLOSE-5, O66-END-3).
    # Strict play: AC/JC 13, AS/QS 14, AH/QH 14, TC/QC 13 -> seat 0 54; QD/AD 14 -> seat 1.
    h0 = ["AC", "AS", "AH", "TC", "QD"]
    h1 = ["JC", "QS", "QH", "QC", "AD"]
    m = play(obi(1, h0, h1, "JD"), "close", "AC", "JC", "AS", "QS", "AH", "QH", "TC", "QC", "QD", "AD")
    res = m.results[0]
    assert res.deal_points == (54, 14)
    assert res.winner == 1
    assert res.reason == "closed_failure"
    assert res.game_points == (0, 2)


# =========================================================================== OBI-DECK-1


def test_OBI_DECK_1_twenty_cards_without_nines_120_points() -> None:
    r = rules_for(OBI)
    assert len(r.deck) == 20
    assert set(r.deck) == set(ids([rk + s for rk in "ATKQJ" for s in "CSHD"]))
    assert not any(c % 6 == 5 for c in r.deck)  # no 9s
    assert sum(r.points[c] for c in r.deck) == 120


# =========================================================================== OBI-EXCH-1


def test_OBI_EXCH_1_trump_jack_exchange_at_first_lead() -> None:
    m = obi(1, OX_H0, OX_H1, "AD")
    assert "exchange" in legal(m)
    m = play(m, "exchange")
    assert "AD" in hand(m, 0) and "JD" not in hand(m, 0)
    assert information_set(m, 1)["deal"]["trump_card"] == "JD"
    assert m.to_act == 0


def test_OBI_EXCH_1_no_exchange_at_talon_2_or_after_closing() -> None:
    m = play(obi(1, OX_H0, OX_H1, "AD"), *OX_TO_T4)
    assert information_set(m, 0)["deal"]["talon_size"] == 4
    assert "exchange" in legal(m)
    m = play(m, "TC", "QC")
    assert information_set(m, 0)["deal"]["talon_size"] == 2
    assert "JD" in hand(m, 0)
    assert_illegal(m, "exchange")
    m = play(obi(1, OX_H0, OX_H1, "AD"), "close")
    assert_illegal(m, "exchange")


def test_OBI_EXCH_1_not_as_follower_and_not_for_non_closer() -> None:
    # Seat 1 (dealer) holds the trump jack.
    h0 = ["QC", "AS", "AH", "TC", "AC"]
    h1 = ["JD", "KC", "QS", "QH", "JS"]
    m = play(obi(1, h0, h1, "AD"), "QC")
    assert_illegal(m, "exchange")  # the follower may not exchange
    m2 = play(m, "KC")  # seat 1 wins and leads
    assert "exchange" in legal(m2)
    m = play(obi(1, h0, h1, "AD"), "close")
    assert m.to_act == 0 and "exchange" not in legal(m) and "pass" not in legal(m)  # OPEN-O66-5
    m = play(m, "QC", "KC")  # strict: seat 1 must head with KC and leads
    assert_illegal(m, "exchange")


def test_OBI_EXCH_1_exchange_min_talon_2_option() -> None:
    m = play(obi(1, OX_H0, OX_H1, "AD", options={"exchange_min_talon": 2}), *OX_TO_T4, "TC", "QC")
    assert information_set(m, 0)["deal"]["talon_size"] == 2
    assert "exchange" in legal(m)


# =========================================================================== OBI-DEAL-1 / OBI-DEAL-2

OBI_ORDER = ["AC", "TC", "KC", "QC", "JC", "AS", "TS", "KS", "QS", "JS",
             "AH", "TH", "KH", "QH", "JH", "AD", "TD", "KD", "QD", "JD"]


@pytest.mark.parametrize("dealer", [0, 1])
def test_OBI_DEAL_1_five_cards_three_then_two_non_dealer_first(dealer: int) -> None:
    m = MatchState(rules_for(OBI), 0, [ids(OBI_ORDER)], dealer)
    nd = 1 - dealer
    # d0-d2 -> non-dealer, d3-d5 -> dealer, d6-d7 -> non-dealer, d8-d9 -> dealer
    assert hand(m, nd) == {"AC", "TC", "KC", "TS", "KS"}
    assert hand(m, dealer) == {"QC", "JC", "AS", "QS", "JS"}
    assert m.to_act == nd


def test_OBI_DEAL_1_five_cards_in_hand_while_talon_lasts() -> None:
    m = deal_oa()
    seq = list(OA_T1_T4 + OA_T5)
    for k in range(5):
        m = play(m, seq[2 * k], seq[2 * k + 1])
        if k < 4:
            assert len(hand(m, 0)) == len(hand(m, 1)) == 5, k
    assert len(hand(m, 0)) == len(hand(m, 1)) == 5  # after trick 5 the last two cards are drawn


def test_OBI_DEAL_2_trump_card_is_the_eleventh_card() -> None:
    m = MatchState(rules_for(OBI), 0, [ids(OBI_ORDER)], 1)
    info = information_set(m, 0)["deal"]
    assert info["trump_card"] == "AH"  # d10, the card after both hands
    assert info["trump_suit"] == "H"
    assert info["talon_size"] == 10  # 9 face-down cards + the trump card
    m = play(m, "AC", "QC")  # seat 0 wins trick 1 and draws the top card d11
    assert "TH" in hand(m, 0)
    assert "KH" in hand(m, 1)


# =========================================================================== OBI-PLAY-1


def test_OBI_PLAY_1_own_won_cards_and_points_in_information_set() -> None:
    m = play(deal_oa(), "TC", "AC")  # seat 1 wins 21
    i1 = information_set(m, 1)["deal"]["own_tricks"]
    assert set(i1["won_cards"]) == {"TC", "AC"}
    assert (i1["trick_points"], i1["deal_points"]) == (21, 21)
    i0 = information_set(m, 0)["deal"]["own_tricks"]
    assert i0 == {"trick_points": 0, "won_cards": [], "deal_points": 0}
    m = play(m, "marriage KH", "JS")  # seat 1: 27 in tricks + 20 counted
    i1 = information_set(m, 1)["deal"]["own_tricks"]
    assert set(i1["won_cards"]) == {"TC", "AC", "KH", "JS"}
    assert (i1["trick_points"], i1["deal_points"]) == (27, 47)
    d0 = information_set(m, 0)["deal"]
    assert d0["own_tricks"]["deal_points"] == 0  # the opponent's total is not in seat 0's observation
    ints = [v for part in (d0, d0["own_tricks"]) for v in part.values() if isinstance(v, int)]
    assert 47 not in ints and 27 not in ints


# =========================================================================== OBI-DECL-1


def test_OBI_DECL_1_false_dosta_is_rejected() -> None:
    m = play(deal_oa(), "TC", "AC")  # seat 1 won a trick, has 21 < 66
    assert m.to_act == 1
    before = m.fingerprint()
    assert_illegal(m, "declare")
    assert m.fingerprint() == before
    assert m.results == []


def test_OBI_DECL_1_correct_dosta_is_accepted() -> None:
    m = play(deal_oa(), *OA_T1_T4)  # seat 1: 61 + 20 = 81
    assert "declare" in legal(m)
    m = play(m, "declare")
    res = m.results[0]
    assert res.winner == 1
    assert res.reason == "declared"
    assert res.deal_points == (0, 81)


# =========================================================================== OBI-CLOSE-1


def test_OBI_CLOSE_1_close_only_after_the_draw() -> None:
    m = play(deal_oa(), "TC", "AC")  # seat 1 won trick 1
    # no close-or-draw decision: both have drawn, seat 1 is at his lead with 5 cards
    assert "draw" not in legal(m)
    assert len(hand(m, 0)) == len(hand(m, 1)) == 5
    assert "close" in legal(m)
    m = play(m, "close")
    assert m.deal.closed_by == 1
    assert len(hand(m, 0)) == len(hand(m, 1)) == 5


def test_OBI_CLOSE_1_no_close_at_talon_size_2() -> None:
    m = play(deal_oa(), *OA_T1_T4)
    assert information_set(m, 0)["deal"]["talon_size"] == 2
    assert_illegal(m, "close")


# =========================================================================== OBI-END-1


def test_OBI_END_1_last_trick_wins_regardless_of_points_no_bonus() -> None:
    m = play(deal_oa(), *OA)
    res = m.results[0]
    # seat 1 holds 61 + 20 = 81 undeclared; seat 0 has 59 and took the last trick: no +10, no draw
    assert res.deal_points == (59, 81)
    assert res.winner == 0
    assert res.reason == "last_trick"
    assert res.game_points == (1, 0)


# =========================================================================== OBI-SCORE-1


def test_OBI_SCORE_1_last_trick_win_scores_one() -> None:
    m = play(obi(1, OB_H0, OB_H1, OB_TRUMP, OB_TALON), *OB)
    res = m.results[0]
    assert res.deal_points == (120, 0)
    assert res.winner == 0
    assert res.game_points == (1, 0)  # 1 even though seat 1 has no trick


def test_OBI_SCORE_1_dosta_scores_by_the_table() -> None:
    m = play(deal_oa(), *OA_T1_T4, "declare")
    assert m.results[0].game_points == (0, 3)  # seat 0 has no trick (O66-SCORE-1)


def test_OBI_SCORE_1_closing_scores_as_original66() -> None:
    # OC until seat 0 has 66 (4 tricks), then "Dosta": seat 1 has 1 trick, 15 points -> 2
    m = play(obi(1, OC_H0, OC_H1, OC_TRUMP), *OC[:7], "declare")
    res = m.results[0]
    assert res.winner == 0
    assert res.reason == "closed_success"
    assert res.deal_points == (66, 15)
    assert res.game_points == (2, 0)


# =========================================================================== OBI-MATCH-1


def test_OBI_MATCH_1_scores_count_up_from_zero_to_9() -> None:
    m = deal_oa()
    info = information_set(m, 0)["match"]
    assert info["game_points"] == [0, 0]
    assert info["target"] == 9
    assert info["direction"] == "SCORE_DIRECTION_UP"


@pytest.mark.parametrize("before, over", [([7, 0], False), ([8, 0], True)])
def test_OBI_MATCH_1_first_to_9_wins(before: list[int], over: bool) -> None:
    m = play(deal_oa(game_points=before), *OA)  # seat 0 wins 1 game point
    assert m.game_points == [before[0] + 1, 0]
    assert m.over is over
    assert m.winner == (0 if over else -1)


# =========================================================================== OPEN-OBI options


def test_OPEN_OBI_1_default_trump_card_after_the_hands() -> None:
    assert rules_for(OBI).deal_mapping_version == 1
    spec = find_variant(OBI).option_spec("deal_mapping_version")
    assert spec.default == 1
    m = MatchState(rules_for(OBI), 0, [ids(OBI_ORDER)], 0)
    assert information_set(m, 1)["deal"]["trump_card"] == "AH"  # 11th card, either dealer


def test_OPEN_OBI_2_default_close_before_first_trick_allowed() -> None:
    m = deal_oa()
    assert "close" in legal(m)
    m = play(m, "close")
    assert m.deal.closed_by == 0


def test_OPEN_OBI_2_close_before_first_trick_false() -> None:
    m = deal_oa(options={"close_before_first_trick": False})
    assert_illegal(m, "close")
    m = play(m, "TC", "AC")
    assert "close" in legal(m)  # after a trick and the draw it is allowed again


def test_OPEN_OBI_3_default_fixed1() -> None:
    m = play(obi(1, OB_H0, OB_H1, OB_TRUMP, OB_TALON), *OB)
    assert m.results[0].game_points == (1, 0)


def test_OPEN_OBI_3_by_table() -> None:
    m = play(obi(1, OB_H0, OB_H1, OB_TRUMP, OB_TALON, options={"last_trick_win_points": "by_table"}), *OB)
    assert m.results[0].winner == 0
    assert m.results[0].game_points == (3, 0)  # seat 1 has no trick
    m = play(deal_oa(options={"last_trick_win_points": "by_table"}), *OA)
    assert m.results[0].game_points == (1, 0)  # seat 1 has 81 >= 33


def test_OPEN_OBI_4_default_reject() -> None:
    assert rules_for(OBI).false_declaration_penalty == "reject"
    m = play(deal_oa(), "TC", "AC")
    assert "declare" not in legal(m)


def test_OPEN_OBI_4_flat2() -> None:
    m = play(deal_oa(options={"false_declaration_penalty": "flat2"}), "TC", "AC")
    assert "declare" in legal(m)
    m = play(m, "declare")  # 21 < 66
    res = m.results[0]
    assert res.winner == 0
    assert res.reason == "false_declaration"
    assert res.game_points == (2, 0)  # 2 although seat 0 has no trick (O66-DECL-4)


def test_OPEN_OBI_5_default_closer_threshold() -> None:
    m = play(obi(1, OC_H0, OC_H1, OC_TRUMP), *OC)
    res = m.results[0]
    # closer (seat 0) 31 + 40 = 71 >= 66 -> success although seat 1 took the last trick;
    # seat 1: 2 tricks, 30 < 33 -> 2
    assert res.deal_points == (71, 30)
    assert last_trick_winner_of(m, 0) == 1
    assert res.winner == 0
    assert res.reason == "closed_success"
    assert res.game_points == (2, 0)


def test_OPEN_OBI_5_last_trick() -> None:
    m = play(obi(1, OC_H0, OC_H1, OC_TRUMP, options={"closed_deal_end": "last_trick"}), *OC)
    res = m.results[0]
    assert res.winner == 1
    assert res.reason == "last_trick"
    assert res.game_points == (0, 1)



#: Obican options whose default or meaning §4 changes (the rest are Original 66's by OBI-INH-1).
OBI_CHANGED = {"close_timing", "false_declaration_penalty", "may_view_own_tricks", "match_target"}


def test_OBI_INH_1_options_are_original66_unless_changed() -> None:
    """OBI-INH-1: every Original 66 option that Običan keeps has Original 66's default, values and
    rule ids (plus Običan's own ids); the options §4 changes have Običan's defaults; the nine's
    value and the drawn-deal carry point do not exist (20 cards, the last trick decides)."""
    o66 = {o.name: o for o in find_variant("snaps-original66").options}
    obi_opts = {o.name: o for o in find_variant(OBI).options}
    assert "nine_value" not in obi_opts and "draw_carry_point" not in obi_opts
    kept = set(o66) & set(obi_opts)
    assert kept == set(o66) - {"nine_value", "draw_carry_point"}
    for name in kept - OBI_CHANGED:
        mine, theirs = obi_opts[name], o66[name]
        assert (mine.default, mine.allowed, mine.type) == (theirs.default, theirs.allowed, theirs.type), name
        assert set(theirs.rule_ids) <= set(mine.rule_ids), name
    defaults = {n: obi_opts[n].default for n in OBI_CHANGED}
    assert defaults == {"close_timing": "after_draw", "false_declaration_penalty": "reject",
                        "may_view_own_tricks": True, "match_target": 9}
    assert "OPEN-OBI-2" in obi_opts["close_before_first_trick"].rule_ids
    assert "OPEN-OBI-3" in obi_opts["last_trick_win_points"].rule_ids

"""``santase`` (docs/RULES.md §5): one test per rule id SAN-* and per OPEN-SAN-* option value.

Every scenario is an explicit deal (hands by seat, face-up trump card, talon top first); the
expected outcome is derived by hand from docs/RULES.md, never copied from the engine. Unless stated
otherwise seat 1 deals, so seat 0 (the non-dealer) leads the first trick (SAN-LEAD-1), and hearts
are trumps. Notation in the comments: ``T3: AS/9S s0 +11 (39)`` = trick 3, the leader plays AS,
the follower 9S, seat 0 wins 11 card points (39 in total). Card points (SAN-DECK-2, default):
A 11, T 10, K 4, Q 3, J 2, 9 0; marriage 20 / 40 in trumps; last trick +10 (talon not closed).

In santase the trick winner decides ``draw`` or ``close`` after each trick while closing is
possible (SAN-CLOSE-1, talon size >= 4): the scripts below write that ``draw`` explicitly; after
trick 6 (talon size 2) the draw is automatic.
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

V = "santase"


# --------------------------------------------------------------------------- helpers


def san(
    s0: Sequence[str],
    s1: Sequence[str],
    trump: str,
    talon_top: Sequence[str] = (),
    *,
    dealer: int = 1,
    options: Mapping[str, object] | None = None,
    next_decks: Sequence[Sequence[int]] = (),
) -> MatchState:
    """A santase match whose first deal gives ``s0``/``s1`` (6 cards each) and ``trump`` face up;
    the talon starts with ``talon_top``, the other cards follow in deck order."""
    talon = [*talon_top, *rest(V, s0, s1, [trump], talon_top)]
    return make_match(V, dealer, (s0, s1), trump, talon, options, next_decks=next_decks)


# --- EXH: seat 0 wins the six talon tricks, then strict play after exhaustion -----------------
# T1 AC/JC 13, T2 TC/KS 14, T3 AS/9S 11, T4 TS/JD 12, T5 AD/9D 11, T6 TH/TD 20 -> s0 81.
# s0 draws the even talon cards QC 9H AH KH QS JS; s1 the odd ones KC 9C KD QH QD and, as loser
# of trick 6, the face-up JH (SAN-DRAW-1).
EXH_S0 = ["AC", "TC", "AS", "TS", "AD", "TH"]
EXH_S1 = ["JC", "KS", "9S", "JD", "9D", "TD"]
EXH_TALON = ["QC", "KC", "9H", "9C", "AH", "KD", "KH", "QH", "QS", "QD", "JS"]
EXH_TRUMP = "JH"
EXH_T1_T5 = ["AC", "JC", "draw", "TC", "KS", "draw", "AS", "9S", "draw", "TS", "JD", "draw", "AD", "9D", "draw"]
EXH_T6 = ["TH", "TD"]


def exh(options: Mapping[str, object] | None = None, talon: Sequence[str] = EXH_TALON) -> MatchState:
    return make_match(V, 1, (EXH_S0, EXH_S1), EXH_TRUMP, talon, options)


# EXH-M: as EXH but QH and QS swapped in the talon, so s0 ends with KH + QH after exhaustion.
EXH_M_TALON = ["QC", "KC", "9H", "9C", "AH", "KD", "KH", "QS", "QH", "QD", "JS"]


# --- DRAWN: a played-out deal ending 65:65 ----------------------------------------------------
# T1 AS/QS 14, T2 AD/KD 15, T3 TC/QC 13, T4 TD/JD 12, T5 KS/JS 6, T6 QD/JC 5 -> s0 65.
# s0 draws QH KC TS 9S 9D 9C, s1 AH TH KH 9H AC + JH. Strict: T7 KC/AC s1 15, T8 AH/QH 14,
# T9 TH/TS 20, T10 KH/9S 4, T11 JH/9D 2, T12 9H/9C 0 +10 last trick -> s1 65.
DRAWN_S0 = ["AS", "AD", "TC", "TD", "KS", "QD"]
DRAWN_S1 = ["QS", "KD", "QC", "JD", "JS", "JC"]
DRAWN_TALON = ["QH", "AH", "KC", "TH", "TS", "KH", "9S", "9H", "9D", "AC", "9C"]
DRAWN_PLAY = [
    "AS", "QS", "draw", "AD", "KD", "draw", "TC", "QC", "draw", "TD", "JD", "draw", "KS", "JS", "draw",
    "QD", "JC",
    "KC", "AC", "AH", "QH", "TH", "TS", "KH", "9S", "JH", "9D", "9H", "9C",
]


# --- QUICK: one-trick deals ending by a false declaration (SAN-DECL-2) -------------------------
# Each seat holds an ace and the nine of the other seat's ace suit: s0 AC + 9S, s1 AS + 9C.
QUICK_HANDS = (["AC", "9S", "TH", "JH", "KC", "9H"], ["AS", "9C", "TC", "JC", "KS", "QD"])
QUICK_TRUMP = "JD"
QUICK_TALON = rest(V, *QUICK_HANDS, [QUICK_TRUMP])
ACE = {0: "AC", 1: "AS"}
NINE = {0: "9S", 1: "9C"}


def quick_deck(dealer: int) -> list[int]:
    return deck_for(V, dealer, QUICK_HANDS, QUICK_TRUMP, QUICK_TALON)


def quick3(m: MatchState, scorer: int) -> MatchState:
    """``scorer`` loses the only trick, the trick winner declares with 11 points: false, and the
    innocent ``scorer`` has no trick -> 3 game points (SAN-DECL-2)."""
    leader = m.to_act
    other = 1 - scorer
    if leader == scorer:
        return play(m, NINE[scorer], ACE[other], "draw", "declare")
    return play(m, ACE[other], NINE[scorer], "draw", "declare")


def quick2(m: MatchState, scorer: int) -> MatchState:
    """``scorer`` wins trick 1, loses trick 2; the other declares with 11 points: false, and
    ``scorer`` has a trick -> 2 game points (SAN-DECL-2)."""
    leader = m.to_act
    other = 1 - scorer
    if leader == scorer:
        return play(m, ACE[scorer], NINE[other], "draw", NINE[scorer], ACE[other], "draw", "declare")
    return play(m, NINE[other], ACE[scorer], "draw", NINE[scorer], ACE[other], "draw", "declare")


# --------------------------------------------------------------------------- §5.1 deck and points


def test_SAN_DECK_1_24_cards_and_normal_rank_order() -> None:
    deck = find_variant(V).to_dict()["deck"]
    assert len(deck) == 24
    for suit in "CSHD":
        assert sorted(c["rank"] for c in deck if c["suit"] == suit) == sorted("ATKQJ9")
    # Rank order A > 10 > K > Q > J > 9, shown trick by trick in a plain (non-trump) suit:
    m = san(["9S", "KS", "TS", "QC", "KC", "AD"], ["JS", "QS", "AS", "JC", "TC", "9D"], "JH")
    m = play(m, "9S", "JS")  # J beats 9
    assert m.to_act == 1 and m.deal.tricks_won == [0, 1]
    m = play(m, "draw", "QS", "KS")  # K beats Q
    assert m.to_act == 0 and m.deal.tricks_won == [1, 1]
    m = play(m, "draw", "TS", "AS")  # A beats 10
    assert m.to_act == 1 and m.deal.tricks_won == [1, 2]
    m = play(m, "draw", "JC", "QC")  # Q beats J
    assert m.to_act == 0 and m.deal.tricks_won == [2, 2]
    m = play(m, "draw", "KC", "TC")  # 10 beats K
    assert m.to_act == 1 and m.deal.tricks_won == [2, 3]


def test_SAN_DECK_2_card_points_nine_is_zero() -> None:
    # T1 AC/TC 21, T2 KS/QS 7, T3 JD/9D 2 (+0 for the 9) -> s0 30; the declaration is false and
    # s1 has no trick -> s1 scores 3 (SAN-DECL-2).
    m = san(["AC", "KS", "JD", "QC", "JC", "9C"], ["TC", "QS", "9D", "JS", "9S", "TD"], "JH")
    m = play(m, "AC", "TC", "draw", "KS", "QS", "draw", "JD", "9D", "draw", "declare")
    assert res(m) == (1, (0, 3), (30, 0))
    # A played-out deal without marriages: 120 card points + 10 for the last trick.
    m = finish_deal(san(["AC", "KS", "JD", "QC", "JC", "9C"], ["TC", "QS", "9D", "JS", "9S", "TD"], "JH"))
    assert sum(m.results[0].deal_points) == 130


# --------------------------------------------------------------------------- §5.2 dealer and deal


def test_SAN_SEAT_1_two_players_first_dealer_chosen_by_the_server() -> None:
    dealers = {new_match(V, seed=s).deal.dealer for s in range(40)}
    assert dealers == {0, 1}  # SRV-4: drawn by the server's RNG
    assert new_match(V, seed=11).deal.dealer == new_match(V, seed=11).deal.dealer  # reproducible
    assert new_match(V, seed=3, first_dealer=0).deal.dealer == 0
    m = new_match(V, seed=3, first_dealer=1)
    assert information_set(m, 0)["num_seats"] == 2
    with pytest.raises(ValueError):
        information_set(m, 2)


def test_SAN_DEAL_1_six_cards_three_at_a_time_thirteenth_card_is_trump() -> None:
    deck = list(find_variant(V).deck)
    random.Random(5).shuffle(deck)
    m = new_match(V, seed=0, decks=[deck], first_dealer=1)
    # Non-dealer (seat 0) first: d[0:3] to seat 0, d[3:6] to seat 1, d[6:9] seat 0, d[9:12] seat 1.
    assert hand(m, 0) == set(codes(deck[0:3] + deck[6:9]))
    assert hand(m, 1) == set(codes(deck[3:6] + deck[9:12]))
    info = information_set(m, 0)["deal"]
    assert info["trump_card"] == card_code(deck[12])
    assert info["trump_suit"] == card_code(deck[12])[1]
    assert info["talon_size"] == 12
    assert info["hand_sizes"] == [6, 6]
    # The talon lies on the trump card: its top card d[13] is drawn first (by the trick winner).
    lead = sorted(legal(m))[0]
    m = play(m, lead)
    m = play(m, sorted(legal(m))[0])
    w = m.to_act
    m = play(m, "draw")
    assert card_code(deck[13]) in hand(m, w)
    assert card_code(deck[14]) in hand(m, 1 - w)


def test_SAN_DEAL_2_winner_deals_next_drawn_deal_same_dealer() -> None:
    # deal 1: 65:65 drawn, dealer 1 -> dealer 1 again; deal 2: s0 wins -> s0 deals deal 3;
    # deal 3: s0 wins -> s0 deals again (not alternating); deal 4: s1 wins -> s1 deals deal 5.
    m = make_match(
        V, 1, (DRAWN_S0, DRAWN_S1), "JH", DRAWN_TALON,
        next_decks=[quick_deck(1), quick_deck(0), quick_deck(0), quick_deck(1)],
    )
    m = play(m, *DRAWN_PLAY)
    assert m.results[0].winner == -1
    assert m.deal.dealer == 1
    m = quick3(m, 0)
    assert m.results[1].winner == 0 and m.deal.dealer == 0
    m = quick3(m, 0)
    assert m.results[2].winner == 0 and m.deal.dealer == 0
    m = quick3(m, 1)
    assert m.results[3].winner == 1 and m.deal.dealer == 1


# --------------------------------------------------------------------------- §5.3 lead, play, draw


def test_SAN_LEAD_1_non_dealer_leads_first_then_trick_winner() -> None:
    m = san(["AC", "KS", "JD", "QD", "JS", "TD"], ["9C", "AS", "9D", "KD", "9S", "TS"], "JH", dealer=0)
    assert m.to_act == 1  # seat 0 deals, seat 1 leads
    m = play(m, "9C", "AC")  # the follower wins ...
    assert m.to_act == 0
    m = play(m, "draw")
    assert m.to_act == 0 and information_set(m, 0)["deal"]["phase"] == "PHASE_LEAD"  # ... and leads next
    m = play(m, "KS", "AS")
    m = play(m, "draw")
    assert m.to_act == 1


def test_SAN_PLAY_1_no_obligation_to_follow_or_trump_while_talon_open() -> None:
    s1 = ["KC", "QC", "9H", "KD", "QD", "KS"]
    m = san(["AC", "TC", "AS", "TS", "AD", "TD"], s1, "JH")
    m = play(m, "AC")
    assert legal(m) == cards(*s1)  # clubs and a trump held, yet every card is allowed
    m = play(m, "KD")
    assert m.deal.tricks_won == [1, 0]


def test_SAN_PLAY_2_trick_resolution_suit_led_and_trumps() -> None:
    m = san(["AC", "AS", "AH", "KS", "QD", "JC"], ["9H", "JD", "KH", "TS", "9C", "9D"], "TH")
    m = play(m, "AC", "9H")  # the lowest trump beats the ace of another suit
    assert m.to_act == 1 and m.deal.tricks_won == [0, 1]
    m = play(m, "draw", "JD", "AS")  # a card of another suit never wins, however high
    assert m.to_act == 1 and m.deal.tricks_won == [0, 2]
    m = play(m, "draw", "KH", "AH")  # trump against trump: the higher wins
    assert m.to_act == 0 and m.deal.tricks_won == [1, 2]


def test_SAN_PLAY_3_no_own_won_cards_or_points_in_information_set() -> None:
    m = play(exh(), "AC", "JC", "draw")
    for seat in (0, 1):
        info = information_set(m, seat)
        ks = set(keys(info))
        assert not {k for k in ks if k.startswith("own_")}
        assert not ks & {"my_points", "my_tricks_cards", "team_points", "won_cards", "trick_points", "deal_points_now"}
        assert info["options"]["may_view_own_tricks"] == "false"
        assert info["deal"]["tricks_won"] == [1, 0]  # the number of tricks is public and may be sent


def test_SAN_PLAY_3_history_is_public_record_without_aggregates() -> None:
    # §14.2 says the server does not resend a completed trick; docs/DESIGN.md (issue #2) makes one
    # deliberate exception for every variant: the information set carries the deal's full public
    # history (perfect recall of what both players saw). What SAN-PLAY-3 forbids stays forbidden:
    # no list of won cards, no running point totals, not even the trick winner's own.
    m = play(exh(), "AC", "JC", "draw", "TC")
    for seat in (0, 1):
        info = information_set(m, seat)
        tricks = events_of(info["deal"]["history"], "trick_completed")
        assert tricks == [{"winner": 0, "cards": [{"seat": 0, "card": "AC"}, {"seat": 1, "card": "JC"}]}]
        assert "own_tricks" not in info["deal"]
        assert "points" not in json.dumps(info["deal"]["history"])


def test_SAN_DRAW_1_winner_draws_first_loser_of_trick_6_takes_trump_card() -> None:
    m = play(exh(), "AC", "JC", "draw")
    assert "QC" in hand(m, 0) and "KC" in hand(m, 1)  # winner: top card, loser: the next
    m = play(m, *EXH_T1_T5[3:], *EXH_T6)
    assert hand(m, 0) == {"QC", "9H", "AH", "KH", "QS", "JS"}
    assert hand(m, 1) == {"KC", "9C", "KD", "QH", "QD", "JH"}  # JH: the face-up trump card
    info = information_set(m, 1)["deal"]
    assert info["talon_size"] == 0 and info["talon_state"] == "TALON_STATE_EXHAUSTED" and info["trump_card"] == ""
    # §14.1/§14.3: the opponent learns that s1 drew the public JH, but no other drawn card.
    draws = [e for e in events_of(information_set(m, 0)["deal"]["history"], "card_drawn") if e["seat"] == 1]
    assert [e["card"] for e in draws] == [""] * 5 + ["JH"]


# --------------------------------------------------------------------------- §5.4 strict play


def test_SAN_STRICT_1_follow_head_or_trump_after_exhaustion() -> None:
    m = play(exh(), *EXH_T1_T5, *EXH_T6)
    m = play(m, "AH")
    assert legal(m) == cards("QH", "JH")  # must follow; cannot head the ace -> any heart
    m = play(m, "JH", "QC")  # T7 s0 +13
    assert legal(m) == cards("KC")  # must head: KC beats QC, 9C does not
    m = play(m, "KC", "KD")  # T8 s1 +7
    assert legal(m) == cards("9H", "KH")  # void in diamonds -> must trump
    m = play(m, "9H", "KH")  # T9 s0 +4
    assert legal(m) == cards("QH")
    m = play(m, "QH", "QS")  # T10 s0 +7
    assert legal(m) == cards("9C", "QD")  # void in spades, no trump -> any card
    m = play(m, "9C", "JS", "QD")  # T11 s0 +3, T12 s0 +5 +10
    # s0 81 + 13 + 4 + 7 + 3 + 5 + 10 = 123, s1 7: s1 has a trick and < 33 -> 2 (SAN-SCORE-1).
    assert res(m) == (0, (2, 0), (123, 7))


def test_SAN_STRICT_2_after_closing_strict_play_and_no_draw() -> None:
    # CL-D: T1 AS/TS s0 +21, s0 closes before drawing.
    m = san(["AS", "AC", "TC", "AH", "TH", "9D"], ["TS", "QD", "KC", "JC", "JS", "9S"], "KH")
    m = play(m, "AS", "TS", "close", "9D")
    assert legal(m) == cards("QD")  # talon not exhausted, yet strict: must head with QD
    m = play(m, "QD", "KC")
    assert legal(m) == cards("AC", "TC")  # both clubs head KC
    m = play(m, "TC")
    info = information_set(m, 0)["deal"]
    assert info["hand_sizes"] == [3, 3]  # 5 after the close, one card per trick, nobody draws
    assert info["talon_state"] == "TALON_STATE_CLOSED"


# --------------------------------------------------------------------------- §5.5 trump exchange

EX1_S0 = ["9H", "9C", "AD", "KS", "JS", "9S"]
EX1_S1 = ["TC", "JD", "QC", "JC", "TS", "9D"]


def test_SAN_EXCH_1_exchange_needs_lead_and_a_won_trick() -> None:
    m = san(EX1_S0, EX1_S1, "AH")
    assert_illegal(m, "exchange")  # on lead with the trump 9, but no trick won yet
    m = play(m, "9C", "TC", "draw", "JD")  # s1 wins T1 and leads
    assert_illegal(m, "exchange")  # s0 holds the 9 but is not on lead
    m = play(m, "AD", "draw")  # s0 wins T2
    assert "exchange" in legal(m)
    m = play(m, "exchange")
    assert "AH" in hand(m, 0) and "9H" not in hand(m, 0)
    assert information_set(m, 1)["deal"]["trump_card"] == "9H"


def test_SAN_EXCH_2_not_during_a_trick_only_after_both_drew() -> None:
    m = play(exh(), "AC", "JC", "draw", "TC", "KS", "draw", "AS", "9S")  # s0 holds 9H since T2
    assert legal(m) == {"close", "draw"}  # trick won, not yet drawn: no exchange
    assert_illegal(m, "exchange")
    m = play(m, "draw")
    assert "exchange" in legal(m)


def test_SAN_EXCH_3_no_exchange_with_two_cards_in_talon() -> None:
    m = play(exh(), *EXH_T1_T5[:12])  # after T4 and the draw: talon size 4
    assert m.deal.talon_size == 4 and "exchange" in legal(m)
    m = play(m, *EXH_T1_T5[12:])  # after T5 and the draw: talon size 2
    assert m.deal.talon_size == 2 and "9H" in hand(m, 0)
    assert_illegal(m, "exchange")


def test_SAN_EXCH_4_no_exchange_after_closing() -> None:
    m = play(san(EX1_S0, EX1_S1, "AH"), "9C", "TC", "draw", "JD", "AD", "draw")
    assert "exchange" in legal(m)
    m = play(m, "close")
    assert_illegal(m, "exchange")


# --------------------------------------------------------------------------- §5.6 marriages

# SM4: T1 TD/AD s1 +21; T2 s1 marries clubs (20) leading QC, AC s0 +14; T3 AS/KC s0 +15 (29);
# T4 s0 marries hearts (40) leading KH, JS s0 +6 (29+40+6 = 75); s0 declares 75.
SM4_S0 = ["TD", "AC", "AS", "KH", "QH", "9S"]
SM4_S1 = ["AD", "QC", "KC", "JS", "JD", "9D"]
SM4_PLAY = ["TD", "AD", "draw", "marriage QC", "AC", "draw", "AS", "KC", "draw", "marriage KH", "JS", "draw"]


def test_SAN_MAR_1_marriage_20_plain_40_in_trumps_only_on_lead() -> None:
    m = san(SM4_S0, SM4_S1, "JH")
    m = play(m, "TD")
    assert not {a for a in legal(m) if not a.startswith("play ")}  # follower: no marriage
    m = play(m, *SM4_PLAY[1:])
    marriages = information_set(m, 1)["deal"]["marriages"]
    assert [(x["seat"], x["suit"], x["points"]) for x in marriages] == [(1, "C", 20), (0, "H", 40)]
    m = play(m, "declare")
    # s0 31 card points + 40 = 75; s1 21 + 20 = 41 >= 33 -> 1 game point.
    assert res(m) == (0, (1, 0), (75, 41))


def test_SAN_MAR_2_marriage_points_count_only_after_a_won_trick() -> None:
    # Only reachable if a player can marry without a trick: the first lead, enabled here by the
    # variant-changing option marriage_first_lead_allowed (SAN-MAR-3 forbids it by default).
    opts = {"marriage_first_lead_allowed": True}
    s0 = ["KH", "QH", "AC", "AS", "9D", "JD"]
    s1 = ["AH", "9C", "TS", "JS", "9S", "KD"]
    m = san(s0, s1, "TH", options=opts)
    m = play(m, "marriage QH", "AH", "draw")  # T1 s1 +14; s0's 40 is pending
    pending = play(m, "declare")  # s1 14 < 66: false; s0 has no trick -> 3
    assert res(pending) == (0, (3, 0), (0, 14))
    m = play(m, "9C", "AC", "draw")  # T2 s0 +11: now the 40 counts (51)
    m = play(m, "AS", "TS", "draw", "declare")  # T3 s0 +21 -> 72
    assert res(m) == (0, (2, 0), (72, 14))


MAR_S0 = ["KH", "QH", "AC", "9S", "JS", "9D"]
MAR_S1 = ["9C", "TS", "QS", "JD", "TD", "KD"]


def test_SAN_MAR_3_no_marriage_in_the_first_trick() -> None:
    m = san(MAR_S0, MAR_S1, "JH")
    assert not {a for a in legal(m) if a.startswith(("marriage", "announce"))}
    for text in ("marriage KH", "marriage QH", "announce H"):
        assert_illegal(m, text)
    m = play(m, "AC", "9C", "draw")
    assert {"marriage KH", "marriage QH", "announce H"} <= legal(m)


def test_SAN_MAR_4_announcer_leads_king_or_queen_both_cards_public() -> None:
    m = play(san(MAR_S0, MAR_S1, "JH"), "AC", "9C", "draw", "announce H")
    assert legal(m) == {"play KH", "play QH", "declare"}
    assert_illegal(m, "play 9S")
    m = play(m, "QH")
    ev = events_of(information_set(m, 1)["deal"]["history"], "marriage_announced")
    assert len(ev) == 1 and ev[0]["seat"] == 0 and ev[0]["points"] == 40
    assert set(ev[0]["shown_cards"]) == {"KH", "QH"}
    assert information_set(m, 1)["deal"]["current_trick"] == [{"seat": 0, "card": "QH"}]


def test_SAN_MAR_5_marriages_allowed_after_exhaustion_and_after_closing() -> None:
    m = play(exh(talon=EXH_M_TALON), *EXH_T1_T5, *EXH_T6)  # s0 holds KH + QH, talon exhausted
    assert {"marriage KH", "marriage QH"} <= legal(m)
    # CL-E: s0 closes after T1; s1 wins T2 and marries hearts (40) in the closed talon.
    m = san(["AD", "9C", "JC", "9S", "JS", "QD"], ["9D", "AC", "KH", "QH", "AS", "TS"], "TH")
    m = play(m, "AD", "9D", "close", "9C", "AC")
    assert {"marriage KH", "marriage QH"} <= legal(m)


def test_SAN_MAR_6_one_marriage_per_lead() -> None:
    m = san(["KC", "QC", "KS", "QS", "AD", "9D"], ["9C", "JD", "TD", "JS", "9S", "TH"], "JH")
    m = play(m, "AD", "JD", "draw")
    assert {"marriage KC", "marriage QC", "marriage KS", "marriage QS", "announce C", "announce S"} <= legal(m)
    m = play(m, "announce C")
    assert legal(m) == {"play KC", "play QC", "declare"}
    for text in ("announce S", "marriage KS", "marriage QS"):
        assert_illegal(m, text)


# --------------------------------------------------------------------------- §5.7 closing

SC3_S0 = ["AC", "TC", "AS", "TS", "AD", "TD"]
SC3_S1 = ["KC", "QC", "KS", "QS", "KD", "QD"]


def test_SAN_CLOSE_1_close_on_lead_after_trick_1_before_or_after_drawing() -> None:
    m = san(SC3_S0, SC3_S1, "JH")
    assert_illegal(m, "close")  # never before trick 1
    m = play(m, "AC")
    assert_illegal(m, "close")  # the follower is not on lead
    m = play(m, "KC")
    assert m.to_act == 0 and legal(m) == {"close", "draw"}  # the winner decides before drawing
    before = play(m, "close")
    d = information_set(before, 0)["deal"]
    assert d["hand_sizes"] == [5, 5] and d["talon_state"] == "TALON_STATE_CLOSED" and d["closed_by"] == 0
    assert before.to_act == 0
    after = play(m, "draw")
    assert "close" in legal(after)
    after = play(after, "close")
    d = information_set(after, 0)["deal"]
    assert d["hand_sizes"] == [6, 6] and d["talon_state"] == "TALON_STATE_CLOSED"


def test_SAN_CLOSE_2_no_closing_with_two_cards_in_talon() -> None:
    m = play(exh(), *EXH_T1_T5[:12])  # T5 lead, talon size 4
    assert "close" in legal(m)
    m = play(m, "AD", "9D")  # trick 5 won, talon still 4 before the draw
    assert legal(m) == {"close", "draw"}
    m = play(m, "draw")  # talon size 2
    assert_illegal(m, "close")
    m = play(m, *EXH_T6)  # trick 6: no close/draw decision, the draw is automatic
    assert m.deal.talon_size == 0 and m.to_act == 0 and "draw" not in legal(m)


def test_SAN_CLOSE_3_after_closing_no_draw_and_no_last_trick_bonus() -> None:
    # CL-A: T1 AS/TS s0 21, close before drawing; T2 AC/KC 15 (36), T3 TC/QC 13 (49),
    # T4 AH/KD 15 (64), T5 TH/QD 13 (77), T6 JD/9S 2 (79) and no +10 for the last trick.
    m = san(["AS", "AC", "TC", "AH", "TH", "JD"], ["TS", "KC", "QC", "KD", "QD", "9S"], "JH")
    m = play(m, "AS", "TS", "close")
    for lead, follow, sizes in [("AC", "KC", 4), ("TC", "QC", 3), ("AH", "KD", 2), ("TH", "QD", 1)]:
        m = play(m, lead, follow)
        assert information_set(m, 0)["deal"]["hand_sizes"] == [sizes, sizes]
    m = play(m, "JD", "9S")
    assert res(m) == (0, (3, 0), (79, 0))  # SAN-CLOSE-4: s1 has no trick -> 3


def test_SAN_CLOSE_4_successful_close_scored_on_opponent_state_at_end() -> None:
    # CL-D: T1 AS/TS s0 21, close; s1 had no trick at closing but wins T2 9D/QD (3) after it.
    # T3 KC/AC s0 +15 (36), T4 AH/JC 13 (49), T5 TH/JS 12 (61), T6 TC/9S 10 (71): run out,
    # closer 71 >= 66; opponent now has a trick and 3 < 33 -> 2 (not 3).
    m = san(["AS", "AC", "TC", "AH", "TH", "9D"], ["TS", "QD", "KC", "JC", "JS", "9S"], "KH")
    m = play(m, "AS", "TS", "close", "9D", "QD", "KC", "AC", "AH", "JC", "TH", "JS", "TC", "9S")
    assert res(m) == (0, (2, 0), (71, 3))
    assert m.results[0].reason == "closed_success"


# CL-B: s0 closes after T1 (s1 no trick), T2 AC/KC s0 +15 (36), T3 JC/QC s1 +5, T4 KD/JD s1 +6,
# T5 TD/9D s1 +10, T6 TH/9H s1 +10 -> s0 36 < 66: failed close; s1 31 (no +10 after closing).
CLB_S0 = ["AS", "AC", "JC", "9H", "9D", "JD"]
CLB_S1 = ["TS", "KC", "QC", "KD", "TD", "TH"]
CLB_PLAY = ["AS", "TS", "close", "AC", "KC", "JC", "QC", "KD", "JD", "TD", "9D", "TH", "9H"]

# CL-C: T1 9S/KS s1 +4 (s1 draws KC, s0 JS); T2 JC/AC s0 +13, s0 closes before drawing;
# T3 9D/TD s1 +10, T4 KD/JD 6, T5 TH/9H 10, T6 9C/QS 3, T7 KC/JS 6 -> s0 13: failed close, and
# s1 already had a trick when the talon was closed.
CLC_S0 = ["9S", "AC", "9H", "9D", "JD", "QS"]
CLC_S1 = ["KS", "JC", "TH", "KD", "TD", "9C"]
CLC_TOP = ["KC", "JS"]
CLC_PLAY = ["9S", "KS", "draw", "JC", "AC", "close", "9D", "TD", "KD", "JD", "TH", "9H", "9C", "QS", "KC", "JS"]


def test_SAN_CLOSE_5_failed_close_two_or_three_if_opponent_had_no_trick_at_closing() -> None:
    m = play(san(CLB_S0, CLB_S1, "KH"), *CLB_PLAY)
    assert res(m) == (1, (0, 3), (36, 31))
    assert m.results[0].reason == "closed_failure"
    m = play(san(CLC_S0, CLC_S1, "AH", CLC_TOP), *CLC_PLAY)
    assert res(m) == (1, (0, 2), (13, 39))


# CL-E: T1 AD/9D s0 +11, s0 closes; T2 9C/AC s1 +11; T3 s1 marries hearts (40) leading KH,
# QD s1 +7 (58); T4 AS/JS s1 +13 (71).
CLE_S0 = ["AD", "9C", "JC", "9S", "JS", "QD"]
CLE_S1 = ["9D", "AC", "KH", "QH", "AS", "TS"]


def test_SAN_CLOSE_6_non_closer_may_declare_false_closer_declaration_is_failed_close() -> None:
    m = play(san(CLE_S0, CLE_S1, "TH"), "AD", "9D", "close", "9C", "AC", "marriage KH", "QD")
    false_nc = play(m, "declare")  # non-closer with 58: false -> SAN-DECL-2, closer has a trick -> 2
    assert res(false_nc) == (0, (2, 0), (11, 58))
    m = play(m, "AS", "JS")
    assert "declare" in legal(m)
    m = play(m, "declare")  # correct 71: the opponent got there first -> SAN-CLOSE-5, no trick at close -> 3
    assert res(m) == (1, (0, 3), (11, 71))
    assert m.results[0].reason == "closed_failure"
    # The closer's false declaration is a failed close: CL-D after T3, s0 has 36, s1 won a trick
    # after the close but had none at closing -> 3 (SAN-DECL-2 would give only 2).
    m = san(["AS", "AC", "TC", "AH", "TH", "9D"], ["TS", "QD", "KC", "JC", "JS", "9S"], "KH")
    m = play(m, "AS", "TS", "close", "9D", "QD", "KC", "AC", "declare")
    assert res(m) == (1, (0, 3), (36, 3))
    assert m.results[0].reason == "closed_failure"


# --------------------------------------------------------------------------- §5.8 declaring 66

SC3_PLAY = ["AC", "KC", "draw", "AS", "KS", "draw", "AD", "KD", "draw", "TC", "QC", "draw", "TS", "QS", "draw"]


def test_SAN_DECL_1_declare_66_at_own_lead_turn() -> None:
    # T1 AC/KC 15, T2 AS/KS 15, T3 AD/KD 15, T4 TC/QC 13, T5 TS/QS 13 -> s0 71.
    m = play(san(SC3_S0, SC3_S1, "JH"), *SC3_PLAY[:-3], "TS")
    assert_illegal(m, "declare")  # s1 follows: not his lead turn
    m = play(m, "QS", "draw")
    assert "declare" in legal(m)
    m = play(m, "declare")
    assert res(m) == (0, (3, 0), (71, 0))
    assert m.results[0].reason == "declared" and m.results[0].schwarz


def test_SAN_DECL_2_false_declaration_opponent_two_or_three() -> None:
    m = play(san(SC3_S0, SC3_S1, "JH"), *SC3_PLAY[:12], "declare")  # s0 58 < 66; s1 no trick -> 3
    assert res(m) == (1, (0, 3), (58, 0))
    assert m.results[0].reason == "false_declaration"
    # SC-2: T1 9S/KS s1 +4, T2 JC/AC s0 +13, T3 AS/JS s0 +13 (26): false, s1 has a trick -> 2.
    m = san(["AC", "TC", "AS", "TS", "AD", "9S"], ["KS", "JC", "JS", "KD", "JD", "KC"], "JH")
    m = play(m, "9S", "KS", "draw", "JC", "AC", "draw", "AS", "JS", "draw", "declare")
    assert res(m) == (1, (0, 2), (26, 4))


# --------------------------------------------------------------------------- §5.9 end of deal


def test_SAN_END_1_last_trick_worth_10() -> None:
    m = play(exh(), *EXH_T1_T5, *EXH_T6, "AH", "JH", "QC", "KC", "KD", "9H", "KH", "QH", "QS", "9C", "JS", "QD")
    # Card points s0 113 + s1 7 = 120; s0 took the last trick (JS/QD) -> 123.
    assert res(m)[2] == (123, 7)
    assert sum(m.results[0].deal_points) == 130


def test_SAN_END_2_equal_totals_drawn_deal_same_dealer() -> None:
    m = make_match(V, 1, (DRAWN_S0, DRAWN_S1), "JH", DRAWN_TALON)
    m = play(m, *DRAWN_PLAY)
    r = m.results[0]
    assert (r.winner, tuple(r.game_points), tuple(r.deal_points)) == (-1, (0, 0), (65, 65))
    assert m.game_points == [0, 0] and m.deal.dealer == 1 and not m.over


def test_SAN_END_2_higher_total_wins_not_last_trick() -> None:
    # As DRAWN with JC and TS swapped: T6 QD/TS gives s0 13 (73 after six tricks); s0 discards JC
    # instead of TS at T9, so s1 ends with 57 although he wins the last trick.
    s1 = ["QS", "KD", "QC", "JD", "JS", "TS"]
    talon = ["QH", "AH", "KC", "TH", "JC", "KH", "9S", "9H", "9D", "AC", "9C"]
    play_ = [*DRAWN_PLAY[:15], "QD", "TS", "KC", "AC", "AH", "QH", "TH", "JC", "KH", "9S", "JH", "9D", "9H", "9C"]
    m = play(make_match(V, 1, (DRAWN_S0, s1), "JH", talon), *play_)
    assert res(m) == (0, (1, 0), (73, 57))  # s1 57 >= 33 -> 1
    assert m.deal.dealer == 0  # SAN-DEAL-2: the winner deals


def test_SAN_END_3_closed_deal_played_out_closer_threshold() -> None:
    m = san(["AS", "AC", "TC", "AH", "TH", "JD"], ["TS", "KC", "QC", "KD", "QD", "9S"], "JH")
    m = play(m, "AS", "TS", "close", "AC", "KC", "TC", "QC", "AH", "KD", "TH", "QD", "JD", "9S")
    assert res(m) == (0, (3, 0), (79, 0))
    assert m.results[0].reason == "closed_success"
    m = play(san(CLB_S0, CLB_S1, "KH"), *CLB_PLAY)
    assert res(m) == (1, (0, 3), (36, 31))
    assert m.results[0].reason == "closed_failure"


# --------------------------------------------------------------------------- §5.10 scoring, match


def test_SAN_SCORE_1_one_two_or_three_game_points() -> None:
    # 3: opponent without a trick (SC-3).
    m = play(san(SC3_S0, SC3_S1, "JH"), *SC3_PLAY, "declare")
    r = m.results[0]
    assert res(m) == (0, (3, 0), (71, 0)) and r.schwarz and r.deal_schneider
    # 2: SC-2, T4 AD/KD 15 (41), T5 TS/JD 12 (53), T6 TC/KC 14 (67); s1 has 4 points.
    m = san(["AC", "TC", "AS", "TS", "AD", "9S"], ["KS", "JC", "JS", "KD", "JD", "KC"], "JH")
    m = play(
        m, "9S", "KS", "draw", "JC", "AC", "draw", "AS", "JS", "draw", "AD", "KD", "draw",
        "TS", "JD", "draw", "TC", "KC", "declare",
    )
    r = m.results[0]
    assert res(m) == (0, (2, 0), (67, 4)) and not r.schwarz and r.deal_schneider
    # 1: SC-1, T1 TD/AD s1 21, T2 TS/KS s1 14 (35), T3 JC/AC s0 13, T4 marriage KH (40) KH/9C 4
    # (57), T5 AS/QC 14 (71); s1 has 35 >= 33.
    m = san(["TD", "KS", "AC", "KH", "QH", "AS"], ["AD", "TS", "JC", "9C", "QC", "JS"], "JH")
    m = play(
        m, "TD", "AD", "draw", "TS", "KS", "draw", "JC", "AC", "draw", "marriage KH", "9C", "draw",
        "AS", "QC", "draw", "declare",
    )
    r = m.results[0]
    assert res(m) == (0, (1, 0), (71, 35)) and not r.schwarz and not r.deal_schneider


def test_SAN_MATCH_1_first_to_11_game_points() -> None:
    # Dealers: deal 1 seat 1; then the winner deals (SAN-DEAL-2).
    winners = [0, 1, 0, 0, 0]
    dealers = [1, 0, 1, 0, 0]
    m = make_match(V, 1, QUICK_HANDS, QUICK_TRUMP, QUICK_TALON, next_decks=[quick_deck(d) for d in dealers[1:]])
    m = quick3(m, 0)  # 3:0
    m = quick3(m, 1)  # 3:3
    m = quick3(m, 0)  # 6:3
    m = quick3(m, 0)  # 9:3
    assert m.game_points == [9, 3] and not m.over and m.winner == -1
    assert [r.winner for r in m.results] == winners[:4]
    m = quick2(m, 0)  # 11:3 -> match over
    assert m.game_points == [11, 3] and m.over and m.winner == 0
    with pytest.raises(MatchOverError):
        apply(m, "declare")



# --------------------------------------------------------------------------- OPEN-SAN options


def test_OPEN_SAN_1_nine_value_default_0() -> None:
    m = san(["AC", "KS", "JD", "QC", "JC", "9C"], ["TC", "QS", "9D", "JS", "9S", "TD"], "JH")
    assert m.rules.options["nine_value"] == 0
    m = play(m, "9C", "9S", "draw", "declare")  # a trick of two nines: 0 points
    assert res(m) == (1, (0, 3), (0, 0))


def test_OPEN_SAN_1_nine_value_alternative_2() -> None:
    opts = {"nine_value": 2}
    s0, s1 = ["AC", "KS", "JD", "QC", "JC", "9C"], ["TC", "QS", "9D", "JS", "9S", "TD"]
    m = play(san(s0, s1, "JH", options=opts), "9C", "9S", "draw", "declare")
    assert res(m) == (1, (0, 3), (4, 0))
    m = play(san(s0, s1, "JH", options=opts), "AC", "TC", "draw", "KS", "QS", "draw", "JD", "9D", "draw", "declare")
    assert res(m)[2] == (32, 0)  # 21 + 7 + (2 + 2)
    m = finish_deal(san(s0, s1, "JH", options=opts))
    assert sum(m.results[0].deal_points) == 138  # 128 card points + 10 last trick


def test_OPEN_SAN_2_close_min_talon_default_4() -> None:
    m = play(exh(), *EXH_T1_T5[:12])
    assert m.deal.talon_size == 4 and "close" in legal(m)
    m = play(m, *EXH_T1_T5[12:])
    assert m.deal.talon_size == 2
    assert_illegal(m, "close")


def test_OPEN_SAN_2_close_min_talon_alternative_2() -> None:
    m = play(exh({"close_min_talon": 2}), *EXH_T1_T5)
    assert m.deal.talon_size == 2 and "close" in legal(m)


def test_OPEN_SAN_2_close_min_talon_alternative_6() -> None:
    m = play(exh({"close_min_talon": 6}), *EXH_T1_T5[:9], "TS", "JD")
    assert legal(m) == {"close", "draw"}  # trick 4 won, talon 6 before the draw
    m = play(m, "draw")
    assert m.deal.talon_size == 4
    assert_illegal(m, "close")


@pytest.mark.parametrize(
    ("value", "no_trick_at_close", "trick_at_close"),
    [
        ("opponent_no_trick_at_close", 3, 2),  # default
        ("opponent_no_trick_at_end", 2, 2),
        ("never", 2, 2),
        ("always", 3, 3),
    ],
)
def test_OPEN_SAN_3_failed_close_three_if(value: str, no_trick_at_close: int, trick_at_close: int) -> None:
    opts = None if value == "opponent_no_trick_at_close" else {"failed_close_three_if": value}
    if opts is None:
        assert find_variant(V).configure().options["failed_close_three_if"] == value
    # CL-B: s1 had no trick when s0 closed, but won four tricks afterwards.
    m = play(san(CLB_S0, CLB_S1, "KH", options=opts), *CLB_PLAY)
    assert res(m) == (1, (0, no_trick_at_close), (36, 31))
    # CL-C: s1 had won trick 1 before the close.
    m = play(san(CLC_S0, CLC_S1, "AH", CLC_TOP, options=opts), *CLC_PLAY)
    assert res(m) == (1, (0, trick_at_close), (13, 39))


def test_OPEN_SAN_4_schneider_threshold_includes_marriages_default_true() -> None:
    m = play(san(SM4_S0, SM4_S1, "JH"), *SM4_PLAY, "declare")
    # s1: 21 card points + counted 20 = 41 >= 33 -> 1.
    assert res(m) == (0, (1, 0), (75, 41))


def test_OPEN_SAN_4_schneider_threshold_includes_marriages_alternative_false() -> None:
    opts = {"schneider_threshold_includes_marriages": False}
    m = play(san(SM4_S0, SM4_S1, "JH", options=opts), *SM4_PLAY, "declare")
    assert res(m)[:2] == (0, (2, 0))  # only s1's 21 card points count: < 33 -> 2


# DM: T1 AC/KC 15, T2 TC/QC 13 -> s0 28 and holds KH + QH (40 in trumps).
DM_S0 = ["AC", "TC", "KH", "QH", "9S", "9D"]
DM_S1 = ["KC", "QC", "JS", "JD", "9C", "TS"]
DM_PLAY = ["AC", "KC", "draw", "TC", "QC", "draw"]


def test_OPEN_SAN_5_declare_on_marriage_default_true() -> None:
    m = play(san(DM_S0, DM_S1, "JH"), *DM_PLAY)
    assert_illegal(play(m, "9S"), "declare")  # only at his own lead turn: not while s1 follows
    m = play(m, "announce H")
    assert legal(m) == {"play KH", "play QH", "declare"}
    m = play(m, "declare")  # 28 + 40 = 68 without leading a card
    assert res(m) == (0, (3, 0), (68, 0))


def test_OPEN_SAN_5_declare_on_marriage_alternative_false() -> None:
    m = play(san(DM_S0, DM_S1, "JH", options={"declare_on_marriage": False}), *DM_PLAY)
    assert "marriage KH" in legal(m)
    assert_illegal(m, "announce H")
    m = play(m, "marriage KH", "JS", "draw", "declare")  # T3 KH/JS +6: 28 + 40 + 6 = 74
    assert res(m) == (0, (3, 0), (74, 0))


def test_OPEN_SAN_6_marriage_after_talon_closed_default_true() -> None:
    m = play(exh(talon=EXH_M_TALON), *EXH_T1_T5, *EXH_T6)
    assert m.deal.talon_size == 0
    assert {"marriage KH", "marriage QH"} <= legal(m)


def test_OPEN_SAN_6_marriage_after_talon_closed_alternative_false() -> None:
    m = play(exh({"marriage_after_talon_closed": False}, talon=EXH_M_TALON), *EXH_T1_T5)
    assert {"marriage KH", "marriage QH"} <= legal(m)  # talon still open at trick 6
    m = play(m, *EXH_T6)
    assert not {a for a in legal(m) if a.startswith(("marriage", "announce"))}
    assert_illegal(m, "marriage KH")


def test_OPEN_SAN_7_marriage_leads_king_or_queen_of_that_suit() -> None:
    m = play(san(MAR_S0, MAR_S1, "JH"), "AC", "9C", "draw")
    king = play(m, "marriage KH")
    assert card_code(king.deal.lead_card) == "KH"
    queen = play(m, "marriage QH")
    assert card_code(queen.deal.lead_card) == "QH"
    announced = play(m, "announce H")
    with pytest.raises(IllegalActionError):
        apply(announced, "play JS")


def test_SAN_PLAY_3_information_set_hides_opponent_hand_and_talon() -> None:
    m = play(exh(), "AC", "JC", "draw")
    info = information_set(m, 0)
    json.dumps(info)
    assert set(info["deal"]["hand"]) == hand(m, 0)
    hidden = hand(m, 1) | {"9H", "9C", "AH", "KD", "KH", "QH", "QS", "QD", "JS"}  # + face-down talon
    assert not set(strings(info)) & hidden
    assert info["deal"]["trump_card"] == "JH"  # the face-up trump card is public

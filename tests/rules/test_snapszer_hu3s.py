"""``snapszer-hu-3p-sopron`` (docs/RULES.md §11) at deal level: explicit hands through
:meth:`SopronDeal.arrange`, then legal action sets, who acts, awards per seat, the multiplier and
the information sets. Every HU3S-* and OPEN-HU3S-* rule id has a test named after it.

Standard table: dealer 2, so the hívó is seat 0 and the fogadó players are seats 1 and 2; the
hívó's hand lists his first-round four cards first."""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from typing import Any

import pytest

from bummerl.rules import VariantSpec, find_variant
from bummerl.rules import actions as A
from bummerl.rules.base.actions import action_to_string, parse_action
from bummerl.rules.base.cards import card_code, cards_of, parse_card
from bummerl.rules.base.errors import IllegalActionError
from bummerl.rules.base.events import event_view
from bummerl.rules.deals.contract_hu import HuContractDeal, SopronDeal
from bummerl.rules.variants.snapszer_hu3s import SPEC

from .helpers import match_verdict, next_dealer_after_one_deal

# Scenario A: strong hívó in hearts.
A_HANDS = [
    ["AH", "TH", "KH", "QH", "JH", "AC", "TC", "JD"],
    ["AS", "TS", "KS", "QS", "JS", "KC"],
    ["QC", "JC", "AD", "TD", "KD", "QD"],
]
# Scenario B: the hívó loses one small trick (KC to seat 1's TC).
B_HANDS = [
    ["AH", "TH", "KH", "QH", "AC", "KC", "JS", "JD"],
    ["AS", "TS", "KS", "QS", "JH", "TC"],
    ["QC", "JC", "AD", "TD", "KD", "QD"],
]
# Scenario C: hívó in clubs and spades, seat 1 holds every heart.
C_HANDS = [
    ["AC", "TC", "KC", "QC", "JC", "AS", "TS", "KS"],
    ["AH", "TH", "KH", "QH", "JH", "AD"],
    ["QS", "JS", "TD", "KD", "QD", "JD"],
]
# Scenario D: weak hívó, strong fogadó players (seat 2 holds the trump marriage KH QH).
D_HANDS = [
    ["JC", "JS", "QC", "QS", "KC", "KS", "JD", "QD"],
    ["AC", "TC", "AS", "TS", "AH", "TH"],
    ["KH", "QH", "JH", "AD", "TD", "KD"],
]
# Scenario E: seat 2 holds the four alsó.
E_HANDS = [
    ["AC", "TC", "KC", "QC", "AS", "TS", "KS", "QS"],
    ["AH", "TH", "KH", "QH", "AD", "TD"],
    ["JC", "JS", "JH", "JD", "KD", "QD"],
]
# Scenario P: play obligations (both fogadó players void in diamonds, holding trumps).
P_HANDS = [
    ["QD", "JD", "AD", "TD", "KD", "AC", "TC", "KC"],
    ["AH", "TH", "QC", "JC", "AS", "TS"],
    ["KH", "QH", "JH", "KS", "QS", "JS"],
]

_SIMPLE = {"pass", "declare", "kontra", "rekontra", "subkontra", "mordkontra"}


def make(hands: Sequence[Sequence[str]], dealer: int = 2, options: dict[str, Any] | None = None,
         spec: VariantSpec = SPEC) -> HuContractDeal:
    rules = spec.configure(options or {})
    cls = spec.deal_class
    return cls.new(rules, cls.arrange(rules, dealer, hands), dealer)


def aid(text: str) -> int:
    t = text.strip()
    if " " not in t and t.lower() not in _SIMPLE:
        t = "play " + t
    return parse_action(t)


def legal(d: HuContractDeal) -> set[str]:
    return {action_to_string(a) for a in d.legal_actions()}


def act(d: HuContractDeal, *texts: str) -> HuContractDeal:
    """Apply actions (``"QH"`` alone = ``play QH``), each checked legal first."""
    for t in texts:
        a = aid(t)
        assert a in d.legal_actions(), f"{t!r} not legal for seat {d.to_act}: {sorted(legal(d))}"
        d.step(a)
    return d


def hand(d: HuContractDeal, seat: int) -> set[str]:
    return set(d.view(seat)["hand"])


def norm(texts: Sequence[str]) -> set[str]:
    return {action_to_string(aid(t)) for t in texts}


def bids(*names: str) -> set[str]:
    return {f"bid {n}" for n in names}


def to_play(hands: Sequence[Sequence[str]], bid: str = "mehet", trump: str = "H",
            discards: Sequence[str] | None = None, **options: Any) -> HuContractDeal:
    """Deal, name ``trump``, lay away ``discards`` (default: the hívó's last two cards), bid,
    both fogadó players pass (and no multiplier where one is offered)."""
    d = make(hands, options=options)
    if d.phase == "trump":
        act(d, f"trump {trump}")
    act(d, *(f"discard {c}" for c in (discards or hands[0][-2:])))
    act(d, f"bid {bid}")
    while d.phase != "lead":
        act(d, "pass")
    return d


def awards(d: HuContractDeal) -> list[int]:
    assert d.outcome is not None
    return list(d.outcome.awards)


# ---------------------------------------------------------------- seating and deal
@pytest.mark.parametrize("dealer", [0, 1, 2])
def test_HU3S_SEAT_1_hivo_is_left_of_dealer_and_rotates_clockwise(dealer: int) -> None:
    hands = [A_HANDS[(s - dealer - 1) % 3] for s in range(3)]
    d = make(hands, dealer=dealer)
    assert d.hivo == (dealer + 1) % 3 == d.to_act
    assert d.phase == "trump"
    assert len(hand(d, d.hivo)) == 4
    assert next_dealer_after_one_deal(SPEC.id, dealer) == (dealer + 1) % 3


def test_HU3S_DEAL_1_four_three_three_twice() -> None:
    d = make(A_HANDS)
    # first round: hívó 4 (his first four), the others 3 each
    assert hand(d, 0) == {"AH", "TH", "KH", "QH"}
    assert hand(d, 1) == {"AS", "TS", "KS"}
    assert hand(d, 2) == {"QC", "JC", "AD"}
    act(d, "trump H")
    assert [len(hand(d, s)) for s in range(3)] == [8, 6, 6]
    for s in range(3):
        assert hand(d, s) == set(A_HANDS[s])
    # arrange is the inverse of the deal (SRV-1): the deck order, top first
    rules = SPEC.configure()
    deck = SopronDeal.arrange(rules, 2, A_HANDS)
    assert [card_code(c) for c in deck[:4]] == ["AH", "TH", "KH", "QH"]
    assert [card_code(c) for c in deck[4:7]] == ["AS", "TS", "KS"]
    with pytest.raises(ValueError):
        SopronDeal.arrange(rules, 2, [A_HANDS[0][:7], A_HANDS[1], A_HANDS[2]])


def test_HU3S_DEAL_2_hivo_names_trump_after_four_cards() -> None:
    d = make(A_HANDS)
    assert legal(d) == {"trump C", "trump S", "trump H", "trump D"}
    with pytest.raises(IllegalActionError):
        d.step(A.PASS)
    act(d, "trump S")
    assert d.trump == 1 and d.view(1)["trump_suit"] == "S"
    assert d.history[1] == ("trump", 0, 1)
    # trump_always_hearts: nobody names it; the hívó goes straight to laying away
    d = make(A_HANDS, options={"trump_always_hearts": True})
    assert d.phase == "discard" and d.trump == 2 and len(hand(d, 0)) == 8


def test_OPEN_HU3S_7_trump_choice_any_suit_or_held_suit() -> None:
    d = make(A_HANDS)  # first four are all hearts; any suit may still be named by default
    assert len(legal(d)) == 4
    d = make(A_HANDS, options={"trump_must_be_held": True})
    assert legal(d) == {"trump H"}
    assert SPEC.configure().options["trump_always_hearts"] is False


def test_HU3S_TAL_1_hivo_lays_away_two_hidden_cards_counting_for_him() -> None:
    d = make(A_HANDS)
    act(d, "trump H")
    assert d.phase == "discard" and d.to_act == 0
    assert len(legal(d)) == 8 and all(t.startswith("discard") for t in legal(d))
    act(d, "discard TC")
    assert d.to_act == 0 and d.view(0)["laid_away"] == ["TC"]
    act(d, "discard JD")
    assert len(hand(d, 0)) == 6 and set(d.view(0)["laid_away"]) == {"TC", "JD"}
    assert d.view(1)["laid_away"] == [] and d.view(2)["laid_away"] == []
    assert event_view(d.history[-1], 0) == {"version": 0, "deal_number": 0, "cards_laid_away": {"seat": 0, "count": 2}}
    assert d.phase == "bidding" and d.to_act == 0
    act(d, "bid mehet", "pass", "pass")
    assert d.side_trick_points(d.side[0]) == 12  # laid-away cards count, no trick won (DEF-PTS-1)
    assert d.tricks_won == [0, 0, 0]


def test_OPEN_HU3S_1_laid_away_cards_count_for_owner_or_as_configured() -> None:
    d = to_play(A_HANDS, discards=["TC", "JD"])
    assert d.side_trick_points(0) == 12 and d.side_trick_points(1) == 0
    d = to_play(A_HANDS, discards=["TC", "JD"], talon_discards_count_for="nobody")
    assert d.side_trick_points(0) == 0
    d = to_play(A_HANDS, discards=["TC", "JD"], talon_discards_count_for="defenders")
    assert d.side_trick_points(1) == 12
    assert SPEC.configure().options["talon_discards_count_for"] == "owner"


# ---------------------------------------------------------------- announcements
def test_HU3S_BID_1_hivo_announces_or_says_mehet() -> None:
    d = make(A_HANDS)
    act(d, "trump H", "discard TC", "discard JD")
    assert legal(d) == bids("mehet", "snapszer", "kilences", "paraszt")
    act(d, "bid mehet")
    assert d.to_act == 1 and event_view(d.history[-1], 0)["bid"] == {"seat": 0, "call": "mehet"}


def test_HU3S_BID_2_each_fogado_once_strictly_higher_replaces() -> None:
    d = make(A_HANDS)
    act(d, "trump H", "discard TC", "discard JD", "bid snapszer")
    # fogadó 1: pass, kontra (taking up), or a higher announcement
    assert legal(d) == {"pass", "kontra"} | bids("kilences", "ellensnapszer", "ellenparaszt")
    act(d, "bid kilences")
    assert d.to_act == 2
    # kilences (9) stands: only strictly higher ones; no kontra against a fogadó contract here
    assert legal(d) == {"pass"} | bids("ellensnapszer", "ellenparaszt")
    act(d, "pass")
    assert d.contract == "kilences" and d.declarer == 1
    # the hívó may now kontra the fogadó contract (plain call)
    assert d.phase == "kontra" and d.to_act == 0 and legal(d) == {"pass", "kontra"}
    # paraszt (12): ellensnapszer (12) is not higher
    d = make(A_HANDS)
    act(d, "trump H", "discard TC", "discard JD", "bid paraszt")
    assert legal(d) == {"pass", "kontra", "bid ellenparaszt"}


def test_OPEN_HU3S_3_kontra_lapses_when_the_contract_is_replaced() -> None:
    d = make(A_HANDS)
    act(d, "trump H", "discard TC", "discard JD", "bid mehet", "kontra")
    assert d.level == 1 and d.phase == "discard" and d.to_act == 1
    act(d, "discard KC", "discard JS")
    assert d.to_act == 2
    act(d, "bid ellensnapszer")
    assert d.level == 0 and d.contract == "ellensnapszer"
    # the cards taken up stay with seat 1; the multiplier sequence starts afresh (hívó first)
    assert {"TC", "JD"} <= hand(d, 1) and set(d.view(1)["laid_away"]) == {"KC", "JS"}
    assert d.to_act == 0 and legal(d) == {"pass", "kontra"}
    act(d, "pass")
    assert d.phase == "lead" and d.multiplier == 1


# ---------------------------------------------------------------- contracts
def test_HU3S_CON_1_snapszer_made_at_66_by_marriage_and_defeated_by_a_trick() -> None:
    d = to_play(A_HANDS, bid="snapszer", discards=["TC", "JD"])
    act(d, "AH", "AS", "AD")  # 33 + 12 laid away = 45
    assert not d.over and d.leader == 0
    act(d, "marriage KH")  # +40 = 85: decided at once (SRV-3), no card led
    assert d.over and awards(d) == [6, 0, 0]
    assert d.outcome is not None and d.outcome.reason == "contract_made" and d.outcome.winner == 0
    # defeat: the hívó loses a trick -> each fogadó player +6
    d = to_play(D_HANDS, bid="snapszer", discards=["KC", "KS"])
    act(d, "QC", "AC", "JH")
    assert d.over and awards(d) == [0, 6, 6] and d.outcome is not None and d.outcome.winner == -1


def test_HU3S_CON_2_kilences_has_no_trump() -> None:
    d = make(C_HANDS, options={"defender_contract_first_lead": "announcer"})
    act(d, "trump C", "discard TS", "discard KS", "bid mehet", "bid kilences", "pass", "pass")
    assert d.trump == -1 and d.to_act == 1
    act(d, "AH", "QS")
    # the hívó is void in hearts and holds clubs (named trump): no obligation to trump, any card
    assert legal(d) == norm(["AC", "TC", "KC", "QC", "JC", "AS"])
    act(d, "JC")
    assert d.tricks_won == [0, 1, 0]  # the club does not win
    assert d.history[-1][0] == "trick" and d.history[-1][1] == 1


def test_HU3S_CON_3_paraszt_all_tricks_with_trump() -> None:
    d = to_play(A_HANDS, bid="paraszt", discards=["TC", "JD"])
    assert d.trump == 2 and not legal(d) & {"marriage KH", "declare"}
    act(d, "AH", "AS", "AD", "TH", "TS", "TD", "KH", "KS", "KD", "QH", "QS", "QD", "JH", "JS", "QC", "AC", "KC", "JC")
    assert d.over and awards(d) == [12, 0, 0] and d.outcome is not None and d.outcome.reason == "contract_made"
    d = to_play(D_HANDS, bid="paraszt", discards=["KC", "KS"])
    act(d, "QC", "AC", "JH")
    assert d.over and awards(d) == [0, 12, 12]


def test_HU3S_CON_4_base_game_three_two_one() -> None:
    # 3: the fogadó side declares with the hívó trickless
    d = to_play(D_HANDS, discards=["KC", "KS"])
    act(d, "QC", "AC", "JH", "marriage KH", "QS", "AH")  # 16 + 18 + 40 = 74 for the fogadó side
    assert d.to_act == 1 and "declare" in legal(d)
    act(d, "declare")
    assert awards(d) == [0, 3, 3] and d.outcome is not None and d.outcome.reason == "declared"
    # 2: the fogadó side takes one trick worth 16 (< 33); the hívó declares at 79
    d = to_play(B_HANDS, discards=["JS", "JD"])
    act(d, "AH", "JH", "QD", "KC", "TC", "JC", "AS", "KD", "QH", "AC", "KS", "QC", "TH", "QS", "TD")
    assert d.side_points(0) == 79 and d.side_trick_points(1) == 16
    act(d, "declare")
    assert awards(d) == [2, 0, 0] and d.outcome is not None and d.outcome.winner == 0
    d2 = to_play(A_HANDS, discards=["TC", "JD"])  # the hívó wins everything and plays it out
    act(d2, "AH", "AS", "AD", "TH", "TS", "TD", "KH", "KS", "KD", "QH", "QS", "QD", "JH", "JS", "QC", "AC", "KC", "JC")
    assert awards(d2) == [3, 0, 0] and d2.outcome is not None and d2.outcome.reason == "last_trick"


def test_HU3S_CON_4_table_points_counts_laid_away_not_marriages() -> None:
    d = to_play(D_HANDS, discards=["KC", "KS"])
    act(d, "QC", "AC", "JH")
    assert d.table_points(0) == 3  # no trick: 3 although 8 laid-away points count for the hívó
    d.tricks_won[0] = 1  # a trick worth nothing: 8 < 33
    assert d.table_points(0) == 2
    d.trick_points[0] = 25  # 25 + 8 laid away = 33
    assert d.table_points(0) == 1
    d.marriage_points[1] = 40
    assert d.table_points(1) == 2  # marriages never count toward the 33 line


def test_HU3S_CON_5_four_also_ends_the_deal() -> None:
    d = make(E_HANDS)
    act(d, "trump C", "discard QS", "discard KS", "bid snapszer", "kontra", "discard KS", "discard QS")
    assert d.to_act == 2 and "bid negyalso" in legal(d)
    act(d, "bid negyalso")
    assert d.over and awards(d) == [0, 0, 13] and d.level == 0
    assert d.outcome is not None and d.outcome.winner == 2 and d.outcome.reason == "four_jacks"
    shown = event_view(d.history[-1], 0)["cards_shown"]
    assert set(shown["cards"]) == {"JC", "JS", "JH", "JD"}
    # the hívó holding all four alsó after laying away may announce it first
    hands = [["JC", "JS", "JH", "JD", "AC", "TC", "KC", "QC"], ["AH", "TH", "KH", "QH", "AD", "TD"],
             ["AS", "TS", "KS", "QS", "KD", "QD"]]
    d = make(hands)
    act(d, "trump C", "discard KC", "discard QC")
    assert "bid negyalso" in legal(d)
    d = make(hands)
    act(d, "trump C", "discard JD", "discard QC")
    assert "bid negyalso" not in legal(d)


def test_OPEN_HU3S_6_four_jacks_ends_deal_option() -> None:
    d = make(E_HANDS, options={"four_jacks_ends_deal": False})
    act(d, "trump C", "discard QS", "discard KS", "bid mehet", "pass", "bid negyalso")
    assert not d.over and d.to_act == 2 and "bid negyalso" not in legal(d)  # shown once, then his turn
    act(d, "pass")
    assert d.phase == "lead"
    while not d.over:
        d.step(d.legal_actions()[0])
    base = list(d.outcome.awards) if d.outcome else []
    assert base[2] >= 13  # the 13 are credited on top of the deal's result


def test_HU3S_CON_6_ellensnapszer_made_and_defeated() -> None:
    d = make(D_HANDS)
    act(d, "trump H", "discard KC", "discard KS", "bid mehet", "bid ellensnapszer", "pass", "pass")
    assert d.side == [1, 0, 0] and d.declarer == 1 and d.to_act == 0
    act(d, "QC", "AC", "JH", "marriage KH", "QS", "AH")  # 16 + 40 + 18 = 74, hívó trickless
    assert d.over and awards(d) == [0, 12, 12] and d.outcome is not None and d.outcome.reason == "contract_made"
    d = make(C_HANDS)
    act(d, "trump C", "discard TS", "discard KS", "bid mehet", "bid ellensnapszer", "pass", "pass")
    act(d, "AC", "AD", "QS")
    assert d.over and awards(d) == [12, 0, 0] and d.outcome is not None and d.outcome.winner == 0


def test_HU3S_CON_7_ellenparaszt_partner_trick_defeats() -> None:
    d = make(D_HANDS)
    act(d, "trump H", "discard KC", "discard KS", "bid mehet", "bid ellenparaszt", "pass", "pass")
    assert d.value == 24
    act(d, "QC", "AC", "JH")  # the other fogadó player must trump and takes the trick
    assert d.over and awards(d) == [24, 0, 0] and d.outcome is not None and d.outcome.reason == "contract_defeated"


def test_HU3S_CON_8_fogado_kilences() -> None:
    d = make(C_HANDS, options={"defender_contract_first_lead": "announcer"})
    act(d, "trump C", "discard TS", "discard KS", "bid mehet", "bid kilences", "pass", "pass")
    act(d, "AH", "QS", "JC", "TH", "JS", "QC", "KH", "TD", "KC", "QH", "KD", "TC", "JH", "QD", "AS", "AD", "JD", "AC")
    assert d.over and awards(d) == [0, 9, 9] and d.tricks_won == [0, 6, 0]


def test_HU3S_CON_9_credit_hivo_alone_or_each_fogado() -> None:
    d = to_play(A_HANDS, bid="paraszt", discards=["TC", "JD"])
    d.level = 2
    act(d, "AH", "AS", "AD", "TH", "TS", "TD", "KH", "KS", "KD", "QH", "QS", "QD", "JH", "JS", "QC", "AC", "KC", "JC")
    assert awards(d) == [48, 0, 0] and d.outcome is not None and d.outcome.game_points == 48
    d = make(C_HANDS)  # a failed fogadó contract credits the hívó
    act(d, "trump C", "discard TS", "discard KS", "bid mehet", "bid kilences", "pass", "pass")
    act(d, "AC", "AD", "QS")
    assert awards(d) == [9, 0, 0]


def test_OPEN_HU3S_5_fogado_side_pools_points_each_credited() -> None:
    d = to_play(D_HANDS, discards=["KC", "KS"])
    act(d, "QC", "AC", "JH")
    assert d.side == [0, 1, 1]
    assert d.side_points(1) == 16 and d.tricks_won == [0, 0, 1]  # seat 2's trick counts for seat 1 too
    act(d, "marriage KH", "QS", "AH", "declare")
    assert awards(d) == [0, 3, 3]


# ---------------------------------------------------------------- play
def test_HU3S_LEAD_1_hivo_leads_every_contract() -> None:
    for bid in ("mehet", "snapszer", "kilences", "paraszt"):
        d = to_play(A_HANDS, bid=bid, discards=["TC", "JD"])
        assert d.to_act == 0 and d.leader == 0 and d.phase == "lead"
    d = make(C_HANDS)
    act(d, "trump C", "discard TS", "discard KS", "bid mehet", "bid kilences", "pass", "pass")
    assert d.to_act == 0 and d.phase == "lead"
    act(d, "AC", "AD", "QS")
    assert d.over  # the hívó's trick defeats the fogadó kilences


def test_OPEN_HU3S_4_defender_contract_first_lead_option() -> None:
    d = make(C_HANDS, options={"defender_contract_first_lead": "announcer"})
    act(d, "trump C", "discard TS", "discard KS", "bid mehet", "pass", "bid ellensnapszer", "pass")
    assert d.to_act == 2 and d.phase == "lead"
    assert SPEC.configure().options["defender_contract_first_lead"] == "hivo"


def test_HU3S_PLAY_1_strict_from_the_first_trick() -> None:
    d = to_play(D_HANDS, discards=["KC", "KS"])
    act(d, "QC")
    assert legal(d) == {"play AC", "play TC"}  # follow and head
    act(d, "TC")
    assert legal(d) == {"play KH", "play QH", "play JH"}  # void: must trump


def test_OPEN_HU3S_8_void_must_trump_option() -> None:
    d = to_play(P_HANDS, discards=["AC", "TC"])
    act(d, "QD", "AH")
    assert legal(d) == {"play KH", "play QH", "play JH"}  # under-trumping is compulsory
    d = to_play(P_HANDS, discards=["AC", "TC"], void_must_trump="only_if_winning")
    act(d, "QD", "AH")
    assert legal(d) == norm(["KH", "QH", "JH", "KS", "QS", "JS"])


def test_HU3S_MAR_1_marriages_in_base_snapszer_ellensnapszer_only() -> None:
    for bid, offered in (("mehet", True), ("snapszer", True), ("kilences", False), ("paraszt", False)):
        d = to_play(A_HANDS, bid=bid, discards=["TC", "JD"])
        assert ("marriage KH" in legal(d)) is offered, bid
    d = to_play(A_HANDS, discards=["TC", "JD"])
    act(d, "marriage QH")
    assert d.view(1)["marriages"] == [{"seat": 0, "suit": "H", "points": 40, "counted": False}]


def test_OPEN_HU3S_9_marriage_pending_until_side_trick() -> None:
    d = to_play(D_HANDS, discards=["KC", "KS"])
    act(d, "QC", "AC", "JH", "marriage KH")
    assert d.side_points(1) == 56  # counted: the side has a trick (seat 2's)
    d = to_play(A_HANDS, discards=["TC", "JD"])
    act(d, "marriage KH")
    assert d.side_points(0) == 12  # pending: no trick yet


def test_HU3S_DECL_1_false_elég_is_renonsz_times_multiplier() -> None:
    d = to_play(D_HANDS, discards=["KC", "KS"])
    act(d, "QC", "AC", "JH")
    assert "declare" in legal(d)  # offered; the points are not checked for the player
    d.level = 1
    act(d, "declare")
    assert awards(d) == [6, 0, 0] and d.outcome is not None and d.outcome.reason == "false_declaration"
    d = to_play(D_HANDS, discards=["KC", "KS"], false_declaration_penalty="reject")
    act(d, "QC", "AC", "JH")
    assert "declare" not in legal(d)
    # no "elég" before the side has a trick
    d = to_play(A_HANDS, discards=["TC", "JD"])
    assert "declare" not in legal(d)


def test_OPEN_HU3S_10_last_trick_decides_without_elég() -> None:
    rng = random.Random(7)
    rules = SPEC.configure()
    seen_rich_loser = 0
    for _ in range(400):
        deck = list(rules.deck)
        rng.shuffle(deck)
        d = SopronDeal.new(rules, deck, 2)
        while not d.over:
            acts = [a for a in d.legal_actions() if a != A.DECLARE]
            if d.phase == "bidding" and d.state["stage"] == "hivo":
                acts = [A.bid_id("mehet")]
            elif d.phase in ("bidding", "kontra"):
                acts = [A.PASS]
            d.step(rng.choice(acts))
        o = d.outcome
        assert o is not None and o.reason == "last_trick"
        win = d.side[d.leader]
        assert [s for s in range(3) if o.awards[s]] == d.side_seats(win)
        assert o.game_points == d.table_points(1 - win)
        if d.side_points(1 - win) >= 66:
            seen_rich_loser += 1
    assert seen_rich_loser > 0  # an undeclared 66 does not win


# ---------------------------------------------------------------- kontra
def test_HU3S_KON_2_kontra_takes_up_laid_away_cards() -> None:
    d = make(A_HANDS)
    act(d, "trump H", "discard TC", "discard JD", "bid mehet")
    assert d.view(1)["hand"] and "TC" not in hand(d, 1)
    act(d, "kontra")
    assert hand(d, 1) >= {"TC", "JD"} and len(hand(d, 1)) == 8
    assert d.view(0)["laid_away"] == [] and d.level == 1
    # the hívó still knows the two cards he laid away; nobody else is told which they were
    assert set(d.view(0)["laid_away_taken_up"]) == {"TC", "JD"}
    assert d.view(1)["laid_away_taken_up"] == [] and d.view(2)["laid_away_taken_up"] == []
    assert [event_view(e, 0) for e in d.history[-2:]] == [
        {"version": 0, "deal_number": 0, "bid": {"seat": 1, "call": "kontra"}},
        {"version": 0, "deal_number": 0, "cards_taken_up": {"seat": 1, "count": 2}}]
    assert all(t.startswith("discard") for t in legal(d)) and len(legal(d)) == 8
    act(d, "discard KC", "discard TC")
    assert set(d.view(1)["laid_away"]) == {"KC", "TC"} and d.view(2)["laid_away"] == []
    assert set(d.view(0)["laid_away_taken_up"]) == {"TC", "JD"}  # kept after the taker lays away
    assert "TC" not in d.view(2)["hand"] and d.view(2)["hand_sizes"] == [6, 6, 6]
    assert d.to_act == 2 and "kontra" not in legal(d)  # only one fogadó player can take them up
    act(d, "pass")
    assert d.phase == "kontra" and d.to_act == 0 and legal(d) == {"pass", "rekontra"}
    # the laid-away KC TC (14) now count for the fogadó side (the owner's)
    act(d, "pass")
    assert d.side_trick_points(1) == 14 and d.side_trick_points(0) == 0 and d.multiplier == 2


def test_HU3S_KON_1_ladder_alternates_up_to_x16() -> None:
    d = make(A_HANDS)
    act(d, "trump H", "discard TC", "discard JD", "bid mehet", "kontra", "discard KC", "discard JS", "pass")
    act(d, "rekontra")
    assert d.to_act == 1 and legal(d) == {"pass", "subkontra"}
    act(d, "pass")
    assert d.to_act == 2 and legal(d) == {"pass", "subkontra"}  # either fogadó player, clockwise
    act(d, "subkontra")
    assert d.to_act == 0 and legal(d) == {"pass", "mordkontra"}
    act(d, "mordkontra")
    assert d.phase == "lead" and d.multiplier == 16 and d.to_act == 0
    assert event_view(d.history[-1], 0)["contract"]["kontra_level"] == 4
    # the hívó's contract without a take-up: no plain kontra later
    d = make(A_HANDS)
    act(d, "trump H", "discard TC", "discard JD", "bid mehet", "pass", "pass")
    assert d.phase == "lead" and d.multiplier == 1


def test_OPEN_HU3S_2_max_kontra_level() -> None:
    d = make(A_HANDS, options={"max_kontra_level": 2})
    act(d, "trump H", "discard TC", "discard JD", "bid mehet", "kontra", "discard KC", "discard JS", "pass", "rekontra")
    assert d.phase == "lead" and d.multiplier == 4
    d = make(A_HANDS, options={"max_kontra_level": 0})
    act(d, "trump H", "discard TC", "discard JD", "bid mehet")
    assert "kontra" not in legal(d)
    assert SPEC.configure().options["max_kontra_level"] == 4


# ---------------------------------------------------------------- match
def test_HU3S_MATCH_1_first_to_the_limit() -> None:
    assert match_verdict(SPEC.id, [30, 12, 5]) == (False, -1, ())
    assert match_verdict(SPEC.id, [36, 12, 5]) == (True, 0, ())
    assert match_verdict(SPEC.id, [20, 35, 39]) == (True, 2, ())


def test_OPEN_HU3S_11_limit_33_and_simultaneous_arrival() -> None:
    assert SPEC.configure().options["match_target"] == 33
    assert match_verdict(SPEC.id, [20, 36, 36]) == (False, -1, (1, 2))  # one snapszer-hu-2p deal decides


# ---------------------------------------------------------------- information sets, playouts
def play_random(d: HuContractDeal, rng: random.Random) -> None:
    """A random legal playout that picks an action kind first (so that contracts and kontra
    calls are all reached), then an action of that kind."""
    while not d.over:
        acts = d.legal_actions()
        kinds: dict[str, list[int]] = {}
        for a in acts:
            kinds.setdefault(A.action_kind(a), []).append(a)
        if d.phase == "lead" and A.DECLARE in acts and rng.random() < 0.8:
            kinds.pop("declare")
        d.step(rng.choice(kinds[rng.choice(sorted(kinds))]))


def check_outcome(d: HuContractDeal) -> None:
    o = d.outcome
    assert o is not None and len(o.awards) == d.n
    pts = d.rules.points
    cards = sum(d.trick_points) + sum(pts[c] for s in range(d.n) for c in cards_of(d.laid_away[s]))
    in_hand = sum(pts[c] for s in range(d.n) for c in cards_of(d.hands[s]))
    in_trick = sum(pts[c] for _, c in d.trick)
    assert cards + in_hand + in_trick == 120
    if o.reason == "four_jacks":
        assert sorted(o.awards, reverse=True)[0] == 13
        return
    credited = [s for s in range(d.n) if o.awards[s]]
    assert credited and all(o.awards[s] == o.game_points for s in credited)
    assert o.game_points % d.multiplier == 0
    base = o.game_points // d.multiplier
    if o.reason in ("contract_made", "contract_defeated"):
        assert base == d.value
        side = 0 if o.reason == "contract_made" else 1
        assert credited == d.side_seats(side)
    else:
        assert d.contract == "mehet" and 1 <= base <= 3
    if not d.rules.spec.teams:
        assert o.winner == (credited[0] if credited == [d.hivo] else -1)


@pytest.mark.parametrize("spec_id", ["snapszer-hu-3p-sopron"])
def test_random_playouts_end_consistently(spec_id: str) -> None:
    random_playouts(SPEC, 3000)


def random_playouts(spec: VariantSpec, n: int) -> None:
    rng = random.Random(2024)
    rules = spec.configure()
    seen: set[tuple[str, str]] = set()
    levels: set[int] = set()
    for i in range(n):
        deck = list(rules.deck)
        rng.shuffle(deck)
        d = spec.deal_class.new(rules, deck, i % spec.num_players)
        if i % 50 == 0:  # snapshot round trip mid-way
            for _ in range(rng.randrange(12)):
                if not d.over:
                    d.step(rng.choice(d.legal_actions()))
            d = spec.deal_class.from_snapshot(rules, json.loads(json.dumps(d.to_snapshot())))
        play_random(d, rng)
        check_outcome(d)
        seen.add((d.contract, d.outcome.reason if d.outcome else ""))
        levels.add(d.level)
    contracts = {c for c, _ in seen}
    assert contracts >= {"mehet", "snapszer", "kilences", "paraszt", "ellensnapszer", "ellenparaszt"}
    assert levels == {0, 1, 2, 3, 4}


def hidden_from(d: HuContractDeal, seat: int) -> list[tuple[int, int]]:
    """(holder, card) of the cards in other seats' hands (at the start of play)."""
    return [(s, c) for s in range(d.n) if s != seat for c in cards_of(d.hands[s])]


def no_leak(spec: VariantSpec, n_deals: int) -> None:
    """Two deals that differ only in cards hidden from seat ``s`` (swapped between two other
    hands) give ``s`` identical views and event dicts while both follow the same actions."""
    rng = random.Random(99)
    rules = spec.configure()
    cls = spec.deal_class
    n = spec.num_players
    compared = 0
    for i in range(n_deals):
        dealer = i % n
        deck = list(rules.deck)
        rng.shuffle(deck)
        d1 = cls.new(rules, deck, dealer)
        seat = rng.randrange(n)
        # the final hands, then two cards of two other seats swapped
        full = cls.new(rules, deck, dealer)
        if full.phase == "trump":
            full.step(full.legal_actions()[0])
        hands = [cards_of(full.hands[s]) for s in range(n)]
        # keep each hand's round order: rebuild from the deck order
        order = {c: k for k, c in enumerate(deck)}
        hands = [sorted(h, key=order.__getitem__) for h in hands]
        others = [s for s in range(n) if s != seat]
        a, b = rng.sample(others, 2)
        ia, ib = rng.randrange(len(hands[a])), rng.randrange(len(hands[b]))
        hands[a][ia], hands[b][ib] = hands[b][ib], hands[a][ia]
        d2 = cls.new(rules, cls.arrange(rules, dealer, hands), dealer)
        while not d1.over and not d2.over:
            assert d1.view(seat) == d2.view(seat)
            compared += 1
            common = [x for x in d1.legal_actions() if x in set(d2.legal_actions())]
            if not common:
                break
            x = rng.choice(common)
            d1.step(x)
            d2.step(x)
    assert compared > n_deals * 5


def test_no_leak_hidden_cards_give_identical_views_sopron() -> None:
    no_leak(SPEC, 600)


def test_information_set_partner_and_laid_away_hidden() -> None:
    d = make(A_HANDS)
    act(d, "trump H", "discard TC", "discard JD")
    v1 = d.view(1)
    assert set(v1["hand"]) == set(A_HANDS[1]) and v1["laid_away"] == []
    assert "TC" not in json.dumps(v1) and "JD" not in json.dumps([event_view(e, 0) for e in d.history])
    assert v1["hand_sizes"] == [6, 6, 6]
    assert d.view(0)["laid_away"] == ["TC", "JD"] or set(d.view(0)["laid_away"]) == {"TC", "JD"}


def test_copy_is_independent() -> None:
    d = make(A_HANDS)
    act(d, "trump H", "discard TC")
    e = d.copy()
    act(e, "discard JD", "bid mehet")
    assert d.phase == "discard" and d.state["discard_left"] == 1 and e.phase == "bidding"
    assert parse_card("JD") in cards_of(d.hands[0])


def test_OPEN_GEN_6_may_view_own_tricks_in_the_soproni_deal_view() -> None:
    """OPEN-GEN-6: off by default (no ``own_tricks`` in the view); switched on, each seat sees its
    own won cards and trick points, nobody else's. The hívó's AC takes TC and JC: 11 + 10 + 2."""
    d = act(to_play(B_HANDS, may_view_own_tricks=True), "AC", "TC", "JC")
    own = d.view(0)["own_tricks"]
    assert set(own["won_cards"]) == {"AC", "TC", "JC"} and (own["trick_points"], own["deal_points"]) == (23, 23)
    assert d.view(1)["own_tricks"] == {"trick_points": 0, "won_cards": [], "deal_points": 0}
    assert "own_tricks" not in act(to_play(B_HANDS), "AC", "TC", "JC").view(0)
    assert find_variant("snapszer-hu-4p").option_spec("may_view_own_tricks").default is False  # inherited (HU4-INH-1)

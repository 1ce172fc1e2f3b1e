"""Common definitions (docs/RULES.md §1: DEF-*), server conventions (SRV-*), cross-variant OPEN items
(OPEN-GEN-*), action id/text/struct round trips, option validation and purity of ``apply``.

Scenario deals come from :mod:`tests.rules.test_schnapsen_at` (derivations are there); the
two-player rules under test are the same in every trick-and-draw variant.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys

import pytest

from bummerl.rules import (
    DealState,
    IllegalActionError,
    InvalidActionError,
    InvalidOptionError,
    MatchOverError,
    MatchState,
    RulesError,
    UnknownVariantError,
    action_struct,
    action_to_string,
    apply,
    find_variant,
    information_set,
    legal_actions,
    list_variants,
    new_match,
    parse_action,
    parse_struct,
)
from bummerl.rules import cards as K
from bummerl.rules.base.actions import NUM_ACTIONS
from bummerl.rules.deals.talon import arrange_deck
from bummerl.rules.match.state import deal_deck

from .helpers import (
    assert_illegal,
    codes,
    events_of,
    fill_deal,
    finish_deal,
    first_legal,
    hand,
    legal,
    make_match,
    play,
)
from .test_schnapsen_at import (
    C_ACTIONS,
    D2,
    D2A,
    D2B,
    D3,
    D3_ACTIONS,
    MN,
    MN_ACTIONS,
    SW,
    SW_ACTIONS,
    C,
    E,
    M,
)

AT = "schnapsen-at"
O66 = "snaps-original66"
TWO_PLAYER = [v for v in list_variants() if v.num_players == 2]  # the others: test_multiplayer.py
VARIANTS = [v.id for v in TWO_PLAYER]


def at(deal, options=None, start=None, dealer=1, **kw) -> MatchState:
    hands, trump, tal = deal
    return make_match(AT, dealer, hands, trump, tal, options, start, **kw)


def random_playout(m: MatchState, rng: random.Random, steps: int) -> list[MatchState]:
    """States along a random playout (at most ``steps`` actions)."""
    out = [m]
    for _ in range(steps):
        if m.over:
            break
        m = apply(m, rng.choice(legal_actions(m)))
        out.append(m)
    return out


# --------------------------------------------------------------------------- §1.1 cards
def test_DEF_CARD_1_suit_ids_and_local_names():
    assert K.SUITS == "CSHD"
    assert [K.parse_suit(s) for s in "CSHD"] == [0, 1, 2, 3]
    table = {
        "de": ("Eichel", "Grün", "Herz", "Schellen"),
        "hu": ("makk", "zöld", "piros", "tök"),
        "hr": ("tref", "pik", "herc", "karo"),
        "bg": ("спатия", "пика", "купа", "каро"),
    }
    for lang, names in table.items():
        for s, name in enumerate(names):
            assert K.local_name(K.card(s, K.ACE), lang).startswith(name), (lang, s)
    assert K.local_name(K.parse_card("QH"), "en") == "queen of hearts"


def test_DEF_CARD_2_ranks():
    assert K.RANKS == "ATKQJ9"
    assert K.parse_card("10H") == K.parse_card("TH") == K.parse_card("th")
    assert K.local_name(K.parse_card("QS"), "de").endswith("Ober")
    assert K.local_name(K.parse_card("JS"), "de").endswith("Unter")
    for v in TWO_PLAYER:
        ranks = {K.RANKS[c % 6] for c in v.deck}
        assert ranks == (set("ATKQJ9") if len(v.deck) == 24 else set("ATKQJ")), v.id
    with pytest.raises(InvalidActionError):
        K.parse_card("XH")


def test_DEF_CARD_3_card_points_total_120():
    assert K.RANK_POINTS == (11, 10, 4, 3, 2, 0)
    for v in TWO_PLAYER:
        r = v.configure()
        assert sum(r.points[c] for c in r.deck) == 120, v.id
        assert {K.RANKS[c % 6]: r.points[c] for c in r.deck} == \
            {"A": 11, "T": 10, "K": 4, "Q": 3, "J": 2, **({"9": 0} if len(r.deck) == 24 else {})}


def test_DEF_CARD_4_normal_rank_order_24_cards():
    order = "ATKQJ9"
    for hi in range(6):
        for lo in range(hi + 1, 6):
            for lead, follow, winner in ((order[lo] + "C", order[hi] + "C", 1), (order[hi] + "C", order[lo] + "C", 0)):
                hands, trump, tal = fill_deal(O66, [lead], [follow], "9H")
                m = make_match(O66, 1, hands, trump, tal, start=[lead, follow])
                assert m.deal.tricks_won[winner] == 1, (lead, follow)


# --------------------------------------------------------------------------- §1.2 points
def test_DEF_PTS_1_trick_points_with_and_without_last_trick_bonus():
    m = at(SW, start=SW_ACTIONS)  # schnapsen-at: no bonus
    assert sum(m.results[0].deal_points) == 120
    for seed in range(3):
        m = finish_deal(new_match(O66, seed=seed))  # never closes, announces or declares
        r = m.results[0]
        assert sum(r.deal_points) == 130, r  # 120 + 10 for the last trick (O66-END-1)
        last = [e for e in m.histories[0] if e[0] == "trick"][-1]
        tp = [0, 0]
        for e in m.histories[0]:
            if e[0] == "trick":
                tp[e[1]] += sum(m.rules.points[c] for _, c in e[2])
        tp[last[1]] += 10
        assert list(r.deal_points) == tp


def test_DEF_PTS_2_marriage_20_or_40_pending_until_trick():
    m = at(M, start=["marriage KS", "AS"])
    assert m.deal.marriage_points[0] == 20 and m.deal.deal_points(0) == 0
    m = play(m, "JC", "AC")
    assert m.deal.deal_points(0) == 13 + 20
    m = at(M, start=["marriage QD", "JS"])
    assert m.deal.marriage_points[0] == 40 and m.deal.deal_points(0) == 3 + 2 + 40


def test_DEF_PTS_3_deal_points_are_trick_points_plus_counted_marriages():
    m = at(D3, start=D3_ACTIONS)
    assert list(m.results[0].deal_points) == [33 + 40, 26 + 20]


def test_DEF_PTS_4_game_points_separate_from_card_points():
    m = at(D3, start=D3_ACTIONS)
    assert m.game_points == [1, 0]
    assert information_set(m, 0)["match"]["game_points"] == [1, 0]


def test_DEF_PTS_5_no_trick_means_zero_deal_points():
    m = at(MN, start=MN_ACTIONS)
    r = m.results[0]
    assert r.tricks_won[0] == 0 and r.deal_points[0] == 0 and r.schwarz


def test_DEF_PTS_6_flags_kept_apart():
    r = at(D2, start=[*D2A, "declare"]).results[0]
    assert (r.schwarz, r.deal_schneider) == (True, True)
    r = at(D2, start=[*D2B, "declare"]).results[0]
    assert (r.schwarz, r.deal_schneider) == (False, True)
    r = at(D3, start=D3_ACTIONS).results[0]
    assert (r.schwarz, r.deal_schneider) == (False, False)
    m = at(D2, start=[*D2A, "declare"], game_points=[4, 0])  # Bummerl won, loser at 0
    assert m.match_schneider is True and m.results[0].schwarz is True
    m = at(D3, start=D3_ACTIONS, game_points=[6, 0])  # deal not Schneider, match Schneider
    assert m.match_schneider is True and m.results[0].deal_schneider is False
    m = at(D2, start=[*D2A, "declare"], game_points=[4, 1])  # deal schwarz, match not Schneider
    assert m.over and m.match_schneider is False and m.results[0].schwarz is True
    d = m.results[0].to_dict()
    assert {"schwarz", "deal_schneider"} <= d.keys()


# --------------------------------------------------------------------------- §1.3 tricks
def test_DEF_TRICK_1_winner_of_a_trick():
    trump = 2  # hearts
    for lead in range(24):
        for follow in range(24):
            if lead == follow or K.card(trump, K.NINE) in (lead, follow):
                continue
            if lead // 6 == follow // 6:
                winner = 1 if follow % 6 < lead % 6 else 0
            elif follow // 6 == trump:
                winner = 1
            else:
                winner = 0  # another suit that is not trump never wins
            hands, tc, tal = fill_deal(O66, [lead], [follow], "9H")
            m = make_match(O66, 1, hands, tc, tal, start=codes([lead, follow]))
            assert m.deal.tricks_won[winner] == 1, codes([lead, follow])


def test_DEF_TRICK_2_winner_leads_next():
    rng = random.Random(5)
    for v in VARIANTS:
        m = new_match(v, seed=11)
        for s in random_playout(m, rng, 60):
            d = s.deal
            if d.history[-1][0] == "trick" and d.phase == 0:
                assert s.to_act == d.history[-1][1] == d.seats[d.leader]


def test_DEF_TRICK_3_two_players_w_is_the_led_card():
    m = at(C, start=["close", "KH"])  # W = KH: seat 1 must beat it with AH
    assert legal(m) == {"play AH"}


# --------------------------------------------------------------------------- §1.4 play regimes
def test_DEF_PLAY_FREE_any_card_while_talon_open():
    for v in VARIANTS:
        m = new_match(v, seed=3)
        a = [x for x in legal_actions(m) if x < 24][0]
        m = apply(m, a)
        assert set(legal_actions(m)) == set(K.cards_of(m.deal.hands[m.to_act])), v


S1 = (["QC", "AS", "AD", "JH", "TD"], ["KC", "JC", "TS", "KH", "QS"]), "TH", \
    ["AC", "TC", "KS", "JS", "AH", "QH", "KD", "QD", "JD"]


@pytest.mark.parametrize("lead,expected", [
    ("QC", {"KC"}),  # step 1: hold the suit, must head
    ("AS", {"TS", "QS"}),  # step 1: hold the suit, cannot head: any card of the suit (no trumping)
    ("AD", {"KH"}),  # step 2: void, must trump
    ("JH", {"KH"}),  # trump led: follow and head
])
def test_DEF_PLAY_STRICT(lead, expected):
    m = at(S1, start=["close", lead])
    assert legal(m) == {f"play {c}" for c in expected}
    for c in hand(m, 1) - expected:
        assert_illegal(m, c)


def test_DEF_PLAY_STRICT_void_without_trump_any_card():
    deal = fill_deal(AT, ["AD", "QC", "AS", "JH", "TD"], ["KC", "JC", "TS", "QS", "JS"], "TH")
    m = at(deal, start=["close", "AD"])
    assert legal(m) == {f"play {c}" for c in ("KC", "JC", "TS", "QS", "JS")}


# --------------------------------------------------------------------------- §1.5 talon
def test_DEF_TAL_1_talon_size_and_trump_card_bottom():
    for v in TWO_PLAYER:
        m = new_match(v.id, seed=4)
        d = m.deal
        assert d.talon_size == len(v.deck) - 2 * v.hand_size == (10 if len(v.deck) == 20 else 12)
        assert d.trump_card == d.talon[-1] and d.trump == d.talon[-1] // 6
        sizes = []
        while not m.over and len(m.results) == 0:
            if m.deal.phase == 0:
                sizes.append(m.deal.talon_size)
            m = apply(m, first_legal(m))
        assert all(s % 2 == 0 for s in sizes)
        assert sizes[0] == d.talon_size and sizes[-1] == 0
        assert all(a - b in (0, 2) for a, b in zip(sizes, sizes[1:], strict=False))


def test_DEF_TAL_2_exhausted():
    m = at(SW, start=SW_ACTIONS[:10])
    assert m.deal.talon_size == 0 and m.deal.talon_state == "exhausted"
    assert information_set(m, 0)["deal"]["trump_card"] == ""
    m = play(m, "AH")
    assert legal(m) == {"play JH", "play KH"}  # strict


def test_DEF_TAL_3_closing():
    m = at(C, start=["close"])
    info = information_set(m, 1)["deal"]
    assert (info["talon_state"], info["closed_by"], info["trump_card"]) == ("TALON_STATE_CLOSED", 0, "")
    m = play(m, "KH")
    assert legal(m) == {"play AH"}  # strict at once
    m = play(m, *C_ACTIONS[2:])
    assert sum(m.results[0].deal_points) == 90  # talon cards count for nobody
    m = at(E, start=["close"])
    assert "exchange" not in legal(m)


def test_DEF_TAL_4_exchange_low_trump_nine_in_24_cards():
    hands, tc, tal = fill_deal(O66, ["9H"], [], "AH")
    m = make_match(O66, 1, hands, tc, tal)
    assert "exchange" in legal(m)
    m = play(m, "exchange")
    assert "AH" in hand(m, 0) and "9H" not in hand(m, 0)
    assert m.deal.talon[-1] == K.parse_card("9H") and m.deal.trump == 2
    hands, tc, tal = fill_deal(O66, ["JH"], [], "AH")  # the Jack is not the low trump here
    assert "exchange" not in legal(make_match(O66, 1, hands, tc, tal))


def test_DEF_TAL_4_exchange_low_trump_jack_in_20_cards():
    m = at(E, start=["exchange"])
    assert "AH" in hand(m, 0) and m.deal.talon[-1] == K.parse_card("JH") and m.deal.trump == 2


# --------------------------------------------------------------------------- §1.6 declaring
def test_DEF_DECL_1_declaration_ends_deal_and_is_verified():
    m = at(D2, start=[*D2A, "declare"])
    assert len(m.results) == 1 and m.deal_number == 1
    ev = [e for e in m.histories[0] if e[0] == "declare"]
    assert ev == [("declare", 0, True, 67)]
    m = at(D2, start=["marriage KS", "JD", "declare"])
    ev = [e for e in m.histories[0] if e[0] == "declare"]
    assert ev == [("declare", 0, False, 46)]
    assert m.results[0].winner == 1


# DD: trump H (trump card JH). T1 s0 TD / s1 AD -> s1 +21; T2 s1 QS / s0 JS -> s1 +5 (26);
#   T3 s1 marriage KH (40 -> 66, not declared) / s0 AH -> s0 +15; T4 s0 AC / s1 TC -> +21 (36);
#   T5 s0 AS / s1 TS -> +21 (57; s1 draws the trump card JH); T6 s0 TH / s1 QH -> +13 (70).
DD = (["TD", "JS", "AH", "AC", "AS"], ["AD", "QS", "KH", "QH", "TC"]), "JH", \
    ["TS", "KC", "QC", "JC", "KD", "KS", "JD", "QD", "TH"]
DD_ACTIONS = ["TD", "AD", "QS", "JS", "marriage KH", "AH", "AC", "TC", "AS", "TS", "TH", "QH"]


def test_DEF_DECL_2_correct_declaration_wins_even_if_other_has_66():
    m = at(DD, start=DD_ACTIONS)
    assert m.deal.deal_points(0) == 70 and m.deal.deal_points(1) == 66
    m = play(m, "declare")
    r = m.results[0]
    assert r.winner == 0 and r.reason == "declared" and list(r.deal_points) == [70, 66]
    assert r.game_points == (1, 0)


# --------------------------------------------------------------------------- §1.9 server conventions
def reference_deal(spec, deck, dealer):
    """SRV-1 written out from the text: batches to the non-dealer first, "T" turns the next card."""
    hands = [[], []]
    i = 0
    trump = None
    for b in spec.deal_pattern:
        if b == "T":
            trump = deck[i]
            i += 1
            continue
        for seat in (1 - dealer, dealer):
            hands[seat].extend(deck[i:i + b])
            i += b
    return hands, trump, list(deck[i:])


@pytest.mark.parametrize("variant", VARIANTS)
def test_SRV_1_canonical_deal_mapping(variant):
    spec = find_variant(variant)
    rules = spec.configure()
    for seed in range(5):
        for dealer in (0, 1):
            deck = deal_deck(seed, 0, rules.deck)
            assert sorted(deck) == sorted(rules.deck)
            hands, trump, tal = reference_deal(spec, deck, dealer)
            d = DealState.new(rules, deck, dealer)
            assert [sorted(K.cards_of(h)) for h in d.hands] == [sorted(h) for h in hands]
            assert d.talon == tal + [trump] and d.to_act == 1 - dealer
            assert arrange_deck(rules, dealer, (hands[0], hands[1]), trump, tal) == deck
            # and the other way round: arrange_deck -> new gives back the deal
            d2 = DealState.new(rules, arrange_deck(rules, dealer, (hands[0], hands[1]), trump, tal), dealer)
            assert d2.hands == d.hands and d2.talon == d.talon
    with pytest.raises(ValueError):
        arrange_deck(rules, 0, (hands[0][:-1], hands[1]), trump, tal)


@pytest.mark.parametrize("variant", VARIANTS)
def test_SRV_1_seeded_match_deals_the_same_cards(variant):
    rng = random.Random(1)
    a = new_match(variant, seed=99)
    b = new_match(variant, seed=99)
    assert a == b
    for _ in range(200):
        if a.over:
            break
        act = rng.choice(legal_actions(a))
        a, b = apply(a, act), apply(b, act)
        assert a.deal.hands == b.deal.hands and a.deal.talon == b.deal.talon
    assert a == b
    assert any(new_match(variant, seed=s).deal.talon != a.histories[0] for s in range(3))
    decks = {tuple(new_match(variant, seed=s).deal.talon) for s in range(20)}
    assert len(decks) == 20


def test_SRV_1_deal_is_the_same_in_another_process():
    code = (
        "from bummerl.rules import new_match, list_variants\n"
        "print([(v.id, new_match(v.id, seed=7).deal.hands, new_match(v.id, seed=7).deal.talon) for v in list_variants() if v.num_players == 2])"
    )
    here = repr([(v.id, new_match(v.id, seed=7).deal.hands, new_match(v.id, seed=7).deal.talon) for v in TWO_PLAYER])
    for hashseed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hashseed}
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
        assert out.stdout.strip() == here


def test_SRV_1_shuffle_is_roughly_uniform():
    deck = tuple(range(20))
    counts = [0] * 20
    for seed in range(2000):
        counts[deal_deck(seed, 0, deck).index(0)] += 1
    assert all(40 <= c <= 160 for c in counts), counts


def test_SRV_2_illegal_action_rejected_player_acts_again():
    m = at(C, start=["close", "KH"])
    before = m.to_dict()
    for bad in ("play TC", "close", "declare", "exchange", "draw", "pass", "announce H", "marriage KS"):
        with pytest.raises(IllegalActionError):
            apply(m, bad)
    assert m.to_dict() == before and m.to_act == 1 and legal(m) == {"play AH"}
    m2 = play(m, "AH")  # the same player acts again, now legally
    assert m2.deal.tricks_won == [0, 1]
    m.apply(K.parse_card("AH"))  # in-place checked step works after the failures
    with pytest.raises(IllegalActionError):
        m.apply(K.parse_card("AH"))
    for bad in ("play XY", "marriage AH", "announce X", "fold", ""):
        with pytest.raises(InvalidActionError):
            apply(m, bad)
    for bad in (-1, NUM_ACTIONS, True):
        with pytest.raises(InvalidActionError):
            apply(m, bad)


def test_SRV_2_match_over_rejects_everything():
    m = at(C, start=C_ACTIONS, game_points=[6, 0])
    assert m.over
    for a in range(NUM_ACTIONS):
        with pytest.raises(MatchOverError):
            apply(m, a)


def test_SRV_3_never_declares_for_a_player_but_ends_empty_hands():
    m = at(D2, start=D2A)  # 67 at the own lead turn: nothing happens by itself
    assert m.results == [] and "declare" in legal(m)
    m = at(SW, start=SW_ACTIONS)  # all hands empty: the deal ends and the next one is dealt
    assert len(m.results) == 1 and m.deal_number == 1 and m.deal.phase == 0
    assert sum(bin(h).count("1") for h in m.deal.hands) == 10


def test_SRV_4_first_dealer_uniform_from_seed():
    dealers = [new_match(AT, seed=s).first_dealer for s in range(400)]
    assert 150 <= dealers.count(0) <= 250
    assert dealers == [new_match(AT, seed=s).first_dealer for s in range(400)]
    assert new_match(AT, seed=1, first_dealer=0).deal.dealer == 0
    assert new_match(AT, seed=1, first_dealer=1).deal.dealer == 1


# --------------------------------------------------------------------------- §1.10 OPEN-GEN
def test_OPEN_GEN_1_sixty_six_is_alias_of_original66():
    assert find_variant("sixty-six").id == "snaps-original66"
    assert find_variant("Sixty-Six").id == "snaps-original66"
    m = new_match("sixty-six", seed=1)
    assert m.rules.spec.id == "snaps-original66"
    assert information_set(m, 0)["variant"] == "snaps-original66"
    assert m.to_dict()["variant"] == "snaps-original66"
    assert "sixty-six" not in find_variant(AT).aliases
    assert "sixty-six" not in VARIANTS
    with pytest.raises(UnknownVariantError):
        find_variant("no-such-game")


def test_OPEN_GEN_2_deal_mapping_version():
    for v in TWO_PLAYER:
        assert v.configure().deal_mapping_version == 1
        with pytest.raises(InvalidOptionError):
            v.configure({"deal_mapping_version": 2})


def test_OPEN_GEN_4a_declare_only_at_own_lead_turn():
    m = at(D2, start=[*D2A, "AD", "TS", "QD"])  # seat 0 holds 67 at a follow turn
    assert "declare" not in legal(m)


def test_OPEN_GEN_4b_declare_on_marriage():
    m = at(D2, start=["AC", "TC", "AD", "JD", "announce S"])
    assert "declare" in legal(m)
    m = at(D2, {"declare_on_marriage": False}, start=["AC", "TC", "AD", "JD"])
    assert not any(t.startswith("announce") for t in legal(m))
    m = play(m, "marriage KS")  # the card is led at once; the 40 count from the next lead turn
    assert m.to_act == 1 and m.deal.deal_points(0) == 74


def test_OPEN_GEN_4c_auto_declare():
    m = at(D2, {"auto_declare": True}, start=D2A)
    assert m.results[0].winner == 0 and m.results[0].reason == "declared" and m.results[0].game_points == (3, 0)
    m = at(D2, {"auto_declare": True}, start=["AC", "TC", "AD", "JD", "announce S"])
    assert m.results[0].reason == "declared" and list(m.results[0].deal_points) == [74, 0]
    m = at(D2, start=D2A)  # default: never automatic
    assert m.results == []


def test_OPEN_GEN_5_marriages_per_lead():
    m = at(M, start=["AC", "TC", "announce S"])
    assert "marriage KD" not in legal(m)
    m = at(M, {"marriages_per_lead": 2}, start=["AC", "TC", "announce S"])
    assert {"marriage KD", "marriage QD"} <= legal(m)
    m = play(m, "marriage KD")
    assert m.deal.marriage_points[0] == 60 and m.deal.lead_card == K.parse_card("KD")
    info = information_set(m, 1)["deal"]["history"]
    assert [e["suit"] for e in events_of(info, "marriage_announced")] == ["S", "D"]


# --------------------------------------------------------------------------- actions
def test_actions_round_trip_every_id():
    """The action space is dense: every id 0..NUM_ACTIONS-1 round-trips id <-> text <-> struct."""
    seen = set()
    broken = []
    for a in range(NUM_ACTIONS):
        text = action_to_string(a)
        st = action_struct(a)
        assert json.loads(json.dumps(st)) == st
        seen.add(text)
        try:
            ok = (parse_action(text) == a and parse_action(text.lower()) == a
                  and parse_action(f"  {text.upper()} ") == a and parse_struct(st) == a)
        except InvalidActionError:
            ok = False
        if not ok:
            broken.append((a, text))
    assert len(seen) == NUM_ACTIONS == 89
    assert broken == [], f"ids whose text/struct does not parse back: {broken}"


def test_actions_stable_ids_and_text_forms():
    assert action_to_string(0) == "play AC" and action_to_string(28) == "marriage KH"
    assert action_to_string(29) == "marriage QH"
    assert action_to_string(34) == "announce H"
    assert [action_to_string(a) for a in range(36, 41)] == ["exchange", "close", "declare", "draw", "pass"]
    for bad in ("marriage AH", "marriage 9C", "marriage JS"):  # a marriage leads its King or Queen
        with pytest.raises(InvalidActionError):
            parse_action(bad)
    assert parse_action("play 10h") == K.parse_card("TH")
    assert action_struct(parse_action("marriage qd")) == {"kind": "marriage", "card": "QD"}
    assert action_struct(33) == {"kind": "announce", "suit": "S"}


@pytest.mark.parametrize("bad", ["play", "play QX", "marriage AH", "marriage 9H", "announce", "announce Z",
                                 "declare now", "exchange QH", "xyz", ""])
def test_actions_malformed_text(bad):
    with pytest.raises(InvalidActionError):
        parse_action(bad)


@pytest.mark.parametrize("bad", [{}, {"kind": "play"}, {"kind": "play", "card": "ZZ"}, {"kind": 3},
                                 {"kind": "announce", "suit": "Q"}, {"kind": "jump"}])
def test_actions_malformed_struct(bad):
    with pytest.raises(InvalidActionError):
        parse_struct(bad)


# --------------------------------------------------------------------------- options
def test_option_validation_unknown_option_named():
    for v in TWO_PLAYER:
        with pytest.raises(InvalidOptionError) as e:
            v.configure({"no_such_option": 1})
        assert e.value.option == "no_such_option"
        assert isinstance(e.value, ValueError) and isinstance(e.value, RulesError)
        assert "no_such_option" in str(e.value)
    with pytest.raises(InvalidOptionError):
        new_match(AT, {"nine_value": 2})  # not an option of the 20-card game


@pytest.mark.parametrize("variant", VARIANTS)
def test_option_validation_values(variant):
    spec = find_variant(variant)
    for o in spec.options:
        assert spec.configure({o.name: o.default}).options[o.name] == o.default
        if o.type == "bool":
            assert spec.configure({o.name: "true"}).options[o.name] is True
            assert spec.configure({o.name: "false"}).options[o.name] is False
            bads = ["maybe", 2, None]
        elif o.type == "enum":
            for val in o.allowed:
                assert spec.configure({o.name: val}).options[o.name] == val
            bads = ["not-a-value", 1, True]
        else:
            vals = list(o.allowed) or [o.minimum, o.maximum]
            for val in vals:
                assert spec.configure({o.name: str(val)}).options[o.name] == val
                assert spec.configure({o.name: val}).options[o.name] == val
            bads = ["four", True, 1.5]
            if o.allowed:
                bads.append(max(o.allowed) + 1)
            if o.minimum is not None:
                bads.append(o.minimum - 1)
            if o.maximum is not None:
                bads.append(o.maximum + 1)
        for bad in bads:
            with pytest.raises(InvalidOptionError) as e:
                spec.configure({o.name: bad})
            assert e.value.option == o.name


def test_option_wire_strings_change_behaviour():
    r = find_variant(AT).configure({"match_target": "4", "auto_declare": "true", "close_min_talon": "2"})
    assert (r.match_target, r.auto_declare, r.close_min_talon) == (4, True, 2)
    assert r.set_goal == 4
    assert new_match(AT, {"match_target": "4"}, seed=1).rules == r.spec.configure({"match_target": 4})


# --------------------------------------------------------------------------- purity of apply
@pytest.mark.parametrize("variant", VARIANTS)
def test_apply_never_mutates_its_input(variant):
    rng = random.Random(variant)
    m = new_match(variant, seed=5)
    for _ in range(150):
        if m.over:
            break
        snap, fp, hist = m.to_dict(), m.fingerprint(), list(m.deal.history)
        acts = legal_actions(m)
        nxt = apply(m, rng.choice(acts))
        illegal = [a for a in range(NUM_ACTIONS) if a not in acts][:3]
        for a in illegal:
            with pytest.raises(IllegalActionError):
                apply(m, a)
        assert m.to_dict() == snap and m.fingerprint() == fp and m.deal.history == hist
        assert nxt is not m and nxt.deal is not m.deal
        m = nxt


@pytest.mark.parametrize("variant", [v.id for v in list_variants()])
def test_history_views_are_shared_across_states_and_equal_to_fresh_ones(variant: str) -> None:
    """§14.1: every card played, trick and announcement of the deal is in every seat's history.
    history_views (what information_set shows as deal.history, two-player and contract deals
    alike) reuses the views of an earlier state of the same deal (the same dicts; only new
    entries are converted) and gives exactly what a fresh build gives, up to the finished match;
    a view of another deal is not reused."""
    from bummerl.rules import MatchState, history_views, information_set

    rng = random.Random(5)
    rules = find_variant(variant).configure({})
    seed = 11
    m = MatchState(rules, seed)
    known: tuple = ()
    deals_seen = set()
    finished = 0
    for _ in range(2000):
        views = history_views(m, known)
        assert list(views) == [dict(v) for v in history_views(m)]  # equal to a fresh build
        if known and known[0]["deal_number"] == m.deal_number:
            assert all(a is b for a, b in zip(views, known, strict=False))  # the earlier dicts, reused
            assert len(views) >= len(known)
        for seat in range(m.num_seats):
            shared = information_set(m, seat, views)
            assert shared == information_set(m, seat)
            assert all(a is b for a, b in zip(shared["deal"]["history"], views, strict=True))
        deals_seen.add(m.deal_number)
        known = views
        if m.over:  # checked up to the finished match; another match until a deal boundary was crossed
            finished += 1
            if len(deals_seen) >= 2:
                break
            seed += 1
            m, known, deals_seen = MatchState(rules, seed), (), set()
            continue
        m.step(rng.choice(m.legal_actions()))
    assert len(deals_seen) >= 2 and finished  # crossed a deal boundary (no reuse there) and reached the end


def _only_plain_data(x: object, path: str = "") -> list[str]:
    """The paths in ``x`` holding anything but a dict, list, str, int, bool or None, each with
    its type (a subclass such as a StrEnum member or a NamedTuple counts as foreign)."""
    if type(x) is dict:
        return [p for k, v in x.items() for p in _only_plain_data(v, f"{path}.{k}")]
    if type(x) is list:
        return [p for i, v in enumerate(x) for p in _only_plain_data(v, f"{path}[{i}]")]
    return [] if type(x) in (str, int, bool, type(None)) else [f"{path}: {type(x).__name__}"]


@pytest.mark.parametrize("variant", [v.id for v in list_variants()])
def test_views_and_events_hold_only_plain_data_to_the_end_of_the_match(variant: str) -> None:
    """§14.1-§14.3: every seat's information set, the public view and every event of a whole match
    (finished deals' results and the match result included) hold only dicts, lists,
    strings, ints, bools and None, never an engine type: a ``DealEnd`` / ``MatchEnd`` reason is its
    string. The service encodes views through a memo keyed by ``marshal`` (built-in types only):
    a ``DealEnd`` member in ``match.deals[].reason`` made every information set of a later deal
    re-encode every finished deal's result."""
    import marshal

    from bummerl.rules import events_between, public_view

    rng = random.Random(3)
    m = new_match(variant, seed=21)
    for version in range(1, 3000):
        before = m
        m = apply(m, rng.choice(legal_actions(m)))
        views = [information_set(m, s) for s in range(m.num_seats)] + [public_view(m)]
        for i, v in enumerate(views):
            assert _only_plain_data(v) == [], f"view {i} after {version} actions"
            marshal.dumps(v, 2)  # what the codec's memo keys take
        for e in events_between(before, m, version):
            assert _only_plain_data(e) == [], e
        if m.over:
            break
    assert m.over and information_set(m, 0)["match"]["deals"]  # finished deals were shown
    assert all(_only_plain_data(r.to_dict()) == [] for r in m.results)  # as records show them too


def test_a_refused_action_text_is_quoted_as_sent() -> None:
    """Refusals quote the client's own text (they quoted it lowercased: 'play XXXX' -> 'xxxx');
    parsing stays case-insensitive."""
    from bummerl.rules import parse_action
    from bummerl.rules.base.actions import InvalidActionError as Refused

    assert parse_action("Play qH") == parse_action("play QH") and parse_action("BID Gang") == parse_action("bid gang")
    for text, quoted in [("play XXXX", "'XXXX'"), ("discard Zz", "'Zz'"), ("announce Q", "'Q'"), ("bid NOPE", "'NOPE'"),
                         ("marriage AH", "'AH'")]:
        with pytest.raises(Refused) as err:
            parse_action(text)
        assert quoted in str(err.value), (text, str(err.value))

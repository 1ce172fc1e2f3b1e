"""Scenarios played in every registered two-player variant (RULES.md §2-§6): the same deal and
the same actions, where the rules under test read the same in each variant.

Each deal gives both hands by seat (seat 1 deals, seat 0 leads), the face-up trump card and the
top of the talon; :func:`helpers.fill_deal` completes the hands of the 24-card variants and the
talon with the remaining cards. Derivations are in the comments (``T2: s0 AS / s1 TS -> s0 +21
(42)``: trick 2, seat 0 leads AS, seat 1 follows TS, seat 0 wins 21 card points, 42 in total).
In ``snaps-original66`` and ``santase`` the trick winner may close before drawing
(``close_timing = before_or_after_draw``, O66-CLOSE-2, SAN-CLOSE-1); :func:`go` then draws.
"""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from bummerl.rules import MatchState, list_variants
from bummerl.rules.base.cards import parse_card

from .helpers import fill_deal, legal, make_match, play

VARIANTS = [s.id for s in list_variants() if s.num_players == 2]
AUTO_DECLARE = [s.id for s in list_variants() if s.num_players == 2 and any(o.name == "auto_declare" for o in s.options)]


def deal(variant: str, s0: list[str], s1: list[str], trump: str, options: Mapping[str, object] | None = None,
         talon_top: list[str] | None = None) -> MatchState:
    hands, tc, talon = fill_deal(variant, s0, s1, trump, talon_top or ())
    return make_match(variant, 1, hands, tc, talon, options)


def go(m: MatchState, *texts: str) -> MatchState:
    """Play ``texts``; where the trick winner may close before drawing and the next text is
    neither ``close`` nor ``draw``, he draws first."""
    for t in texts:
        if legal(m) == {"close", "draw"} and t not in ("close", "draw"):
            m = play(m, "draw")
        m = play(m, t)
    return m


def test_auto_declare_is_offered_by_every_two_player_variant() -> None:
    assert AUTO_DECLARE == VARIANTS and len(VARIANTS) == 5


# --------------------------------------------------------------------------- item: auto_declare
# AD: trump H (face-up JH). Seat 0 holds the trump marriage KH/QH, seat 1 no trump.
# T1: s0 AC / s1 TC -> s0 +21; T2: s0 AS / s1 TS -> s0 +21 (42). At the T3 lead the 40 lift
# seat 0 to 82 >= 66: with auto_declare the deal ends by declaration (3 game points, seat 1 has
# no trick), whether seat 0 announces in two steps or with the one-step "marriage KH".
AD_S0 = ["AC", "AS", "KH", "QH"]
AD_S1 = ["TC", "TS", "JD"]
AD_T1_T2 = ["AC", "TC", "AS", "TS"]


@pytest.mark.parametrize("variant", AUTO_DECLARE)
@pytest.mark.parametrize("card", ["KH", "QH"])
def test_OPEN_GEN_4c_AT_DECL_2_auto_declare_one_step_marriage_ends_deal_like_announce(variant: str, card: str) -> None:
    """OPEN-GEN-4 (b, c), SRV-3, AT-DECL-2 / O66-DECL-5 / SAN-DECL-1 / HU2-DECL-3: a marriage that
    lifts the leader's counted points (DEF-PTS-2: he has won a trick) to 66 is followed by the
    server's declaration before the card is led, in the one-step form as in the two-step form."""
    opts = {"auto_declare": True}
    two = go(deal(variant, AD_S0, AD_S1, "JH", opts), *AD_T1_T2, "announce H")
    one = go(deal(variant, AD_S0, AD_S1, "JH", opts), *AD_T1_T2, f"marriage {card}")
    for m in (two, one):
        r = m.results[0]
        assert (r.winner, r.reason, r.game_points, r.deal_points) == (0, "declared", (3, 0), (82, 0))
        assert m.histories[0][-2:] == [("marriage", 0, 2, 40), ("declare", 0, True, 82)]
    assert one.histories[0] == two.histories[0]  # the card of the marriage was never led
    assert not any(e[0] == "play" and e[2] == parse_card(card) for e in one.histories[0])


@pytest.mark.parametrize("variant", AUTO_DECLARE)
def test_OPEN_GEN_4c_DEF_PTS_2_auto_declare_one_step_marriage_below_66_is_led(variant: str) -> None:
    """DEF-PTS-2, OPEN-GEN-4 c: 21 + 40 = 61 < 66 after T1 only: the one-step marriage leads its
    card and the deal goes on, as after "announce H" (where seat 0 must then lead KH or QH)."""
    opts = {"auto_declare": True}
    m = go(deal(variant, AD_S0, AD_S1, "JH", opts), *AD_T1_T2[:2], "marriage KH")
    assert m.results == [] and m.to_act == 1 and m.deal.lead_card == parse_card("KH")
    m = go(deal(variant, AD_S0, AD_S1, "JH", opts), *AD_T1_T2[:2], "announce H")
    assert m.results == [] and m.to_act == 0 and {t for t in legal(m) if t.startswith("play")} == {"play KH", "play QH"}


@pytest.mark.parametrize("variant", [v for v in AUTO_DECLARE if v != "santase"])  # SAN-MAR-3: no first-lead marriage
def test_OPEN_GEN_4c_AT_MAR_5_auto_declare_pending_marriage_never_declares(variant: str) -> None:
    """AT-MAR-5 / O66-MAR-3 / HU2-MAR-3 (DEF-PTS-2): a marriage announced before the announcer
    has won a trick is pending, so auto_declare does not declare; the one-step form leads."""
    m = go(deal(variant, AD_S0, AD_S1, "JH", {"auto_declare": True}), "marriage KH")
    assert m.results == [] and m.to_act == 1 and m.deal.marriage_points[0] == 40


@pytest.mark.parametrize("variant", AUTO_DECLARE)
def test_OPEN_GEN_4b_auto_declare_respects_declare_on_marriage_false(variant: str) -> None:
    """OPEN-GEN-4 b: with ``declare_on_marriage = false`` a leader may not declare between the
    announcement and the lead, so neither may the server for him (SRV-3): the one-step marriage
    leads KH; after "announce H" (offered with ``marriages_per_lead = 2``) he must lead too."""
    opts = {"auto_declare": True, "declare_on_marriage": False}
    m = go(deal(variant, AD_S0, AD_S1, "JH", opts), *AD_T1_T2, "marriage KH")
    assert m.results == [] and m.to_act == 1
    m = go(deal(variant, AD_S0, AD_S1, "JH", {**opts, "marriages_per_lead": 2}), *AD_T1_T2, "announce H")
    assert m.results == [] and m.to_act == 0 and "declare" not in legal(m)
    # T3: s0 KH / s1 JD -> s0 +6 (48 + 40 = 88): declared for him at his next lead turn
    m = go(m, "KH", "JD")
    if legal(m) == {"close", "draw"}:
        m = play(m, "draw")
    assert m.results[0].reason == "declared" and m.results[0].winner == 0


@pytest.mark.parametrize("variant", ["snaps-original66", "santase"])
def test_OPEN_O66_5_SRV_3_auto_declare_after_exchange_offer_on_close(variant: str) -> None:
    """SRV-3 with OPEN-O66-5 ``exchange_on_opponent_close = true``: seat 0 reaches 66 with a trick
    and closes before drawing (O66-CLOSE-2 / SAN-CLOSE-1); once seat 1 has answered the exchange
    offer, seat 0's lead turn goes on and the server declares for him as it would have had he
    drawn. AD with T3: s0 marriage KH (40, 82) / s1 JD -> s0 +6 (88)."""
    opts = {"auto_declare": True, "exchange_on_opponent_close": True, "declare_on_marriage": False}
    m = go(deal(variant, AD_S0, AD_S1, "JH", opts), *AD_T1_T2, "marriage KH", "JD")
    assert legal(m) == {"close", "draw"} and m.deal.deal_points(0) == 88
    m = play(m, "close")
    assert m.to_act == 1 and "pass" in legal(m)
    m = play(m, "pass")
    assert m.results and m.results[0].reason == "closed_success" and m.results[0].winner == 0


# --------------------------------------------------------------------------- item: result flags
# CL: trump H (face-up JH). T1: s0 AC / s1 TC -> s0 +21; s0 closes at his lead (after the draw,
# or before it where the variant allows it: either way seat 1 has no trick at closing).
# T2: s0 marriage KH (40 -> 61) / s1 AH (strict: must head) -> s1 +15, his first trick.
# T3: s1 JD / s0 QD (must head) -> s0 +5 = 66; s0 declares: a successful close (AT-CLOSE-3,
# O66-CLOSE-6, SAN-CLOSE-4, HU2-CLOSE-3). Seat 1: no trick at closing; 1 trick, 15 at the end.
CL_S0 = ["AC", "AS", "KH", "QH", "QD"]
CL_S1 = ["TC", "AH", "JD"]
CL_TOP = ["KS", "QS"]
CL_PLAY = ["AC", "TC", "close", "marriage KH", "AH", "JD", "QD", "declare"]


@pytest.mark.parametrize("variant", VARIANTS)
def test_DEF_PTS_6_AT_CLOSE_3_flags_on_state_at_closing(variant: str) -> None:
    """DEF-PTS-6, AT-CLOSE-3, OPEN-AT-4 (``close_score_basis = at_close``): the close is scored
    on seat 1's state at closing (no trick -> 3), so the deal is schwarz and Schneider although
    seat 1 won a trick after the close."""
    m = go(deal(variant, CL_S0, CL_S1, "JH", {"close_score_basis": "at_close"}, CL_TOP), *CL_PLAY)
    r = m.results[0]
    assert (r.winner, r.reason, r.game_points, r.deal_points, r.tricks_won[1]) == (0, "closed_success", (3, 0), (66, 15), 1)
    assert (r.schwarz, r.deal_schneider) == (True, True)


@pytest.mark.parametrize("variant", VARIANTS)
def test_DEF_PTS_6_O66_CLOSE_6_flags_on_state_at_end(variant: str) -> None:
    """DEF-PTS-6, O66-CLOSE-6 / SAN-CLOSE-4 / HU2-CLOSE-3 (``close_score_basis = at_end``): seat 1
    has a trick and 15 < 33 at the end -> 2, not schwarz, Schneider."""
    m = go(deal(variant, CL_S0, CL_S1, "JH", {"close_score_basis": "at_end"}, CL_TOP), *CL_PLAY)
    r = m.results[0]
    assert (r.winner, r.reason, r.game_points, r.deal_points) == (0, "closed_success", (2, 0), (66, 15))
    assert (r.schwarz, r.deal_schneider) == (False, True)


# SM: trump H (face-up JH). T1: s0 QD / s1 KD -> s1 +7 (his only trick); T2: s1 marriage KH
# (40, counted: he has a trick) / s0 AH -> s0 +15; T3: s0 AC / s1 TC -> +21 (36); T4: s0 AS /
# s1 TS -> +21 (57); T5: s0 TH / s1 QH -> +13 (70); s0 declares. Seat 1: 7 trick points + 40 = 47.
SM_S0 = ["QD", "AH", "AC", "AS", "TH"]
SM_S1 = ["KD", "KH", "QH", "TC", "TS"]
SM_PLAY = ["QD", "KD", "marriage KH", "AH", "AC", "TC", "AS", "TS", "TH", "QH", "declare"]


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("includes, points, schneider", [(True, 1, False), (False, 2, True)])
def test_DEF_PTS_6_OPEN_HU2_4_schneider_flag_on_the_33_basis(variant: str, includes: bool, points: int,
                                                            schneider: bool) -> None:
    """DEF-PTS-6, OPEN-AT-1 / OPEN-SAN-4 / OPEN-HU2-4, HU2-SCORE-1: ``deal_schneider`` reads the
    loser's points as the table does: 47 with the counted 40 (-> 1, not Schneider), 7 in tricks
    only where the 33 line counts tricks (-> 2, Schneider; the default of snapszer-hu-2p)."""
    m = go(deal(variant, SM_S0, SM_S1, "JH", {"schneider_threshold_includes_marriages": includes}), *SM_PLAY)
    r = m.results[0]
    assert (r.winner, r.reason, r.game_points, r.deal_points) == (0, "declared", (points, 0), (70, 47))
    assert (r.schwarz, r.deal_schneider) == (False, schneider)


def test_HU2_SCORE_1_deal_schneider_counts_tricks_only_by_default() -> None:
    """HU2-SCORE-1, OPEN-HU2-4: snapszer-hu-2p's own default reads the 33 line on trick points."""
    m = go(deal("snapszer-hu-2p", SM_S0, SM_S1, "JH"), *SM_PLAY)
    r = m.results[0]
    assert (r.game_points, r.schwarz, r.deal_schneider) == ((2, 0), False, True)


def test_AT_CLOSE_3_flags_frozen_at_closing_by_default() -> None:
    """AT-CLOSE-3, OPEN-AT-4: schnapsen-at's own default scores a close on the state at closing."""
    m = go(deal("schnapsen-at", CL_S0, CL_S1, "JH", None, CL_TOP), *CL_PLAY)
    r = m.results[0]
    assert (r.game_points, r.schwarz, r.deal_schneider) == ((3, 0), True, True)

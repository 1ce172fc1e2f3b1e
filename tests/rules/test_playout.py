"""Property-based random playouts over every registered variant and random table options.

Hypothesis draws the variant's options (from each option's allowed values / bool / a small int
range), the match seed and the seed of a uniformly random policy, then plays whole matches
(small match targets keep them short) and checks at every step:

* every offered action is accepted by ``apply``; every other action id is rejected with
  IllegalActionError (MatchOverError once the match is over);
* per finished deal: deal points equal the card points of the won tricks (from the trick events)
  + counted marriages + the last-trick bonus when the deal was played out unclosed; such a deal
  holds all the deck's card points (120, DEF-CARD-3); no deal has more tricks than the deck
  allows; game points per deal are 0..3 (+ carried points) and only for the winner;
* ``MatchState.from_dict(m.to_dict()) == m`` at random points (replay round trip);
* NO LEAK (RULES §14.3): a second state that differs only in the cards hidden from a seat (the
  opponent's cards not publicly known + the talon's face-down cards) gives a byte-identical
  information set for that seat, also after that seat's next lead-turn action, and the same
  public events (``events_between``) for the next action;
* NO LEAK to onlookers (§14.3, ``WatchMatch``): a state whose cards hidden from *every* seat are
  shuffled (both hands' unshown cards and the talon's face-down cards) gives a byte-identical
  public view (:func:`bummerl.rules.match.infoset.public_view`), also after the next action.
"""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bummerl.rules import (
    IllegalActionError,
    MatchOverError,
    MatchState,
    OptionSpec,
    VariantSpec,
    apply,
    events_between,
    information_set,
    legal_actions,
    list_variants,
    new_match,
    public_known_cards,
)
from bummerl.rules.base.actions import NUM_ACTIONS
from bummerl.rules.base.cards import cards_of, mask_of, parse_card
from bummerl.rules.deals.talon import LEAD

from .helpers import make_match, play
from .spectator import check_public_no_leak

SPECS = [s for s in list_variants() if s.num_players == 2]  # multi-player: test_multiplayer.py
# Options whose range is cut down so that matches stay short or values stay interesting.
SMALL_INTS = {
    "match_target": (1, 4),
    "set_target": (1, 4),
    "sets_to_win": (1, 2),
    "bummerls_to_win": (1, 2),
    "schneider_bummerl_value": (1, 3),
    "schneider_threshold": (1, 66),
}
MAX_STEPS = 3000


def option_values(o: OptionSpec) -> st.SearchStrategy[object]:
    if o.type == "bool":
        return st.booleans()
    if o.allowed:
        return st.sampled_from(o.allowed)
    lo, hi = SMALL_INTS.get(o.name, (o.minimum or 0, min(o.maximum or 10, (o.minimum or 0) + 10)))
    lo = max(lo, o.minimum if o.minimum is not None else lo)
    hi = min(hi, o.maximum if o.maximum is not None else hi)
    return st.integers(lo, hi)


@st.composite
def table_options(draw: st.DrawFn, spec: VariantSpec) -> dict[str, object]:
    opts: dict[str, object] = {}
    for o in spec.options:
        if o.name in ("match_target", "set_target", "sets_to_win", "bummerls_to_win") or draw(st.booleans()):
            opts[o.name] = draw(option_values(o))
    return opts


# --------------------------------------------------------------------------- checks
def check_actions(m: MatchState) -> None:
    acts = legal_actions(m)
    assert acts, "a running match must offer an action"
    assert len(set(acts)) == len(acts)
    for a in acts:
        apply(m, a)  # must not raise
    offered = set(acts)
    for a in range(NUM_ACTIONS):
        if a not in offered:
            with pytest.raises(IllegalActionError):
                apply(m, a)


def check_deal(m: MatchState, i: int) -> None:
    r = m.rules
    res = m.results[i]
    hist = m.histories[i]
    kinds = [e[0] for e in hist]
    tricks = [e for e in hist if e[0] == "trick"]
    assert len(tricks) <= len(r.deck) // 2
    assert res.tricks_won == tuple(sum(1 for e in tricks if e[1] == s) for s in (0, 1))
    tp = [0, 0]
    for e in tricks:
        tp[e[1]] += sum(r.points[c] for _, c in e[2])
    played_out = len(tricks) == len(r.deck) // 2 and "close" not in kinds and "declare" not in kinds
    if played_out:
        assert sum(tp) == sum(r.points[c] for c in r.deck)  # 120 (DEF-CARD-3; 128 with nine_value 2)
        tp[tricks[-1][1]] += r.talon.last_trick_bonus
    for s in (0, 1):
        won = res.tricks_won[s] > 0 or not r.marriage_counts_after_first_trick
        marr = sum(e[3] for e in hist if e[0] == "marriage" and e[1] == s) if won else 0
        assert res.deal_points[s] == tp[s] + marr, (s, res, tp, marr)
    assert res.carried_points >= 0
    if res.winner < 0:
        assert res.game_points == (0, 0) and res.carried_points == 0
    else:
        assert res.game_points[1 - res.winner] == 0
        assert 1 <= res.game_points[res.winner] - res.carried_points <= 3, res
    declares = [e for e in hist if e[0] == "declare"]
    assert len(declares) <= 1 and (not declares or kinds[-1] == "declare")


def conceal(m: MatchState, seat: int, rng: random.Random) -> MatchState:
    """A copy of ``m`` whose cards hidden from ``seat`` are shuffled: the opponent's hand minus
    his publicly known cards, together with the talon's face-down cards (the face-up / turned
    trump card at the bottom stays)."""
    d = m.deal
    opp = 1 - seat
    known = public_known_cards(d, opp)
    hidden = [c for c in cards_of(d.hands[opp]) if not known >> c & 1]
    face_down = d.talon[d.tpos:-1] if d.tpos < len(d.talon) else []
    pool = hidden + face_down
    rng.shuffle(pool)
    m2 = m.copy()
    m2.deal.hands[opp] = (d.hands[opp] & known) | mask_of(pool[:len(hidden)])
    if face_down:
        m2.deal.talon = d.talon[:d.tpos] + pool[len(hidden):] + [d.talon[-1]]
    assert sorted(cards_of(m2.deal.hands[opp]) + m2.deal.talon[d.tpos:]) == \
        sorted(cards_of(d.hands[opp]) + d.talon[d.tpos:])
    return m2


def infoset_json(m: MatchState, seat: int) -> str:
    return json.dumps(information_set(m, seat), sort_keys=True)


def check_no_leak(m: MatchState, seat: int, rng: random.Random) -> None:
    m2 = conceal(m, seat, rng)
    assert infoset_json(m, seat) == infoset_json(m2, seat)
    # the public event stream of the next action (any seat) must not depend on hidden cards
    a0 = rng.choice(legal_actions(m))
    if a0 in legal_actions(m2):
        assert events_between(m, apply(m, a0)) == events_between(m2, apply(m2, a0)), a0
    # the seat's own lead-turn actions never draw a card: their consequences must not depend
    # on the hidden cards either
    if m.to_act == seat and m.deal.phase == LEAD:
        a = rng.choice(legal_actions(m))
        assert a in legal_actions(m2)
        assert infoset_json(apply(m, a), seat) == infoset_json(apply(m2, a), seat), a


def run_match(variant: str, options: dict[str, object], seed: int, policy_seed: int) -> None:
    m = new_match(variant, options, seed=seed)
    rng = random.Random(policy_seed)
    done = 0
    for _ in range(MAX_STEPS):
        if m.over:
            break
        check_actions(m)
        if rng.random() < 0.15:
            assert MatchState.from_dict(m.to_dict()) == m
        if rng.random() < 0.25:
            check_no_leak(m, rng.randrange(2), rng)
        if rng.random() < 0.2:
            check_public_no_leak(m, rng)
        m = apply(m, rng.choice(legal_actions(m)))
        while done < len(m.results):
            check_deal(m, done)
            done += 1
    assert m.over, "match did not end"
    assert m.legal_actions() == []
    with pytest.raises(MatchOverError):
        apply(m, 0)
    assert MatchState.from_dict(m.to_dict()) == m
    assert 0 <= m.winner <= 1 and m.end_reason == "target_reached"


@pytest.mark.parametrize("spec", SPECS, ids=[s.id for s in SPECS])
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), seed=st.integers(0, 2**63 - 1), policy_seed=st.integers(0, 2**32 - 1))
def test_random_playout(spec: VariantSpec, data: st.DataObject, seed: int, policy_seed: int) -> None:
    options = data.draw(table_options(spec), label="options")
    run_match(spec.id, options, seed, policy_seed)


@pytest.mark.parametrize("spec", SPECS, ids=[s.id for s in SPECS])
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**63 - 1), policy_seed=st.integers(0, 2**32 - 1), full=st.booleans())
def test_random_playout_default_options(spec: VariantSpec, seed: int, policy_seed: int, full: bool) -> None:
    """Default table options; ``full``: the variant's real match length, else targets of 2."""
    target = {} if full else {o.name: 2 for o in spec.options if o.name in ("match_target", "set_target")}
    run_match(spec.id, target, seed, policy_seed)


def test_no_leak_exchange_on_opponent_close():
    """§14.3 "any other unannounced holding": with ``exchange_on_opponent_close`` the closer must
    not learn whether the non-closer holds the low trump (he is asked only if he holds it)."""
    hands = (["AC", "TC", "AD", "TD", "JH"], ["JC", "QC", "JD", "QD", "KH"])  # seat 0 holds JH
    tal = ["JS", "AS", "KC", "TS", "TH", "KS", "KD", "QS", "QH"]
    opts = {"exchange_on_opponent_close": True}
    m = make_match("schnapsen-at", 0, hands, "AH", tal, opts)  # seat 1 leads
    rng = random.Random(0)
    jh = parse_card("JH")
    m2 = conceal(m, 1, rng)
    while m2.deal.hands[0] >> jh & 1:  # a hidden alternative in which seat 0 does not hold JH
        m2 = conceal(m, 1, rng)
    assert infoset_json(m, 1) == infoset_json(m2, 1)
    assert infoset_json(play(m, "close"), 1) == infoset_json(play(m2, "close"), 1)

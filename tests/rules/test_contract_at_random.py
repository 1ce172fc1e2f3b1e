"""Random legal playouts of ``bauernschnapsen`` and ``talonschnapsen`` (fixed seeds): every deal
ends with an outcome whose awards fit the contract, card points are conserved, snapshots round-trip;
and the information set leaks nothing (§14.3): two deals that differ only in cards hidden from a
seat give that seat identical views after the same actions."""

from __future__ import annotations

import json
import random

import pytest

from bummerl.rules import actions as A
from bummerl.rules.base.cards import BIT, cards_of
from bummerl.rules.base.errors import IllegalActionError
from bummerl.rules.deals.contract_at import RUFER, VALUES

from .at_helpers import BS, TS

SPECS = [BS, TS]


def policy(d, rng: random.Random) -> int:
    """Uniform, except that the auction passes 3 times in 4 (so that every contract occurs)."""
    acts = d.legal_actions()
    if d.phase == "bidding" and A.PASS in acts and rng.random() < 0.75:
        return A.PASS
    return rng.choice(acts)


def playout(spec, rng: random.Random, options=None):
    rules = spec.configure(options or {})
    deck = list(rules.deck)
    rng.shuffle(deck)
    dealer = rng.randrange(spec.num_players)
    d = spec.deal_class.new(rules, deck, dealer)
    actions = []
    while not d.over:
        a = policy(d, rng)
        actions.append(a)
        d.step(a)
    return rules, deck, dealer, actions, d


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.id)
def test_random_playouts_end_with_consistent_awards(spec):
    rng = random.Random(20240607)
    seen = set()
    for i in range(2500):
        rules, _, _, _, d = playout(spec, rng)
        o = d.outcome
        assert o is not None and d.legal_actions() == [] and d.to_act == -1
        seen.add((d.contract, o.reason))
        credited = [s for s in range(spec.num_players) if o.awards[s]]
        assert credited and len({o.awards[s] for s in credited}) == 1
        side = d.side[credited[0]]
        assert credited == d.side_seats(side)  # the whole side, nobody else (BS-SCORE-1, TS-SCORE-1)
        base = o.awards[credited[0]] // d.multiplier
        assert base * d.multiplier == o.awards[credited[0]] == o.game_points
        if d.contract == RUFER:
            assert base in (1, 2, 3)
        else:
            assert base == VALUES[d.contract]
            assert side == (0 if o.reason in ("contract_made", "settled", "declared") else 1)
        if spec.teams:
            assert o.winner == spec.teams[credited[0]]
        else:
            assert o.winner == (d.declarer if side == 0 else -1)
        pts = rules.points
        total = sum(d.trick_points) + sum(pts[c] for h in d.hands + d.laid_away for c in cards_of(h))
        assert total == 120  # DEF-CARD-3: nothing lost, nothing counted twice
        assert d.side_trick_points(0) + d.side_trick_points(1) == sum(d.trick_points) + sum(
            pts[c] for h in d.laid_away for c in cards_of(h))
        if i % 50 == 0:
            back = type(d).from_snapshot(rules, json.loads(json.dumps(d.to_snapshot())))
            assert back.outcome == d.outcome and back.history == d.history and back.view(0) == d.view(0)
    contracts = {c for c, _ in seen}
    assert contracts >= {RUFER, "bettler", "schnapser", "gang", "zehnerloch", "bauernschnapser", "kontraschnapser",
                         "kontrabauernschnapser"}, contracts


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.id)
def test_snapshot_and_copy_mid_deal(spec):
    rng = random.Random(5)
    rules = spec.configure({"max_kontra_level": 4})
    for _ in range(200):
        deck = list(rules.deck)
        rng.shuffle(deck)
        d = spec.deal_class.new(rules, deck, 0)
        for _ in range(rng.randrange(1, 25)):
            if d.over:
                break
            d.step(policy(d, rng))
        c = d.copy()
        back = type(d).from_snapshot(rules, json.loads(json.dumps(d.to_snapshot())))
        assert back.legal_actions() == d.legal_actions() == c.legal_actions()
        assert [back.view(s) for s in range(spec.num_players)] == [d.view(s) for s in range(spec.num_players)]
        while not d.over:
            a = policy(d, rng)
            d.step(a)
            c.step(a)
            back.step(a)
        assert c.outcome == d.outcome == back.outcome


def own_cards(spec, deck, dealer, seat, d) -> int:
    """Cards ``seat`` ever held (the whole dealt hand, plus the talon if he took it)."""
    n = spec.num_players
    cls = spec.deal_class
    k = (seat - dealer - 1) % n
    mine = deck[3 * k: 3 * k + 3]
    start = 3 * n + cls.TALON + cls.SECOND_BATCH * k
    mine += deck[start: start + cls.SECOND_BATCH]
    if cls.TALON and d.declarer == seat:
        mine += deck[3 * n: 3 * n + cls.TALON]
    m = 0
    for c in mine:
        m |= BIT[c]
    return m


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.id)
def test_no_leak_hidden_cards_do_not_change_the_view(spec):
    """§14.3: another player's hand (the partner's too), the talon and another player's laid-away
    cards are never revealed. Swap cards hidden from seat s (never held by s, never played or
    shown) between their places in the deck, replay the same actions: s sees the same."""
    rng = random.Random(99)
    compared = 0
    for _ in range(400):
        rules, deck, dealer, actions, d = playout(spec, rng, {"max_kontra_level": 2})
        public = 0
        for ev in d.history:
            if ev[0] == "play":
                public |= BIT[ev[2]]
            elif ev[0] == "show":
                for c in ev[2]:
                    public |= BIT[c]
        for s in range(spec.num_players):
            known = own_cards(spec, deck, dealer, s, d) | public
            places = [i for i, c in enumerate(deck) if not known & BIT[c]]
            cards = [deck[i] for i in places]
            rng.shuffle(cards)
            other = deck[:]
            sigma = {}
            for i, c in zip(places, cards, strict=True):
                sigma[deck[i]] = c
                other[i] = c
            a_deal = spec.deal_class.new(rules, deck, dealer)
            b_deal = spec.deal_class.new(rules, other, dealer)
            try:
                for a in actions:
                    last_declares = a == A.DECLARE
                    assert a_deal.view(s) == b_deal.view(s)
                    if a_deal.to_act == s:
                        assert a_deal.legal_actions() == b_deal.legal_actions()
                    a_deal.step(a)
                    b = A.DISCARD + sigma.get(a - A.DISCARD, a - A.DISCARD) if A.action_kind(a) == "discard" else a
                    b_deal.step(b)  # the same card's place: a laid-away card is hidden too
            except IllegalActionError:
                continue  # the other deal makes some hidden-dependent call illegal (trump, Farbenring...)
            if not last_declares:  # a verified declaration reports the side's points (public, §14.1)
                assert a_deal.view(s) == b_deal.view(s)
            compared += 1
    assert compared > 600

"""``TalonDeal.from_public`` (issue 23): the engine's public constructor of a two-player deal in the
middle of play, from what one seat knows plus a guess at the rest (the bots' determinization).
Built from a real deal's own facts, it plays on exactly as the real deal does."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest

from bummerl.rules import TalonDeal, find_variant, list_variants

TWO_PLAYER = [v.id for v in list_variants() if v.talon is not None]


def rebuilt(d: TalonDeal) -> TalonDeal:
    """``d`` rebuilt through the public constructor from its fields (the talon from its top)."""
    return TalonDeal.from_public(
        d.rules, dealer=d.dealer, hands=d.hands, talon=d.talon[d.tpos:], trump=d.trump, phase=d.phase,
        to_act=d.to_act, leader=d.leader, lead_card=d.lead_card, trick_no=d.trick_no, closed_by=d.closed_by,
        close_snapshot=d.close_snapshot, tricks_won=d.tricks_won, trick_points=d.trick_points,
        marriage_points=d.marriage_points, won=d.won, announced=d.announced, pending=d.pending,
        turn_marriages=d.turn_marriages, last_winner=d.last_winner,
    )


def mid_play_deals(rules: Any, rng: random.Random, deals: int, max_steps: int) -> Iterator[TalonDeal]:
    """``deals`` shuffled deals, each played at random for up to ``max_steps - 1`` actions; those
    that ended meanwhile are left out."""
    for _ in range(deals):
        deck = list(rules.deck)
        rng.shuffle(deck)
        d = TalonDeal.new(rules, deck, rng.randrange(2))
        for _ in range(rng.randrange(max_steps)):
            if d.over:
                break
            d.step(rng.choice(d.legal_actions()))
        if not d.over:
            yield d


@pytest.mark.parametrize("variant", TWO_PLAYER)
def test_a_rebuilt_deal_plays_on_as_the_real_one(variant: str) -> None:
    rules = find_variant(variant).configure()
    rng = random.Random(variant)
    checked = 0
    for d in mid_play_deals(rules, rng, 60, 12):
        twin = rebuilt(d)
        assert twin.history == [] and twin.outcome is None
        while not d.over:
            assert twin.legal_actions() == d.legal_actions()
            assert (twin.talon_size, twin.trump_card, twin.strict) == (d.talon_size, d.trump_card, d.strict)
            a = rng.choice(d.legal_actions())
            d.step(a)
            twin.step(a)
        assert twin.over and twin.outcome == d.outcome
        checked += 1
    assert checked > 20


def test_from_public_takes_a_phase_name_and_refuses_a_card_in_two_places() -> None:
    rules = find_variant("schnapsen-at").configure()
    deck = list(rules.deck)
    d = TalonDeal.new(rules, deck, 0)
    assert rebuilt(d).phase == TalonDeal.LEAD
    kw = dict(dealer=0, hands=d.hands, talon=d.talon, trump=d.trump, to_act=1, leader=1)
    assert TalonDeal.from_public(rules, phase="lead", **kw).phase == TalonDeal.LEAD
    with pytest.raises(ValueError):
        TalonDeal.from_public(rules, phase="lead", **{**kw, "talon": [d.talon[0], *d.talon]})
    with pytest.raises(ValueError):
        TalonDeal.from_public(rules, phase="lead", **{**kw, "hands": [d.hands[0], d.hands[0]]})
    with pytest.raises(ValueError):
        TalonDeal.from_public(rules, phase="lead", **{**kw, "talon": [*d.talon, deck[0]]})  # deck[0] is in a hand
    with pytest.raises(ValueError):
        TalonDeal.from_public(rules, phase=7, **kw)


@pytest.mark.parametrize("variant", TWO_PLAYER)
def test_set_position_puts_a_scratch_copy_where_from_public_would(variant: str) -> None:
    """``TalonDeal.set_position`` (issue 23): a search copy moved, in place, to another deal's
    position (same talon, trump and closing) plays on exactly as that deal; the copied deal is
    untouched. Positions are the real deals' own, at random points of play."""
    rules = find_variant(variant).configure()
    rng = random.Random(f"set_position {variant}")
    checked = 0
    for d in mid_play_deals(rules, rng, 40, 14):
        if d.pending or d.turn_marriages:
            continue  # set_position starts a lead turn afresh (no marriage lead in progress)
        before = d.to_snapshot()
        scratch = d.search_copy()
        scratch.step(rng.choice(scratch.legal_actions()))  # somewhere else first
        scratch.set_position(hands=d.hands, phase=d.phase, to_act=d.to_act, leader=d.leader, lead_card=d.lead_card,
                             tricks_won=d.tricks_won, trick_points=d.trick_points,
                             marriage_points=d.marriage_points, won=d.won)
        scratch.tpos, scratch.talon, scratch.closed_by, scratch.close_snapshot = d.tpos, d.talon[:], d.closed_by, \
            d.close_snapshot  # what set_position keeps: the step above may have drawn or closed
        scratch.trick_no, scratch.announced, scratch.last_winner = d.trick_no, d.announced, d.last_winner
        assert scratch.history == [] and scratch.outcome is None
        assert d.to_snapshot() == before
        while not d.over:
            assert scratch.legal_actions() == d.legal_actions()
            a = rng.choice(d.legal_actions())
            d.step(a)
            scratch.step(a)
        assert scratch.outcome == d.outcome
        checked += 1
    assert checked > 15


def test_set_position_refuses_a_card_in_both_hands() -> None:
    rules = find_variant("schnapsen-at").configure()
    d = TalonDeal.new(rules, list(rules.deck), 0)
    with pytest.raises(ValueError, match="both hands"):
        d.search_copy().set_position(hands=(1, 1), phase=TalonDeal.LEAD, to_act=0, leader=0)

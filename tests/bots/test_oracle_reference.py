"""``bummerl bench strong --bot oracle`` (issue 24): the clairvoyant reference is ``strong-v1``'s
search on the real hidden cards. It must be shown exactly the real deal (else its figure bounds
nothing), win more than the same search on sampled deals, and exist only in the benchmark."""

from __future__ import annotations

import random

import pytest

from bummerl.bots import BOTS, make_bot
from bummerl.bots.strong import StrongV1Bot
from bummerl.rules import MatchState, find_variant, information_set, list_variants
from bummerl.rules import actions as A
from bummerl.rules.worlds import PublicDeal
from bummerl_bench.benches import bench_strong
from bummerl_bench.oracle import OracleBot, bench_bot, hidden_layout
from bummerl_client import InfoSet

VARIANTS = [v.id for v in list_variants() if v.num_players == 2]


class SpyOracle(OracleBot):
    """The oracle, keeping every world its search asked for (``worlds``)."""

    def __init__(self, seed: int, hand_only: bool = False) -> None:
        super().__init__(seed, hand_only)
        self.worlds: list[tuple[int, list[int]]] = []

    def _world(self, pub, rng, infer):  # type: ignore[no-untyped-def]
        w = super()._world(pub, rng, infer)
        self.worlds.append(w)
        return w


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_oracle_is_shown_the_real_deal_SRV_RECALL(variant: str) -> None:
    """At every decision of random single-deal games (suits relabelled as in a duplicate pair's
    second leg, talons closed now and then), the layout the harness shows the oracle rebuilds the
    engine's deal from the seat's information set: both hands, the talon in its order, the legal
    actions."""
    rng = random.Random(variant)
    rules = find_variant(variant).configure({})
    checked = 0
    for game in range(8):
        m = MatchState(rules, rng.randrange(2**62), max_deals=1, suit_perm=(1, 3, 0, 2) if game % 2 else ())
        while not m.over:
            seat = m.to_act
            d = PublicDeal(information_set(m, seat)).deal_state(*hidden_layout(m, seat))
            real = m.deal
            assert d.hands == real.hands and d.talon == real.talon[real.tpos:], (variant, game)
            assert d.legal_actions() == real.legal_actions()
            checked += 1
            legal = m.legal_actions()
            m.apply(A.CLOSE if A.CLOSE in legal and rng.random() < 0.2 else rng.choice(legal))
    assert checked > 70


def test_the_oracle_decides_on_the_real_cards_and_only_in_the_harness() -> None:
    """Its search gets the real layout every time it asks for a world, and it refuses to decide
    when nobody showed it the deal (a match or a ladder never does)."""
    rules = find_variant("schnapsen-at").configure({})
    m = MatchState(rules, 12345, max_deals=1)
    bot = SpyOracle(1)
    worlds = bot.worlds
    with pytest.raises(RuntimeError, match="harness"):
        bot.choose(InfoSet(information_set(m, m.to_act)))
    searched = 0
    while not m.over:
        seat = m.to_act
        bot.see(m, seat)
        real = hidden_layout(m, seat)
        worlds.clear()
        m.apply(int(bot.choose(InfoSet(information_set(m, seat)))))
        assert all(w == real for w in worlds), "a world that is not the real deal"
        searched += bool(worlds)
    assert searched >= 4  # decisions with a choice searched the real deal (forced ones do not search)
    assert "oracle" not in BOTS
    with pytest.raises(ValueError, match="unknown bot 'oracle'"):
        make_bot("oracle")
    assert isinstance(bench_bot("strong-v1:samples=2", 1), StrongV1Bot)
    with pytest.raises(ValueError, match="takes no options but 'hand'"):
        bench_bot("oracle:samples=3", 1)
    hand = bench_bot("oracle:hand", 1)
    assert isinstance(hand, OracleBot) and hand.hand_only


def test_the_hand_oracle_sees_the_hand_but_samples_the_talon_order() -> None:
    """``oracle:hand``: every world it searches has the opponent's real hand and the real talon
    cards, in orders of its own drawing (not always the real one)."""
    rules = find_variant("schnapsen-at").configure({})
    m = MatchState(rules, 777, max_deals=1)
    bot = SpyOracle(3, hand_only=True)
    worlds = bot.worlds
    bot.samples, bot.budget_ms = 8, 0.0  # a count of worlds, no clock: deterministic
    other_order = 0
    while not m.over and m.deal.tpos < len(m.deal.talon) - 3:
        seat = m.to_act
        bot.see(m, seat)
        hand, talon = hidden_layout(m, seat)
        worlds.clear()
        m.apply(int(bot.choose(InfoSet(information_set(m, seat)))))
        assert all(w[0] == hand and sorted(w[1]) == sorted(talon) for w in worlds)
        other_order += sum(w[1] != talon for w in worlds)
    assert other_order > 0


def test_clairvoyance_beats_the_same_search_on_sampled_deals() -> None:
    """Over 16 duplicate deal pairs (deterministic: both bots count samples, no clock) the oracle
    scores above one half against ``strong-v1`` at 4 samples, wins more pairs than it loses and
    more game points a deal; three- and four-seat variants are refused."""
    [r] = bench_strong(pairs=16, variant="schnapsen-at", bot="oracle", opponent="strong-v1:samples=4,seed=2")
    wins, losses = r["pentanomial"][4] + r["pentanomial"][3], r["pentanomial"][0] + r["pentanomial"][1]
    assert r["score"] > 0.5 and wins > losses and r["gp_margin_per_deal"] > 0, r
    with pytest.raises(ValueError, match="two-seat"):
        bench_strong(pairs=1, variant="stockschnapsen", bot="oracle", opponent="greedy")

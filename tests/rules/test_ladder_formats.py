"""Server formats of the match used by ladders (docs/RULES.md SRV-5 leaves them to the server): a deal
limit and suit relabelling of seeded decks (duplicate deals a bot cannot recognise)."""

from __future__ import annotations

import random

import pytest

from bummerl.rules import MatchState, find_variant, list_variants


def play_random(m: MatchState, seed: int) -> None:
    rng = random.Random(seed)
    while not m.over:
        m.apply(rng.choice(m.legal_actions()))


@pytest.mark.parametrize("variant", ["schnapsen-at", "snaps-original66", "santase", "snapszer-hu-2p", "snaps-obican"])
def test_srv5_deal_limit_ends_the_match_after_n_deals(variant: str) -> None:
    rules = find_variant(variant).configure({})
    for seed in range(8):
        m = MatchState(rules, seed, max_deals=1)
        play_random(m, seed)
        assert len(m.results) == 1 and m.end_reason in ("deal_limit", "target_reached")
        r = m.results[0]
        assert m.winner == (r.winner if r.winner >= 0 else -1)
        m3 = MatchState(rules, seed, max_deals=3)
        play_random(m3, seed)
        assert len(m3.results) <= 3
        if m3.end_reason == "deal_limit":
            totals = [sum(x.game_points[s] for x in m3.results) for s in (0, 1)]
            assert m3.winner == (0 if totals[0] > totals[1] else 1 if totals[1] > totals[0] else -1)
        again = MatchState.from_dict(m3.to_dict())
        assert again == m3


def test_srv5_suit_relabelling_maps_every_card_and_keeps_ranks() -> None:
    rules = find_variant("schnapsen-at").configure({})
    plain = MatchState(rules, 42)
    perm = (2, 0, 3, 1)
    relabelled = MatchState(rules, 42, suit_perm=perm)
    for n in range(3):
        a, b = plain.deck_for(n), relabelled.deck_for(n)
        assert [perm[c // 6] * 6 + c % 6 for c in a] == list(b)
    assert plain.first_dealer == relabelled.first_dealer
    d0, d1 = plain.deal, relabelled.deal
    assert perm[d0.talon[-1] // 6] == d1.talon[-1] // 6  # the trump suit follows the permutation
    m = MatchState(rules, 42, suit_perm=perm, max_deals=2)
    play_random(m, 1)
    assert MatchState.from_dict(m.to_dict()) == m
    assert MatchState.from_snapshot(m.snapshot()) == m
    with pytest.raises(ValueError, match="permutation"):
        MatchState(rules, 1, suit_perm=(0, 0, 1, 2))


class _CountingMatch(MatchState):
    """A match that records which deals' decks it was asked for."""

    __slots__ = ("asked",)

    def deck_for(self, n: int, rules: object = None) -> list[int] | tuple[int, ...]:
        try:
            self.asked.append(n)
        except AttributeError:
            self.asked = [n]
        return super().deck_for(n, rules)  # type: ignore[arg-type]


@pytest.mark.parametrize("variant", [v.id for v in list_variants()])
def test_srv5_deal_limit_deals_no_deal_after_the_last(variant: str) -> None:
    """SRV-5: a match ended by its deal limit shuffles no deck for a deal nobody plays (the plan's
    next deal is made only when it is played); every deal played was dealt once."""
    rules = find_variant(variant).configure({})
    for seed in range(6):
        for limit in (1, 2):
            m = _CountingMatch(rules, seed, max_deals=limit)
            play_random(m, seed)
            assert m.over
            assert sorted(m.asked) == list(range(len(m.results))), (seed, limit, m.asked)


@pytest.mark.parametrize("variant", [v.id for v in list_variants()])
def test_step_and_apply_say_whether_the_deal_was_scored(variant: str) -> None:
    """``MatchState.step`` / ``apply`` return True exactly when the action finished a deal (its
    result is recorded and the match is over or the next deal is dealt), every legal action of a
    legal_actions list ascending (the Deal protocol)."""
    rules = find_variant(variant).configure({})
    for seed in range(4):
        m = MatchState(rules, seed, max_deals=3)
        rng = random.Random(seed)
        use_apply = False
        while not m.over:
            legal = m.legal_actions()
            assert legal == sorted(set(legal))
            before = (len(m.results), m.deal_number)
            a = rng.choice(legal)
            scored = m.apply(a) if use_apply else m.step(a)
            use_apply = not use_apply
            assert scored == (len(m.results) == before[0] + 1)
            assert scored == (m.over or m.deal_number == before[1] + 1)


@pytest.mark.parametrize("variant", [v.id for v in list_variants()])
def test_step_without_settling_then_settle_deal_is_the_same_match(variant: str) -> None:
    """``step(a, settle=False)`` leaves a finished deal unscored; ``settle_deal()`` then gives
    exactly the match an eager step gives (results, scores, next deal or end, SRV-5 limit), and
    the plan's ``credit`` before settling is the recorded result's game points."""
    rules = find_variant(variant).configure({})
    for seed in range(4):
        eager = MatchState(rules, seed, max_deals=2)
        lazy = MatchState(rules, seed, max_deals=2)
        rng = random.Random(seed)
        while not eager.over:
            a = rng.choice(eager.legal_actions())
            assert eager.step(a) == lazy.step(a, settle=False)
            if lazy.deal.outcome is not None and not lazy.over:
                credit = lazy.plan.credit(lazy, lazy.deal) if lazy.playoff is None else None
                n = len(lazy.results)
                lazy.settle_deal()
                lazy.settle_deal()  # a second call changes nothing
                assert len(lazy.results) == n + 1
                if credit is not None:
                    assert tuple(lazy.results[-1].game_points) == tuple(credit)
            assert lazy.to_dict() == eager.to_dict()


@pytest.mark.parametrize("variant", ["schnapsen-at", "snapszer-hu-3p-sopron"])
def test_srv5_the_deal_limit_is_in_every_information_set_and_the_public_view(variant: str) -> None:
    """SRV-5: a game of N deals says so (``match.max_deals``, 0 = a whole match): a bot plans for
    the format it plays (a ladder's ``deals_per_game``) from its information set alone."""
    from bummerl.rules import information_set, public_view

    rules = find_variant(variant).configure({})
    for limit in (0, 1, 3):
        m = MatchState(rules, 4, max_deals=limit)
        views = [information_set(m, s) for s in range(m.num_seats)] + [public_view(m)]
        assert all(v["match"]["max_deals"] == limit for v in views)

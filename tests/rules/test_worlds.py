"""The engine's world sampling (``bummerl.rules.worlds``, issue 36), on every variant against the
engine's own deals: a world drawn by :func:`sample_world` from a seat's information set (RULES.md
§14) shows that seat exactly what the seat was shown and offers it the same legal actions, and the
real deal is among the worlds the sampler holds possible (no card the other seats really hold is
excluded, DEF-PLAY-STRICT inferences included)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bummerl.rules import (
    MatchState,
    TalonDeal,
    apply,
    information_set,
    legal_actions,
    list_variants,
    new_match,
)
from bummerl.rules.search import ContractDeal, cards_of
from bummerl.rules.worlds import (
    ContractSampler,
    InconsistentInfo,
    PublicDeal,
    is_rotation_deal,
    local_view,
    sample_world,
)

VARIANTS = [v.id for v in list_variants()]

#: Parts of the deal view that the world must show the seat as the real deal did, but these:
#: ``phase``, ``to_act`` and ``seats`` are set by the match; a two-player world built by
#: ``TalonDeal.from_public`` starts with no history of its own (the real one is handed to its
#: view), so the list of marriages, read from the history, is compared through the history.
SKIP = frozenset(("phase", "to_act", "seats", "history", "marriages"))


def positions(variant: str, matches: int, seed: int) -> Iterator[MatchState]:
    """Decision points of ``matches`` random matches (every third one, and the first of a deal)."""
    rng = random.Random(seed)
    for k in range(matches):
        m = new_match(variant, seed=seed * 1000 + k)
        steps = 0
        while not m.over and steps < 400:
            acts = legal_actions(m)
            if steps % 3 == 0:
                yield m
            m = apply(m, rng.choice(acts))
            steps += 1


def world_view(world: TalonDeal | ContractDeal, info: dict[str, Any]) -> dict[str, Any]:
    """What ``world`` shows the information set's seat (the ``deal`` part of §14)."""
    seat, n = int(info["seat"]), int(info["num_seats"])
    number = int(info["match"].get("deal_number", 0))
    if isinstance(world, TalonDeal):
        view = world.view(seat, number, history=info["deal"]["history"], num_seats=n)
    else:
        view = world.view(seat)
    return dict(view)


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_sampled_world_shows_the_seat_what_it_was_shown(variant: str) -> None:
    rng = random.Random(variant)
    checked = 0
    for m in positions(variant, 6, seed=3):
        me = m.to_act
        info = dict(information_set(m, me))
        for _ in range(2):
            world = sample_world(info, rng)
            view = world_view(world, info)
            for key, value in info["deal"].items():
                if key not in SKIP and key in view:
                    assert view[key] == value, (variant, key, len(m.actions), view[key], value)
            assert sorted(world.legal_actions()) == sorted(legal_actions(m)), (variant, len(m.actions))
            checked += 1
    assert checked >= 40, checked


def _two_player_truth(m: MatchState, me: int, info: dict[str, Any]) -> None:
    """The real opponent hand and face-down talon are a layout :class:`PublicDeal` allows."""
    d = m.deal
    assert isinstance(d, TalonDeal)
    pub = PublicDeal(local_view(info) if is_rotation_deal(info) else info)
    mine = d.seats.index(me)
    opp_hand = d.hands[1 - mine]
    assert d.hands[mine] == pub.hand
    assert opp_hand & pub.opp_known == pub.opp_known  # every card known to be his, he holds
    assert opp_hand & pub.forbidden == 0  # no card the strict-play inference excludes
    hidden = opp_hand & ~pub.opp_known
    assert hidden & ~pub.unseen == 0 and bin(hidden).count("1") == pub.free_slots
    talon = d.talon[d.tpos:]
    face_down = talon[:-1] if pub.bottom >= 0 else talon
    assert all(pub.unseen >> c & 1 for c in face_down)
    # and that layout, built by the engine's public constructor, is the real deal's future
    real = pub.deal_state(hidden | pub.opp_known, list(face_down), (d.seats[0], d.seats[1]))
    assert sorted(real.legal_actions()) == sorted(d.legal_actions())


def _contract_truth(m: MatchState, me: int, info: dict[str, Any]) -> None:
    """No card another seat really holds is excluded, and every hidden card is in the pool."""
    d = m.deal
    assert isinstance(d, ContractDeal)
    sampler = ContractSampler(info)
    for s in range(m.num_seats):
        if s != me:
            assert sampler.forbidden[s] & d.hands[s] == 0, (s, cards_of(sampler.forbidden[s] & d.hands[s]))
            assert d.hands[s] & ~(sampler.unseen | sampler.known[s]) == 0, s


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_real_deal_is_among_the_possible_worlds(variant: str) -> None:
    checked = 0
    for m in positions(variant, 6, seed=5):
        for me in range(m.num_seats):
            info = dict(information_set(m, me))
            if isinstance(m.deal, TalonDeal):
                if me not in m.deal.seats:
                    continue  # the seat sitting out of a rotation deal (STK-SEAT-1)
                _two_player_truth(m, me, info)
            else:
                _contract_truth(m, me, info)
            checked += 1
    assert checked >= 40, checked


def test_a_world_is_repeatable_from_the_seed() -> None:
    m = new_match("schnapsen-at", seed=9)
    for _ in range(5):
        m = apply(m, legal_actions(m)[0])
    info = dict(information_set(m, m.to_act))
    a, b = sample_world(info, random.Random(4)), sample_world(info, random.Random(4))
    assert isinstance(a, TalonDeal) and isinstance(b, TalonDeal)
    assert (a.hands, a.talon) == (b.hands, b.talon)


def test_an_altered_information_set_has_no_world() -> None:
    """A talon size the history cannot give is :class:`InconsistentInfo` (a ValueError)."""
    m = new_match("santase", seed=2)
    info = dict(information_set(m, m.to_act))
    info["deal"] = dict(info["deal"], talon_size=int(info["deal"]["talon_size"]) - 2)
    with pytest.raises(InconsistentInfo):
        sample_world(info, random.Random(1))


def test_the_readme_example_runs_as_printed() -> None:
    """README, "Worlds for a search bot": the example block runs unchanged."""
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    section = readme.split("**Worlds for a search bot.**", 1)[1]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    exec(compile(code, "README.md", "exec"), {})  # noqa: S102 - the README's own example

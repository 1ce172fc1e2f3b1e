"""The tensor encoding of an information set (service/bummerl/envs/encoding.py): each named piece
holds what the information set says (RULES §14.1), seats relative to the observer, every entry
in [0, 1], and the history rows bound every deal of every variant."""

from __future__ import annotations

import random

import pytest

np = pytest.importorskip("numpy", reason="needs the learning extra: pip install 'bummerl[learning]'")

from bummerl.envs.encoding import EVENT_KINDS, Encoder  # noqa: E402
from bummerl.rules import apply, information_set, legal_actions, list_variants, new_match  # noqa: E402
from bummerl.rules.base.cards import parse_card  # noqa: E402

SPECS = list_variants()


def cards(piece: np.ndarray) -> set[int]:
    return {int(i) for i in np.flatnonzero(piece)}


@pytest.mark.parametrize("spec", SPECS, ids=[s.id for s in SPECS])
def test_pieces_hold_the_information_set(spec) -> None:
    rng = random.Random(spec.id)
    n = spec.num_players
    m = new_match(spec.id, seed=rng.randrange(2**32))
    enc = Encoder(n, len(m.rules.deck))
    steps = 0
    while not m.over and steps < 400:
        seat = rng.randrange(n)
        info = information_set(m, seat)
        deal = info["deal"]
        flat = enc.encode(info, perfect_recall=True)
        assert flat.shape == (enc.info_size,) and flat.min() >= 0.0 and flat.max() <= 1.0
        assert np.array_equal(flat[:enc.size], enc.encode(info))  # the observation is the prefix
        v = enc.views(flat, True)
        assert cards(v["hand"]) == {parse_card(c) for c in deal["hand"]}
        assert cards(v["seat"]) == {seat}
        to_act = deal["to_act"]
        assert cards(v["to_act"]) == ({(to_act - seat) % n} if to_act >= 0 else set())
        for t in deal["current_trick"]:
            assert v["current_trick"][(t["seat"] - seat) % n, parse_card(t["card"])] == 1.0
        # own won cards only, and only where the variant shows them (§14.2: won cards as a set are
        # a derived field; they were filled for every seat in every variant from the trick events)
        own = {parse_card(c) for c in (deal.get("own_tricks") or {}).get("won_cards", ())}
        assert [cards(v["won_cards"][i]) for i in range(n)] == [own] + [set()] * (n - 1)
        rows = v["history"][:, :len(EVENT_KINDS)].sum(axis=1)
        assert int(rows.sum()) == len(deal["history"]) and rows.max() <= 1.0  # one kind per event row
        m = apply(m, rng.choice(legal_actions(m)))
        steps += 1


def test_encoder_refuses_another_table_size() -> None:
    info = information_set(new_match("bauernschnapsen", seed=1), 0)
    with pytest.raises(ValueError, match="4 seats"):
        Encoder(2, 20).encode(info)

"""Golden deals of ``bauernschnapsen`` and ``talonschnapsen`` (tests/golden/<variant>/*.json),
hand-written from docs/RULES.md, played here at deal level (``arrange`` + ``new`` + ``step``)
until the generic match runner takes them over.

Format: tests/golden/README.md, except ``hands`` (one list per seat, first three cards = first
batch), ``talon`` (the Talonschnapsen talon, else ``[]``), no ``trump_card``; the result is
``awards`` (game points per seat of the deal), ``reason``, optional ``contract`` and
``multiplier``; optional ``start.game_points`` and ``match`` (``over``, ``winner``,
``game_points``) check the end of a match with :func:`~bummerl.rules.contract_at.match_decision`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bummerl.rules.actions import action_to_string, parse_action
from bummerl.rules.contract_at import match_decision
from bummerl.rules.errors import IllegalActionError

from .at_helpers import BS, TS, hand

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
SPECS = {BS.id: BS, TS.id: TS}
FILES = sorted(p for v in SPECS for p in (GOLDEN / v).glob("*.json"))


def norm(texts: list[str]) -> set[str]:
    return {action_to_string(parse_action(t)) for t in texts}


def test_at_least_twelve_golden_deals_per_variant() -> None:
    for v in SPECS:
        assert len(list((GOLDEN / v).glob("*.json"))) >= 12, v


@pytest.mark.parametrize("path", FILES, ids=[f"{p.parent.name}/{p.stem}" for p in FILES])
def test_golden_deal(path: Path) -> None:
    g: dict[str, Any] = json.loads(path.read_text())
    spec = SPECS[path.parent.name]
    rules = spec.configure(g.get("options", {}))
    deck = spec.deal_class.arrange(rules, g["dealer"], g["hands"], g["talon"])
    d = spec.deal_class.new(rules, deck, g["dealer"])
    for i, step in enumerate(g["steps"]):
        where = f"{path.name} step {i} {step}"
        legal = {action_to_string(a) for a in d.legal_actions()}
        if "legal" in step:
            assert legal == norm(step["legal"]), where
        if "legal_includes" in step:
            assert norm(step["legal_includes"]) <= legal, where
        if "legal_excludes" in step:
            assert not norm(step["legal_excludes"]) & legal, where
        if "to_act" in step:
            assert d.to_act == step["to_act"], where
        if "hand" in step:
            seat, cards = step["hand"]
            assert hand(d, seat) == {c.upper() for c in cards}, where
        if "act" in step:
            if "seat" in step:
                assert d.to_act == step["seat"], where
            a = parse_action(step["act"], spec.action_kinds)
            if step.get("error") == "illegal":
                before = d.to_snapshot()
                with pytest.raises(IllegalActionError):
                    d.step(a)
                assert d.to_snapshot() == before, where
            else:
                assert not d.over, where
                d.step(a)
    assert d.over and d.outcome is not None, path.name
    assert list(d.outcome.awards) == g["awards"], path.name
    assert d.outcome.reason == g["reason"], path.name
    if "contract" in g:
        assert d.contract == g["contract"], path.name
    if "multiplier" in g:
        assert d.multiplier == g["multiplier"], path.name
    if "match" in g:
        start = g.get("start", {}).get("game_points", [0] * spec.num_players)
        scores = [a + b for a, b in zip(start, d.outcome.awards, strict=True)]
        over, winner, _ = match_decision(scores, rules.options["match_target"], spec.teams)
        m = g["match"]
        assert (over, winner) == (m["over"], m["winner"]) and scores == m.get("game_points", scores), path.name

"""Golden deals of the Hungarian contract games (tests/golden/snapszer-hu-3p-sopron/,
tests/golden/snapszer-hu-4p/), hand-written from docs/RULES.md §11/§12, replayed at deal level:
:meth:`~bummerl.rules.contract_hu.HuContractDeal.arrange` + ``new`` + ``step`` +
``legal_actions`` + ``outcome.awards`` (until the match layer drives contract deals).

File format: as tests/golden/README.md, but ``hands`` has one list per seat (the hívó's first
round first), no ``trump_card``/``talon``; ``awards`` (game points per seat), ``reason``,
``contract``, ``multiplier``; optional ``start.game_points`` (per seat, per team in 4p) and
``match`` (``over``, ``winner``, ``playoff``) checked with :func:`match_verdict`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bummerl.rules.actions import action_to_string, parse_action
from bummerl.rules.cards import card_code, parse_card
from bummerl.rules.contract_hu import HuContractDeal, match_verdict
from bummerl.rules.errors import IllegalActionError
from bummerl.rules.variants.snapszer_hu3s import SPEC as SOPRON
from bummerl.rules.variants.snapszer_hu4 import SPEC as FOUR

from . import test_snapszer_hu3s  # noqa: F401  (keeps the HU contract variants out of the generic registry)

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
SPECS = {SOPRON.id: SOPRON, FOUR.id: FOUR}
FILES = sorted(p for v in SPECS for p in (GOLDEN / v).glob("*.json"))


def norm(texts: list[str]) -> set[str]:
    return {action_to_string(parse_action(t)) for t in texts}


def legal(d: HuContractDeal) -> set[str]:
    return {action_to_string(a) for a in d.legal_actions()}


def test_enough_golden_deals_per_variant() -> None:
    for v in SPECS:
        assert len(list((GOLDEN / v).glob("*.json"))) >= 12, v


@pytest.mark.parametrize("path", FILES, ids=[f"{p.parent.name}/{p.stem}" for p in FILES])
def test_golden_contract_deal(path: Path) -> None:
    g: dict[str, Any] = json.loads(path.read_text())
    spec = SPECS[path.parent.name]
    rules = spec.configure(g.get("options", {}))
    cls = spec.deal_class
    d = cls.new(rules, cls.arrange(rules, g["dealer"], g["hands"]), g["dealer"])
    for i, step in enumerate(g["steps"]):
        where = f"{path.name} step {i} {step}"
        if "legal" in step:
            assert legal(d) == norm(step["legal"]), where
        if "legal_includes" in step:
            assert norm(step["legal_includes"]) <= legal(d), where
        if "legal_excludes" in step:
            assert not (norm(step["legal_excludes"]) & legal(d)), where
        if "to_act" in step:
            assert d.to_act == step["to_act"], where
        if "hand" in step:
            seat, cards = step["hand"]
            assert set(d.view(seat)["hand"]) == {card_code(parse_card(c)) for c in cards}, where
        if "act" in step:
            assert d.to_act == step["seat"], where
            a = parse_action(step["act"], spec.action_kinds)
            if step.get("error") == "illegal":
                assert a not in d.legal_actions(), where
                with pytest.raises(IllegalActionError):
                    d.step(a)
            else:
                assert a in d.legal_actions(), f"{where}: legal {sorted(legal(d))}"
                d.step(a)
    assert d.over and d.outcome is not None, path.name
    assert list(d.outcome.awards) == g["awards"], path.name
    assert d.outcome.reason == g["reason"], path.name
    if "contract" in g:
        assert d.contract == g["contract"], path.name
    if "multiplier" in g:
        assert d.multiplier == g["multiplier"], path.name
    if "match" in g:
        start = g.get("start", {}).get("game_points")
        if spec.teams:  # per team: one member's award is the team's
            n_teams = max(spec.teams) + 1
            start = start or [0] * n_teams
            totals = [start[t] + next(g["awards"][s] for s in range(spec.num_players) if spec.teams[s] == t)
                      for t in range(n_teams)]
        else:
            start = start or [0] * spec.num_players
            totals = [a + b for a, b in zip(start, g["awards"], strict=True)]
        verdict = match_verdict(totals, int(rules.options["match_target"]))
        m = g["match"]
        assert (verdict.winner >= 0) == m["over"], path.name
        assert verdict.winner == m["winner"] and list(verdict.playoff) == m.get("playoff", []), path.name


def test_every_hu_contract_rule_id_has_a_test() -> None:
    """Every HU3S-*, HU4-*, OPEN-HU3S-*, OPEN-HU4-* id of docs/RULES.md §11/§12 names a test."""
    import re

    text = (GOLDEN.parents[1] / "docs" / "RULES.md").read_text()
    ids = set(re.findall(r"\*\*((?:HU3S|HU4)-[A-Z]+-\d+)\*\*", text))
    ids |= set(re.findall(r"\*\*(OPEN-(?:HU3S|HU4)-\d+)\b", text))
    assert len(ids) > 50
    here = Path(__file__).parent
    names = "\n".join(n for p in here.glob("test_*hu*.py") for n in re.findall(r"def (test_\w+)", p.read_text()))
    missing = sorted(i for i in ids if f"test_{i.replace('-', '_')}" not in names)
    assert not missing, missing

"""Golden deals of the contract games (tests/golden/{bauernschnapsen,talonschnapsen,
snapszer-hu-3p-sopron,snapszer-hu-4p}/*.json), hand-written from docs/RULES.md §9-§12 and played
through the match (:class:`~bummerl.rules.match.state.MatchState`), as remote bots play them.

Format: tests/golden/README.md, except ``hands`` (one list per seat, in dealing order: the
first batch first), ``talon`` (the Talonschnapsen talon, else absent or ``[]``), no
``trump_card``; the deal's result is ``awards`` (game points per seat), ``reason``, optional
``contract`` and ``multiplier``; optional ``start.game_points`` (per seat; per team where the file
lists one entry per team) and ``match`` (``over``, ``winner`` = team or seat, ``playoff`` = the
tied seats who play a play-off deal, ``game_points``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from test_golden import apply_step, check_view

from bummerl.rules import MatchState, find_variant

HERE = Path(__file__).parent
VARIANTS = ("bauernschnapsen", "talonschnapsen", "snapszer-hu-3p-sopron", "snapszer-hu-4p")
FILES = sorted(p for v in VARIANTS for p in (HERE / v).glob("*.json"))


def load_match(g: dict[str, Any], variant: str) -> MatchState:
    spec = find_variant(variant)
    rules = spec.configure(g.get("options", {}))
    cls = spec.deal_class
    talon = g.get("talon") or ()
    deck = cls.arrange(rules, g["dealer"], g["hands"], talon) if talon else cls.arrange(rules, g["dealer"], g["hands"])
    m = MatchState(rules, seed=0, decks=[deck], first_dealer=g["dealer"])
    start = g.get("start", {}).get("game_points")
    if start:
        team = spec.team_of_seat
        m.game_points = [start[team[s]] for s in range(spec.num_players)] if len(start) < spec.num_players else list(start)
    return m


def test_at_least_twelve_golden_deals_per_contract_game() -> None:
    for v in VARIANTS:
        assert len(list((HERE / v).glob("*.json"))) >= 12, v


@pytest.mark.parametrize("path", FILES, ids=[f"{p.parent.name}/{p.stem}" for p in FILES])
def test_golden_contract_deal(path: Path) -> None:
    g: dict[str, Any] = json.loads(path.read_text())
    variant = path.parent.name
    m = load_match(g, variant)
    for i, step in enumerate(g["steps"]):
        where = f"{path.name} step {i} {step}"
        check_view(m, step, where)
        if "to_act" in step:  # -1: the deal is over (the match has moved on to the next deal or ended)
            if step["to_act"] == -1:
                assert m.results, where
            else:
                assert m.to_act == step["to_act"] and not m.results, where
        if "act" in step:
            if "seat" in step:
                assert m.to_act == step["seat"], where
            assert m.deal_number == 0 and not m.over, where
            apply_step(m, step, where)
    assert m.results, f"{path.name}: the deal did not end"
    r = m.results[0]
    assert list(r.game_points) == g["awards"], path.name
    assert r.reason == g["reason"], path.name
    if "contract" in g:
        assert r.contract == g["contract"], path.name
    if "multiplier" in g:
        assert r.multiplier == g["multiplier"], path.name
    if "match" in g:
        want = g["match"]
        tied = tuple(m.playoff["groups"][0][1]) if m.playoff else ()
        assert m.over == want["over"], path.name
        assert m.winner == want["winner"], path.name
        assert list(tied) == want.get("playoff", []), path.name
        if "game_points" in want and len(want["game_points"]) == m.num_seats:
            assert m.game_points == want["game_points"], path.name

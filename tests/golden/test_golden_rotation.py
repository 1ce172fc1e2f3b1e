"""Golden deals of the three-player rotation games (tests/golden/stockschnapsen/matches/*.json,
tests/golden/snapszer-hu-3p-rotation/matches/*.json), hand-written from docs/RULES.md §7 / §8 and
the two-player sections they inherit (§2 by STK-INH-1, §6 by HU3R-INH-1), played through the
match (:class:`~bummerl.rules.match.state.MatchState`) deal after deal, as remote bots play them.

Format: tests/golden/README.md, section "Rotation games". A file is a match (or the end of one)
as a list of ``deals``; each deal names its dealer and leader (the rotation the rules prescribe,
checked before the deal is played), the hands by match seat (``[]`` for the seat that sits out),
the trump card and the talon, its steps, and the checks of its result and of the match after it.

The files live one level down (``<variant>/matches/``) so that test_golden.py, which replays
every ``tests/golden/*/*.json`` as a two-player deal, does not pick them up.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from test_golden import apply_step, check_fields, check_view

from bummerl.rules import DealState, MatchState, find_variant, information_set
from bummerl.rules.deals.talon import arrange_deck

HERE = Path(__file__).parent
VARIANTS = ("stockschnapsen", "snapszer-hu-3p-rotation")
FILES = sorted(p for v in VARIANTS for p in (HERE / v / "matches").glob("*.json"))


def _param(p: Path) -> Any:
    """A file with ``"xfail": "<rule id>: reason"`` shows an engine disagreement with the rules text:
    it must fail (strict xfail) until the engine is fixed."""
    reason = json.loads(p.read_text(encoding="utf-8")).get("xfail")
    marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
    return pytest.param(p, marks=marks, id=f"{p.parent.parent.name}/{p.stem}")


def _sitter(deal: dict[str, Any]) -> int:
    empty = [s for s, h in enumerate(deal["hands"]) if not h]
    assert len(empty) == 1, "exactly one seat sits out (hands: [] for it)"
    return empty[0]


def _deck(rules: Any, deal: dict[str, Any]) -> list[int]:
    """The deck that deals ``hands`` with ``dealer`` dealing to ``leader`` (the deck order depends
    only on who deals, AT-DEAL-1 / HU2-DEAL-1 with SRV-1)."""
    hands = deal["hands"]
    return arrange_deck(rules, 0, (hands[deal["dealer"]], hands[deal["leader"]]), deal["trump_card"], deal["talon"])


def load_match(g: dict[str, Any], variant: str) -> MatchState:
    rules = find_variant(variant).configure(g.get("options", {}))
    decks = [_deck(rules, d) for d in g["deals"]]
    m = MatchState(rules, seed=0, decks=decks, first_dealer=g["deals"][0]["dealer"])
    start = g.get("start", {}).get("game_points")
    if start:
        m.game_points = list(start)
    return m


def check_deal_start(m: MatchState, deal: dict[str, Any], i: int, where: str) -> MatchState:
    """Before deal ``i``: the rotation put the expected pair at the table (dealer, leader, the
    seat that sits out). A play-off deal's dealer is drawn at random (STK-MATCH-4): the file fixes
    the draw as it fixes the shuffle, and the deal is dealt again with that dealer if the server's
    draw was the other player."""
    assert not m.over and len(m.results) == i, f"{where}: deal {i} did not start"
    assert m.deal_number == i, where
    sitter = _sitter(deal)
    want = {deal["dealer"], deal["leader"]}
    assert sitter not in want, where
    playoff = bool(deal.get("playoff"))
    assert (m.playoff is not None) == playoff, f"{where}: play-off deal expected: {playoff}"
    assert set(m.deal.seats) == want, f"{where}: seats {m.deal.seats}, expected {sorted(want)}"
    if playoff and m.dealer != deal["dealer"]:
        seats = m.deal.seats
        m.deal = DealState.new(m.rules, _deck(m.rules, deal), seats.index(deal["dealer"]), seats, m.num_seats)
    assert m.dealer == deal["dealer"], f"{where}: dealer {m.dealer}, expected {deal['dealer']}"
    assert m.to_act == deal["leader"], f"{where}: {m.to_act} leads, expected {deal['leader']}"
    check_sits_out(m, sitter, where)
    return m


def check_sits_out(m: MatchState, seat: int, where: str) -> None:
    """STK-SEAT-1 / HU3R-INH-1 and §14.3: the seat that sits out holds no cards, is never to act,
    and sees neither active hand (only public information)."""
    assert seat not in m.deal.seats and m.to_act != seat, where
    info = information_set(m, seat)
    assert info["deal"]["hand"] == [] and info["legal_actions"] == [], where
    assert info["deal"]["hand_sizes"][seat] == 0, where


def check_match(m: MatchState, want: dict[str, Any], where: str) -> None:
    tied = list(m.playoff["groups"][0][1]) if m.playoff else []
    got = {"over": m.over, "winner": m.winner, "game_points": m.game_points, "placements": m.placements,
           "playoff": tied, "deal_number": m.deal_number, "dealer": m.dealer, "to_act": m.to_act,
           "deal_seats": sorted(m.deal.seats)}
    for k, v in want.items():
        assert got[k] == v, f"{where}: match[{k}] = {got[k]!r}, expected {v!r}"


def run_steps(m: MatchState, steps: list[dict[str, Any]], where0: str) -> None:
    n = m.deal_number
    for i, step in enumerate(steps):
        where = f"{where0} step {i} {step}"
        assert m.deal_number == n and len(m.results) == n, f"{where}: the deal is already over"
        check_view(m, step, where)
        if "to_act" in step:
            assert m.to_act == step["to_act"], where
        if "sits_out" in step:
            check_sits_out(m, step["sits_out"], where)
        check_fields(m, step, where, m.deal.seats[0])
        if "act" in step:
            assert m.to_act == step["seat"], where
            apply_step(m, step, where)


def test_at_least_twelve_golden_deals_per_rotation_game() -> None:
    for v in VARIANTS:
        assert len(list((HERE / v / "matches").glob("*.json"))) >= 12, v


RULES_MD = HERE.parents[1] / "docs" / "RULES.md"
RULE_ID = re.compile(r"\*\*((?:OPEN-)?[A-Z][A-Z0-9]*-[A-Z0-9]+(?:-[0-9]+)?)\b")


def _section(text: str, number: int) -> str:
    return text.split(f"\n## {number}. ")[1].split("\n## ")[0]


def test_rotation_golden_deals_cover_every_rule_of_their_sections() -> None:
    """Together the files of a variant name every rule id and OPEN item of its section (§7, §8),
    and every rule id they name exists in docs/RULES.md."""
    text = RULES_MD.read_text(encoding="utf-8")
    known = set(RULE_ID.findall(text)) | set(re.findall(r"\b(SRV-[0-9]+)\b", text))
    for number, v in ((7, "stockschnapsen"), (8, "snapszer-hu-3p-rotation")):
        named = {r for p in (HERE / v / "matches").glob("*.json") for r in json.loads(p.read_text(encoding="utf-8"))["rules"]}
        assert named <= known, f"{v}: unknown rule ids {sorted(named - known)}"
        own = set(RULE_ID.findall(_section(text, number)))
        assert own and own <= named, f"{v}: rules of §{number} no golden deal names: {sorted(own - named)}"


@pytest.mark.parametrize("path", [_param(p) for p in FILES])
def test_golden_rotation_match(path: Path) -> None:
    g: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    m = load_match(g, path.parent.parent.name)
    for i, deal in enumerate(g["deals"]):
        where = f"{path.name} deal {i}"
        m = check_deal_start(m, deal, i, where)
        run_steps(m, deal["steps"], where)
        assert len(m.results) == i + 1, f"{where}: the deal did not end"
        got = m.results[i].to_dict()
        assert got["seats"] and set(got["seats"]) == {deal["dealer"], deal["leader"]}, where
        assert got["playoff"] == bool(deal.get("playoff")), where
        for k, v in deal.get("result", {}).items():
            assert got[k] == v, f"{where}: result[{k}] = {got[k]!r}, expected {v!r}"
        check_match(m, deal.get("match", {}), where)
    check_match(m, g.get("match", {}), path.name)

"""Golden deals (tests/golden/README.md): hand-written scenarios from docs/RULES.md, replayed here."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bummerl.rules import (
    IllegalActionError,
    MatchState,
    action_to_string,
    apply,
    find_variant,
    information_set,
    parse_action,
    views,
)
from bummerl.rules.base.cards import card_code, parse_card
from bummerl.rules.deals.talon import arrange_deck

#: The golden files spell the deal view as the README shows (the engine's short names): a
#: ``talon_state`` of ``"open"`` / ``"closed"`` / ``"exhausted"`` and the flat ``own_*`` keys. The
#: information set has the proto shape (bummerl.rules.base.views): ``"TALON_STATE_OPEN"`` and the
#: ``own_tricks`` sub-dict. Both spellings are accepted in the files.
OWN_TRICKS_KEYS = {"own_trick_points": "trick_points", "own_won_cards": "won_cards", "own_deal_points": "deal_points"}
MISSING = object()


def view_value(deal: dict[str, Any], key: str) -> Any:
    """The value of a golden file's deal-view ``key`` in the seat's ``deal`` view (MISSING if absent)."""
    if key in OWN_TRICKS_KEYS:
        return deal.get("own_tricks", {}).get(OWN_TRICKS_KEYS[key], MISSING)
    return deal.get(key, MISSING)


def expected_value(key: str, value: Any) -> Any:
    """A golden file's value in the view's spelling (``"closed"`` -> ``"TALON_STATE_CLOSED"``)."""
    if key == "talon_state":
        return views.TALON_STATES.get(value, value)
    if key == "phase":
        return views.PHASES.get(value, value)
    return value


HERE = Path(__file__).parent
#: Contract games: replayed at deal level by tests/rules/test_contract_golden_at.py / _hu.py
#: (their files have one hand per seat and no trump card).
CONTRACT_DIRS = {"bauernschnapsen", "talonschnapsen", "snapszer-hu-3p-sopron", "snapszer-hu-4p"}  # test_golden_contract.py
FILES = sorted(p for p in HERE.glob("*/*.json") if p.parent.name not in CONTRACT_DIRS)


def load_match(spec: dict[str, Any], variant: str) -> MatchState:
    rules = find_variant(variant).configure(spec.get("options", {}))
    dealer = spec["dealer"]
    deck = arrange_deck(rules, dealer, (spec["hands"][0], spec["hands"][1]), spec["trump_card"], spec["talon"])
    m = MatchState(rules, seed=0, decks=[deck], first_dealer=dealer)
    start = spec.get("start", {})
    m.game_points = list(start.get("game_points", [0, 0]))
    m.sets_won = list(start.get("sets_won", [0, 0]))
    m.carried = start.get("carried", 0)
    return m


def legal_texts(m: MatchState) -> set[str]:
    return {action_to_string(a) for a in m.legal_actions()}


def norm(texts: list[str]) -> set[str]:
    return {action_to_string(parse_action(t)) for t in texts}


def check_view(m: MatchState, step: dict[str, Any], where: str) -> None:
    """The checks of a golden step that only look (shared with test_golden_contract.py): the exact
    legal set, legal_includes / legal_excludes, and a seat's hand."""
    if "legal" in step:
        assert legal_texts(m) == norm(step["legal"]), where
    if "legal_includes" in step:
        assert norm(step["legal_includes"]) <= legal_texts(m), where
    if "legal_excludes" in step:
        assert not (norm(step["legal_excludes"]) & legal_texts(m)), where
    if "hand" in step:
        seat, cards = step["hand"]
        assert set(information_set(m, seat)["deal"]["hand"]) == {card_code(parse_card(c)) for c in cards}, where


def check_fields(m: MatchState, step: dict[str, Any], where: str, seat: int) -> None:
    """A step's ``talon_size`` / ``talon_state`` / ``trump_card`` (as ``seat`` sees them) and
    ``info``: ``[seat, {key: value}]``, fields of that seat's deal view (None = absent); shared
    with test_golden_rotation.py."""
    for key in ("talon_size", "talon_state", "trump_card"):
        if key in step:
            assert information_set(m, seat)["deal"][key] == expected_value(key, step[key]), where
    if "info" in step:
        who, fields = step["info"]
        view: dict[str, Any] = dict(information_set(m, who)["deal"])
        for k, v in fields.items():
            if v is None:
                assert view_value(view, k) is MISSING, where
            else:
                assert view_value(view, k) == expected_value(k, v), where


def apply_step(m: MatchState, step: dict[str, Any], where: str) -> None:
    """A step's ``act`` in the variant's action space: refused with the state unchanged when
    ``"error": "illegal"``, else applied (shared by the match-level runners)."""
    a = parse_action(step["act"], m.rules.spec.action_kinds)
    if step.get("error") == "illegal":
        before = m.snapshot()
        with pytest.raises(IllegalActionError):
            m.apply(a)
        assert m.snapshot() == before, where
    else:
        m.apply(a)


@pytest.mark.parametrize("path", FILES, ids=[f"{p.parent.name}/{p.stem}" for p in FILES])
def test_golden_deal(path: Path) -> None:
    spec = json.loads(path.read_text())
    m = load_match(spec, path.parent.name)
    for i, step in enumerate(spec["steps"]):
        where = f"{path.name} step {i} {step}"
        check_view(m, step, where)
        if "to_act" in step:
            assert m.to_act == step["to_act"], where
        check_fields(m, step, where, 0)
        if "act" in step:
            assert m.to_act == step["seat"], where
            if step.get("error") == "illegal":
                before = m.fingerprint()
                with pytest.raises(IllegalActionError):
                    apply(m, step["act"])
                assert m.fingerprint() == before
            else:
                m = apply(m, step["act"])
    if "result" in spec:
        assert m.results, f"{path.name}: the deal did not end"
        got = m.results[0].to_dict()
        for k, v in spec["result"].items():
            assert got[k] == v, f"{path.name}: result[{k}] = {got[k]!r}, expected {v!r}"
    for i, expected in enumerate(spec.get("results", [])):
        assert len(m.results) > i, f"{path.name}: deal {i} did not end"
        got = m.results[i].to_dict()
        for k, v in expected.items():
            assert got[k] == v, f"{path.name}: results[{i}][{k}] = {got[k]!r}, expected {v!r}"
    for k, v in spec.get("match", {}).items():
        got_m = {"over": m.over, "winner": m.winner, "game_points": m.game_points, "sets_won": m.sets_won,
                 "carried_points": m.carried, "deal_number": m.deal_number,
                 "match_schneider": m.match_schneider, "end_reason": m.end_reason}
        assert got_m[k] == v, f"{path.name}: match[{k}] = {got_m[k]!r}, expected {v!r}"


def test_every_two_player_variant_has_twelve_golden_deals() -> None:
    """Each two-player variant has at least 12 hand-written golden deals."""
    for v in ("schnapsen-at", "snaps-original66", "snaps-obican", "santase", "snapszer-hu-2p"):
        n = len(list((HERE / v).glob("*.json")))
        assert n >= 12, f"{v}: only {n} golden deals"

"""Generic match-level tests of every three- and four-player variant (docs/RULES.md §7-§12):
random playouts end with placements, every state survives the snapshot and the log replay
through JSON, and no information set shows a card its seat may not know (§14.3)."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from bummerl.rules import MatchState, information_set, list_variants, new_match, public_view
from bummerl.rules.base.cards import card_code
from bummerl.rules.match.infoset import SPECTATOR

from .spectator import check_public_no_leak

MULTI = [s.id for s in list_variants() if s.num_players > 2]


def _short(variant: str) -> dict[str, Any]:
    return {"match_target": 4}


def _hidden_codes(m: MatchState, seat: int, public: set[str]) -> set[str]:
    """Codes of cards in other seats' hands (and a talon / laid-away cards) that no public event
    has shown: ``seat`` must never see them (§14.3)."""
    snap = m.deal.to_snapshot()
    hidden: set[str] = set()
    hands = snap["hands"]
    seats = snap.get("seats") or list(range(len(hands)))
    for i, h in enumerate(hands):
        if seats[i] != seat:
            hidden |= {card_code(c) for c in range(24) if h >> c & 1}
    for i, h in enumerate(snap.get("laid_away") or []):
        if seats[i] != seat:
            hidden |= {card_code(c) for c in range(24) if h >> c & 1}
    talon = snap.get("talon")
    if isinstance(talon, list):
        hidden |= {card_code(c) for c in talon[snap["tpos"]:-1] if c >= 0}
    owner, taken = (snap.get("state") or {}).get("taken_up") or (-1, 0)
    if owner == seat:  # HU3S-KON-2: the hívó laid these away himself; the taker holds them now
        hidden -= {card_code(c) for c in range(24) if taken >> c & 1}
    return hidden - public


def _strings(x: Any) -> set[str]:
    if isinstance(x, str):
        return {x}
    if isinstance(x, dict):
        return set().union(*(_strings(v) for v in x.values())) if x else set()
    if isinstance(x, list):
        return set().union(*(_strings(v) for v in x)) if x else set()
    return set()


@pytest.mark.parametrize("variant", MULTI)
def test_random_matches_end_with_placements_and_round_trip(variant: str) -> None:
    """Random legal play ends every match; placements rank every seat; every state equals its
    snapshot restored through JSON and, now and then, its log replayed (the log is the truth)."""
    rng = random.Random(variant)
    for _ in range(6):
        m = new_match(variant, _short(variant), seed=rng.randrange(10**9))
        steps = 0
        while not m.over:
            if steps % 5 == 0:
                assert MatchState.from_snapshot(json.loads(json.dumps(m.snapshot()))) == m
            if steps % 23 == 0:
                assert MatchState.from_dict(json.loads(json.dumps(m.to_dict()))) == m
            m.apply(rng.choice(m.legal_actions()))
            steps += 1
            assert steps < 20000
        assert MatchState.from_dict(json.loads(json.dumps(m.to_dict()))) == m
        assert sorted(set(m.placements))[0] == 1 and len(m.placements) == m.num_seats
        assert max(m.game_points) >= m.rules.set_goal
        firsts = [s for s in range(m.num_seats) if m.placements[s] == 1]
        assert m.game_points[firsts[0]] == max(m.game_points)


@pytest.mark.parametrize("variant", MULTI)
def test_no_information_set_shows_a_hidden_card(variant: str) -> None:
    """§14.3: across random play, no seat's information set carries a card of another hand, the
    talon or another seat's laid-away cards unless a public event has shown it; the seat's hand
    is exactly its own; a seat that sits the deal out has an empty hand."""
    rng = random.Random(f"leak/{variant}")
    for _ in range(3):
        m = new_match(variant, _short(variant), seed=rng.randrange(10**9))
        while not m.over:
            for s in range(m.num_seats):
                info = information_set(m, s)
                public_now = _strings(info["deal"]["history"]) | _strings(info["deal"]["current_trick"])
                leaked = _hidden_codes(m, s, public_now) & _strings(info)
                assert not leaked, (variant, s, leaked)
                if s not in m.deal.seats:
                    assert info["deal"]["hand"] == []
            m.apply(rng.choice(m.legal_actions()))


@pytest.mark.parametrize("variant", MULTI)
def test_concede_puts_the_conceding_team_last(variant: str) -> None:
    """SRV-5: a resignation ends the match; the resigning seat's team is last, every other seat
    first; the log replays it."""
    m = new_match(variant, seed=3)
    m.apply(m.legal_actions()[0])
    m.resign(1)
    team = m.rules.spec.team_of_seat
    assert m.over and m.end_reason == "resigned"
    assert m.placements == [2 if team[s] == team[1] else 1 for s in range(m.num_seats)]
    assert MatchState.from_dict(json.loads(json.dumps(m.to_dict()))) == m


@pytest.mark.parametrize("variant", MULTI)
def test_public_view_hides_every_hidden_card(variant: str) -> None:
    """§14.3 for onlookers (``WatchMatch``): at every step of random matches, a state whose cards
    hidden from every seat (unshown cards of all hands, the talon, cards not yet dealt, laid-away
    cards) are shuffled gives a byte-identical public view, also after the next action; the
    public view holds no hand, no laid-away card and no legal action, and shows the bids."""
    rng = random.Random(f"public/{variant}")
    for _ in range(2):
        m = new_match(variant, _short(variant), seed=rng.randrange(10**9))
        while not m.over:
            check_public_no_leak(m, rng)
            view = public_view(m)
            assert view["seat"] == SPECTATOR and view["legal_actions"] == []
            assert view["deal"]["hand"] == [] and view["deal"]["laid_away"] == [] and "own_tricks" not in view["deal"]
            assert view["deal"]["hand_sizes"] == information_set(m, 0)["deal"]["hand_sizes"]
            m.apply(rng.choice(m.legal_actions()))

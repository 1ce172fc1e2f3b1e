"""State serialisation: the log replays to the same state, and the stored snapshot (a cache of
the log) restores it without replaying, for every variant and at every step of a match."""

from __future__ import annotations

import json
import random

import pytest

from bummerl.rules import list_variants, new_match
from bummerl.rules.state import MatchState


@pytest.mark.parametrize("variant", [v.id for v in list_variants()])
def test_snapshot_and_log_replay_restore_equal_states(variant: str) -> None:
    rng = random.Random(variant)
    m = new_match(variant, {"match_target": 3} if variant != "snapszer-hu-2p" else {"set_target": 3}, seed=rng.randrange(10**9))
    steps = 0
    while not m.over:
        snap = json.loads(json.dumps(m.snapshot()))  # through JSON, as stored in Redis
        restored = MatchState.from_snapshot(snap)
        assert restored == m
        assert restored.legal_actions() == m.legal_actions()
        if steps % 7 == 0:
            assert MatchState.from_dict(json.loads(json.dumps(m.to_dict()))) == m
        m.apply(rng.choice(m.legal_actions()))
        steps += 1
    assert MatchState.from_snapshot(json.loads(json.dumps(m.snapshot()))) == m
    assert MatchState.from_dict(m.to_dict()) == m


def test_resigned_match_round_trips() -> None:
    m = new_match("schnapsen-at", seed=4)
    m.apply(m.legal_actions()[0])
    m.resign(1)
    assert MatchState.from_dict(json.loads(json.dumps(m.to_dict()))) == m
    assert MatchState.from_snapshot(json.loads(json.dumps(m.snapshot()))) == m

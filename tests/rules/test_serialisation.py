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


def test_restore_uses_the_snapshot_when_its_layout_is_this_engines() -> None:
    m = new_match("schnapsen-at", seed=8)
    for _ in range(5):
        m.apply(m.legal_actions()[0])
    snap = json.loads(json.dumps(m.snapshot()))
    snap["deal_number"] = 99  # a snapshot-only field: restore must not replay when the layout matches
    assert MatchState.restore(snap).deal_number == 99


@pytest.mark.parametrize("change", ["old-layout", "no-layout", "slot-missing", "slot-added"])
def test_restore_replays_the_log_when_the_snapshot_is_from_another_engine(change: str) -> None:
    """A deploy that adds or removes a state slot must not make stored matches unreadable: the
    log (the source of truth) is replayed instead (issue 10, reshape: versioned snapshot)."""
    from bummerl.rules.state import snapshot_layout

    m = new_match("santase", seed=11)
    for _ in range(9):
        m.apply(m.legal_actions()[-1])
    snap = json.loads(json.dumps(m.snapshot()))
    if change == "old-layout":
        snap["layout"] = "0:000000000000"
        snap["deal_number"] = 99  # stale cache: must be ignored
    elif change == "no-layout":
        del snap["layout"]
    elif change == "slot-missing":
        del snap["deal"]["talon"]
        snap["layout"] = snapshot_layout()  # even with a matching tag, a snapshot that does not load is replayed
    else:
        snap["deal"]["a_new_slot"] = 1
        snap["layout"] = "1:ffffffffffff"
    restored = MatchState.restore(snap)
    assert restored == m and restored.legal_actions() == m.legal_actions()

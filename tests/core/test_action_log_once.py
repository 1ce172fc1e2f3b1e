"""The stored blob holds the action log once: the snapshot's log has no ``actions`` (the entries
hold every action), and a load puts them back, so the restored state (and the log replay it falls
back to after an engine change) equals the state that was committed, whatever ended each step:
an action, a resignation, a deal forfeited on time, a default move, a lost match on time, an idle
abandon. Blobs written before (with the actions in the log) still load."""

from __future__ import annotations

import random

import orjson
import pytest

from bummerl.core import MatchService
from bummerl.core.log import log_actions
from bummerl.core.reaper import Reaper
from bummerl.core.stored import encode_blob
from bummerl.rules import MatchState
from bummerl.store import MatchStore

from .conftest import FakeClock, new_match, to_act


async def _check_stored(svc: MatchService, tstore: MatchStore, match_id: str) -> None:
    stored = await tstore.load(match_id)
    assert stored is not None
    blob = orjson.loads(stored.state)
    assert "actions" not in blob["snapshot"]["log"]
    held = svc.versions[match_id].state  # what the committing process holds
    assert log_actions(blob["entries"]) == [list(a) for a in held.actions]
    fresh = await MatchService(tstore)._load(match_id)  # another replica: restores from the blob
    assert fresh.state == held
    assert MatchState.from_dict(fresh.state.to_dict()) == held  # the log replays to it too


@pytest.mark.parametrize("policy", ["forfeit-deal", "default-move", "forfeit-match"])
async def test_actions_and_timeouts_restore_from_the_entries(svc: MatchService, tstore: MatchStore,
                                                             clock: FakeClock, policy: str) -> None:
    created = await new_match(svc, "move=1", policy=policy)
    rng = random.Random(policy)
    for step in range(40):
        if (await svc.information_set(created.match_id, 0, created.tokens[0]))["match"]["over"]:
            break
        seat, info = await to_act(svc, created)
        if step % 7 == 3:  # let the seat run out of its move time: the reaper applies the policy
            clock.advance(1_001)
            assert await Reaper(svc).run_once() == 1
        else:
            await svc.submit_action(created.match_id, seat, created.tokens[seat], info["version"],
                                    rng.choice(info["legal_actions"])["id"])
        await _check_stored(svc, tstore, created.match_id)


async def test_resign_and_abandon_restore_from_the_entries(svc: MatchService, tstore: MatchStore,
                                                           clock: FakeClock) -> None:
    created = await new_match(svc, tc=None)
    seat, info = await to_act(svc, created)
    await svc.submit_action(created.match_id, seat, created.tokens[seat], info["version"],
                            info["legal_actions"][0]["id"])
    await svc.resign(created.match_id, 0, created.tokens[0])
    await _check_stored(svc, tstore, created.match_id)
    idle = await new_match(svc, tc=None, idle_limit_ms=5_000)
    clock.advance(5_001)
    assert await Reaper(svc).run_once() == 1
    await _check_stored(svc, tstore, idle.match_id)


async def test_a_blob_with_the_actions_in_its_log_still_loads(svc: MatchService, tstore: MatchStore) -> None:
    created = await new_match(svc, tc=None)
    seat, info = await to_act(svc, created)
    await svc.submit_action(created.match_id, seat, created.tokens[seat], info["version"],
                            info["legal_actions"][0]["id"])
    held = svc.versions[created.match_id]
    old = orjson.loads(encode_blob(held.state, held.entries, None, -1))
    old["snapshot"]["log"]["actions"] = [list(a) for a in held.state.actions]
    await tstore.commit(created.match_id, held.version, orjson.dumps(old), [])
    fresh = await MatchService(tstore)._load(created.match_id)
    assert fresh.state == held.state and fresh.version == held.version + 1

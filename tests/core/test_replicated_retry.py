"""Issue 38: with ``durability = replicated`` a retried action answered ``duplicate`` promises what a
first answer does (a replica has it). Here on one node without any replica: every commit's ``WAIT 1``
times out, so the first answer is UNAVAILABLE (NOT_REPLICATED) and the retry, which meets the version
already written, must answer the same rather than ``duplicate=True``. The cluster test
(tests/cluster/test_replica_lag.py) shows the retry answering ``duplicate`` once the replica caught up.
"""

from __future__ import annotations

from typing import Any

import grpc
import pytest

from bummerl.api.errors import status_of
from bummerl.core import MatchService
from bummerl.store import MatchStore
from bummerl.store.errors import ReplicationTimeoutError

pytestmark = pytest.mark.single_node  # needs a node without replicas


async def _first_turn(svc: MatchService) -> tuple[Any, int, dict[str, Any]]:
    created = await svc.create_match("schnapsen-at", seed=7)
    info = await svc.information_set(created.match_id, 0, created.tokens[0])
    seat = info["deal"]["to_act"]
    return created, seat, await svc.information_set(created.match_id, seat, created.tokens[seat])


async def test_a_retry_of_an_unreplicated_commit_is_not_answered_duplicate(tstore: MatchStore) -> None:
    plain = MatchService(tstore)  # creates the match (its create would not be replicated either)
    replicated = MatchStore(tstore.client, layout=tstore.layout, durability="replicated", replica_wait_ms=20)
    svc = MatchService(replicated)
    try:
        created, seat, info = await _first_turn(plain)
        v, a = info["version"], info["legal_actions"][0]["id"]
        with pytest.raises(ReplicationTimeoutError) as first:
            await svc.submit_action(created.match_id, seat, created.tokens[seat], v, a)
        status = status_of(first.value)
        assert (status.code, status.reason) == (grpc.StatusCode.UNAVAILABLE, "NOT_REPLICATED")
        assert (await tstore.load(created.match_id)).version == v + 1  # the commit stands on the primary
        for _retry in range(2):  # the retry meets v + 1, written by itself: still no replica has it
            with pytest.raises(ReplicationTimeoutError) as again:
                await svc.submit_action(created.match_id, seat, created.tokens[seat], v, a)
            assert again.value.version == v + 1
            assert status_of(again.value).reason == "NOT_REPLICATED"
        # another process (nothing held in memory) answers the same
        with pytest.raises(ReplicationTimeoutError):
            await MatchService(replicated).submit_action(created.match_id, seat, created.tokens[seat], v, a)
        # durability none: the duplicate answer as before, without any wait
        same = await plain.submit_action(created.match_id, seat, created.tokens[seat], v, a)
        assert same.duplicate and same.version == v + 1
    finally:
        await replicated.aclose()


async def test_durability_none_answers_duplicate_without_a_round_trip(tstore: MatchStore,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    svc = MatchService(tstore)
    created, seat, info = await _first_turn(svc)
    v, a = info["version"], info["legal_actions"][0]["id"]
    await svc.submit_action(created.match_id, seat, created.tokens[seat], v, a)

    async def no_wait(*_args: Any) -> None:
        raise AssertionError("durability none waits for no replica")

    monkeypatch.setattr(tstore, "wait_replicated", no_wait)
    for s in (svc, MatchService(tstore)):  # the version held, and a fresh read
        again = await s.submit_action(created.match_id, seat, created.tokens[seat], v, a)
        assert again.duplicate and again.version == v + 1


async def test_wait_replicated_without_a_replica_times_out(tstore: MatchStore, match_id: str) -> None:
    await tstore.wait_replicated(match_id, 5)  # durability none: nothing to wait for
    replicated = MatchStore(tstore.client, layout=tstore.layout, durability="replicated", replica_wait_ms=10)
    try:
        with pytest.raises(ReplicationTimeoutError) as info:
            await replicated.wait_replicated(match_id, 5)
        assert (info.value.match_id, info.value.version) == (match_id, 5)
    finally:
        await replicated.aclose()

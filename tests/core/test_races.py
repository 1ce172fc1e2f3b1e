"""Races on one match (docs/DESIGN.md §3): the same SubmitAction sent twice at once, a resignation racing an
action, stream subscribers while commits land. Real Valkey, no mocks."""

from __future__ import annotations

import asyncio
import json

from bummerl.core import MatchService
from bummerl.core.errors import StaleVersionError

from .conftest import act, new_match, to_act


async def test_identical_submits_at_once_are_applied_once_and_answered_duplicate(svc: MatchService) -> None:
    created = await new_match(svc, None)
    seat, info = await to_act(svc, created)
    ups = await asyncio.gather(*(act(svc, created, seat, info) for _ in range(6)))
    assert sorted(u.duplicate for u in ups) == [False] + [True] * 5
    assert {u.version for u in ups} == {info["version"] + 1}
    assert len((await svc.record(created.match_id))["actions"]) == 1


async def test_resign_racing_an_action_is_applied_not_rejected_as_stale(svc: MatchService) -> None:
    for _ in range(5):
        created = await new_match(svc, None)
        seat, info = await to_act(svc, created)
        res = await asyncio.gather(act(svc, created, seat, info),
                                   svc.resign(created.match_id, 1 - seat, created.tokens[1 - seat]),
                                   return_exceptions=True)
        assert not isinstance(res[1], BaseException) and res[1].match_over
        assert not isinstance(res[0], BaseException) or isinstance(res[0], StaleVersionError)
        rec = await svc.record(created.match_id)
        assert rec["match_result"]["reason"] == "resigned" and rec["match_result"]["winner"] == seat


async def test_stream_sends_each_event_exactly_once_under_concurrent_commits(svc: MatchService) -> None:
    created = await new_match(svc, None)

    async def player(seat: int) -> None:
        while True:
            info = await svc.information_set(created.match_id, seat, created.tokens[seat])
            if info["match"]["over"]:
                return
            if info["deal"]["to_act"] == seat:
                try:
                    await act(svc, created, seat, info)
                except StaleVersionError:
                    pass
            else:
                await asyncio.sleep(0)

    async def watcher(start_delay: int) -> list[tuple[int, str]]:
        for _ in range(start_delay):
            await asyncio.sleep(0)
        seen: list[tuple[int, str]] = []
        seat = (start_delay // 4) % 2  # five watchers per seat, under the cap of open streams per seat
        async for u in svc.stream(created.match_id, seat, created.tokens[seat]):
            seen.extend((e["version"], json.dumps(e, sort_keys=True)) for e in u.events)
            if u.match_over:
                break
        return seen

    results = await asyncio.gather(player(0), player(1), *(watcher(d) for d in range(0, 40, 4)))
    everything = [(v, json.dumps(json.loads(p), sort_keys=True))
                  for v, p in await svc.store.events_since(created.match_id, 0)]
    for seen in results[2:]:
        assert seen == everything, "each public event exactly once, in order, none missing"


async def test_events_of_a_commit_that_ends_a_deal_carry_that_deals_number(svc: MatchService) -> None:
    created = await new_match(svc, None)
    crossed = 0
    while crossed < 2:
        seat, info = await to_act(svc, created)
        if info["match"]["over"]:
            break
        u = await act(svc, created, seat, info)
        kinds = [next(k for k in e if k not in ("version", "deal_number")) for e in u.events]
        if "deal_ended" in kinds:
            crossed += 1
            ended = next(e for e in u.events if "deal_ended" in e)["deal_ended"]["result"]["deal_number"]
            cut = kinds.index("deal_started") if "deal_started" in kinds else len(kinds)
            assert {e["deal_number"] for e in u.events[:cut]} == {ended}
            assert {e["deal_number"] for e in u.events[cut:]} <= {ended + 1}
    assert crossed == 2

"""StreamMatch reuses the version this process just committed instead of reading the match
again (issue: service speed, "avoid the second read per action"), and still sends every public
event exactly once with the right information set."""

from __future__ import annotations

import asyncio
import json
import random

from bummerl.core import MatchService
from bummerl.store import MatchStore

from .conftest import new_match


async def test_streams_of_this_process_do_not_reload_what_it_committed(svc: MatchService, tstore: MatchStore) -> None:
    created = await new_match(svc, tc=None)
    loads = 0
    real_load, real_if_changed = tstore.load, tstore.load_if_changed

    async def counting_load(match_id: str):  # type: ignore[no-untyped-def]
        nonlocal loads
        loads += 1
        return await real_load(match_id)

    async def counting_if_changed(match_id: str, known: int):  # type: ignore[no-untyped-def]
        nonlocal loads
        loads += 1
        return await real_if_changed(match_id, known)

    tstore.load = counting_load  # type: ignore[method-assign]
    tstore.load_if_changed = counting_if_changed  # type: ignore[method-assign]
    updates: dict[int, list] = {0: [], 1: []}  # type: ignore[type-arg]

    async def follow(seat: int) -> None:
        async for u in svc.stream(created.match_id, seat, created.tokens[seat]):
            updates[seat].append(u)
            if u.match_over:
                return

    watchers = [asyncio.create_task(follow(s)) for s in (0, 1)]
    await asyncio.sleep(0.1)
    rng = random.Random(3)
    loads_before = loads
    submits = reads = 0
    while True:
        info0 = await svc.information_set(created.match_id, 0, created.tokens[0])
        reads += 1
        if info0["match"]["over"]:
            break
        seat = info0["deal"]["to_act"]
        if seat != 0:
            reads += 1
        info = info0 if seat == 0 else await svc.information_set(created.match_id, seat, created.tokens[seat])
        await svc.submit_action(created.match_id, seat, created.tokens[seat], info["version"],
                                rng.choice(info["legal_actions"])["id"])
        submits += 1
        await asyncio.sleep(0.005)  # let the streams take each version
    await asyncio.wait_for(asyncio.gather(*watchers), 10)
    # each information_set and submit_action loads once; the two streams load nothing more
    assert submits > 10 and loads - loads_before == reads + submits
    final = await svc.information_set(created.match_id, 0, created.tokens[0])
    for seat in (0, 1):
        versions = [e["version"] for u in updates[seat] for e in u.events]
        assert versions == sorted(versions)
        assert updates[seat][-1].version == final["version"] and updates[seat][-1].match_over
        seen = [json.dumps(e, sort_keys=True) for u in updates[seat] for e in u.events]
        assert len(seen) == len(set(seen))  # each public event once


async def test_a_load_sends_the_blob_only_when_another_writer_moved_the_match_on(tstore: MatchStore) -> None:
    """Two services on one store (two replicas): each holds the version it last saw; a load sends
    only the version while it is current, the whole match once the other replica committed."""
    a, b = MatchService(tstore), MatchService(tstore)
    created = await new_match(a, tc=None)
    mid = created.match_id
    info = await a.information_set(mid, 0, created.tokens[0])
    seat = info["deal"]["to_act"]
    info = await a.information_set(mid, seat, created.tokens[seat])
    v = info["version"]
    assert await tstore.load_if_changed(mid, v) == v  # unchanged: only the version comes back
    await b.submit_action(mid, seat, created.tokens[seat], v, info["legal_actions"][0]["id"])
    got = await tstore.load_if_changed(mid, v)
    assert not isinstance(got, int) and got is not None and got.version == v + 1
    # replica a still holds v, and must serve v + 1
    fresh = await a.information_set(mid, seat, created.tokens[seat])
    assert fresh["version"] == v + 1
    assert await tstore.load_if_changed("nosuchmatch", 1) is None
